import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, start, storesOf, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const U = { layer: 'user' as const, user_id: 'default' };
const LONG = 'We agreed to deploy the billing service on Friday after the final review meeting';

function add(name: string, trigger: string, predicate: Record<string, unknown> | string, action_kind: string, extra: Record<string, unknown> = {}) {
  return s.call('memory_watch', { action: 'add', name, trigger, predicate_json: typeof predicate === 'string' ? predicate : JSON.stringify(predicate), action_kind, ...extra });
}

describe('memory_watch', () => {
  it('adds, lists, disables and deletes rules with every listed field', async () => {
    s = await start();
    expect(await s.call('memory_watch', { action: 'list' })).toEqual({ action: 'list', rules: [] });
    const r = await add('deploys', 'message_received', { keywords: ['deploy'], min_importance: 0.2 }, 'log');
    expect(r.rule).toEqual({
      id: 'watch_1',
      name: 'deploys',
      trigger: 'message_received',
      predicate: { min_importance: 0.2, keywords: ['deploy'] },
      action: 'log',
      enabled: true,
      hits_24h: 0,
      created: expect.any(String),
    });
    expect(r.rules).toEqual([r.rule]);
    const d = await s.call('memory_watch', { action: 'disable', rule_id: 'watch_1' });
    expect(d).toMatchObject({ changed: true, rule: { enabled: false }, rules: [{ enabled: false }] });
    expect((await s.call('memory_watch', { action: 'disable', rule_id: 'watch_1' })).changed).toBe(false);
    const del = await s.call('memory_watch', { action: 'delete', rule_id: 'watch_1' });
    expect(del).toMatchObject({ rule: { id: 'watch_1', name: 'deploys' }, rules: [] });
    expect((await toolError(s.call('memory_watch', { action: 'delete', rule_id: 'watch_1' }))).field).toBe('rule_id');
  });

  it('names the field of every bad input, listing the allowed predicate keys', async () => {
    s = await start();
    const unknown = await toolError(add('r', 'new_message', { colour: 'red' }, 'log'));
    expect(unknown.field).toBe('predicate_json');
    expect(unknown.message).toContain('min_importance, l4_min_importance, keywords, sender');
    expect(unknown.accepted).toEqual(['min_importance', 'l4_min_importance', 'keywords', 'sender']);
    expect((await toolError(add('r', 'new_message', '{not json', 'log'))).field).toBe('predicate_json');
    expect((await toolError(add('r', 'new_message', { min_importance: 'high' }, 'log'))).field).toBe('predicate_json');
    expect((await toolError(add('r', 'remember', { sender: 'ann' }, 'log'))).field).toBe('predicate_json');
    expect((await toolError(add('r', 'think', {}, 'log'))).field).toBe('trigger');
    // The predicate as an object, not its text: checked the same.
    const asObject = await toolError(s.call('memory_watch', { action: 'add', name: 'o', trigger: 'new_message', predicate_json: { colour: 'red' }, action_kind: 'log' }));
    expect(asObject).toMatchObject({ field: 'predicate_json', accepted: ['min_importance', 'l4_min_importance', 'keywords', 'sender'] });
    const added = await s.call('memory_watch', { action: 'add', name: 'o', trigger: 'new_message', predicate_json: { keywords: ['deploy'] }, action_kind: 'log' });
    expect(added.rule.predicate).toEqual({ keywords: ['deploy'] });
    await s.call('memory_watch', { action: 'delete', rule_id: added.rule.id });
    expect((await toolError(add('r', 'new_message', {}, 'email'))).field).toBe('action_kind');
    expect((await toolError(add('r', 'remember', {}, 'tag'))).field).toBe('action_kind');
    expect((await toolError(s.call('memory_watch', { action: 'add', trigger: 'new_message', action_kind: 'log' }))).field).toBe('name');
    expect((await toolError(s.call('memory_watch', { action: 'add', name: 'r', action_kind: 'log' }))).field).toBe('trigger');
    expect((await toolError(s.call('memory_watch', { action: 'add', name: 'r', trigger: 'new_message' }))).field).toBe('action_kind');
    expect((await toolError(s.call('memory_watch', { action: 'disable' }))).field).toBe('rule_id');
    expect((await toolError(s.call('memory_watch', { action: 'disable', rule_id: 'rule-1' }))).field).toBe('rule_id');
    expect((await toolError(s.call('memory_watch', { action: 'purge' }))).field).toBe('action');
    await add('r', 'new_message', {}, 'log');
    expect((await toolError(add('r', 'new_message', {}, 'note'))).field).toBe('name');
    expect((await s.call('memory_watch', { action: 'list' })).rules).toHaveLength(1);
  });

  it('keeps rules in their layer and user_id: others neither see, change nor trigger them', async () => {
    s = await start();
    await add('deploys', 'message_received', { keywords: 'deploy' }, 'tag');
    expect((await s.call('memory_watch', { action: 'list', layer: 'agent' })).rules).toEqual([]);
    expect((await s.call('memory_watch', { action: 'list', user_id: 'bob' })).rules).toEqual([]);
    expect((await toolError(s.call('memory_watch', { action: 'disable', rule_id: 'watch_1', user_id: 'bob' }))).field).toBe('rule_id');
    expect((await toolError(s.call('memory_watch', { action: 'delete', rule_id: 'watch_1', layer: 'agent' }))).field).toBe('rule_id');
    const r = await s.call('think', { text: LONG, layer: 'user', user_id: 'bob' });
    const ep = r.actions.find((a: any) => a.store === 'l3').id;
    expect(storesOf(s).episodes.get({ layer: 'user', user_id: 'bob' }, ep)!.tags).toEqual(['thought']);
    expect((await s.call('memory_watch', { action: 'list' })).rules[0].hits_24h).toBe(0);
  });

  it('tags think\'s episode on message_received, counts hits over the last 24 hours, and stops once disabled', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    await add('deploys', 'message_received', { keywords: ['deploy'] }, 'tag');
    const r = await s.call('think', { text: LONG, layer: 'user' });
    const ep = r.actions.find((a: any) => a.store === 'l3').id;
    expect(storesOf(s).episodes.get(U, ep)!.tags).toEqual(['thought', 'watch:deploys']);
    const quiet = await s.call('think', { text: 'A quiet afternoon reading a long novel on the sofa by the window', layer: 'user' });
    expect(storesOf(s).episodes.get(U, quiet.actions.find((a: any) => a.store === 'l3').id)!.tags).toEqual(['thought']);
    expect((await s.call('memory_watch', { action: 'list' })).rules[0].hits_24h).toBe(1);
    clock.advance(24 * 3600_000 + 1000);
    expect((await s.call('memory_watch', { action: 'list' })).rules[0].hits_24h).toBe(0);
    await s.call('memory_watch', { action: 'disable', rule_id: 'watch_1' });
    const off = await s.call('think', { text: `${LONG} again`, layer: 'user' });
    expect(storesOf(s).episodes.get(U, off.actions.find((a: any) => a.store === 'l3').id)!.tags).toEqual(['thought']);
    expect((await s.call('memory_watch', { action: 'list' })).rules[0].hits_24h).toBe(0);
  });

  it('rules named in Cyrillic each keep their own scratchpad note (both were watch:untitled, one overwriting the other)', async () => {
    s = await start();
    await add('Важно', 'message_received', { keywords: ['врач'] }, 'note');
    await add('Срочно', 'message_received', { keywords: ['банк'] }, 'note');
    await s.call('think', { text: 'Завтра в девять утра нужно позвонить врачу насчёт анализов крови', layer: 'user' });
    await s.call('think', { text: 'Не забыть перевести деньги в банк до конца этой недели обязательно', layer: 'user' });
    expect(storesOf(s).scratchpad.read(U).map((e) => [e.key, e.content.split(' (')[0]])).toEqual([
      ['watch:важно', 'Важно'],
      ['watch:срочно', 'Срочно'],
    ]);
  });

  it('logs, notes and tags on the new_message and auto_save_candidate events by importance, L4 importance and sender', async () => {
    s = await start();
    await add('any save', 'new_message', { min_importance: 0.5 }, 'log');
    await add('from ann', 'new_message', { sender: 'Ann' }, 'note');
    await add('core', 'auto_save_candidate', { l4_min_importance: 0.8 }, 'tag');
    const text = 'Important decision: we must always remember that the deadline for the project is critical and urgent';
    const hooked = await s.call('memory_hook', { event: 'new_message', payload: { text, sender: 'ann' } });
    const fired = hooked.results['@memory-service/plugin-review'].watch_hits;
    expect(fired.map((f: any) => f.name)).toEqual(['any save', 'from ann']);
    expect(storesOf(s).scratchpad.get(U, 'watch:from-ann')!.content).toContain('from ann (new_message) matched');
    expect(storesOf(s).audit.forTargetInScope(U, 'watch_1').map((e) => e.action)).toEqual(['create', 'watch_hit']);
    const other = await s.call('memory_hook', { event: 'new_message', payload: { text: 'ok', sender: 'bob' } });
    expect(other.results['@memory-service/plugin-review']).toBeUndefined();
    const candidate = await s.call('memory_hook', { event: 'auto_save_candidate', payload: { text: `${text} indeed` } });
    const saved = candidate.results['@memory-service/plugin-primitives'];
    const l3 = saved.actions.find((a: any) => a.store === 'l3');
    expect(saved.actions.some((a: any) => a.store === 'l4')).toBe(true);
    expect(candidate.results['@memory-service/plugin-review'].watch_hits.map((f: any) => f.name)).toEqual(['core']);
    expect(storesOf(s).episodes.get(U, l3.id)!.tags).toContain('watch:core');
    const rules = (await s.call('memory_watch', { action: 'list' })).rules;
    expect(rules.map((r: any) => r.hits_24h)).toEqual([1, 1, 1]);
  });

  // sender was compared by lower case alone: "\u0130LKER" and a name sent decomposed missed the rule.
  it('matches sender by folded equality (NFC and NFD, case, accents, \u0130, \u00df) and stores it in NFC', async () => {
    s = await start();
    const r = await add('from zoe', 'new_message', { sender: ' Zoe\u0308 ' }, 'log');
    expect(r.rule.predicate).toEqual({ sender: 'Zo\u00eb' });
    await add('from ilker', 'auto_save_candidate', { sender: 'ilker' }, 'log');
    await add('from gross', 'new_message', { sender: 'Herr Gro\u00df' }, 'log');
    const hits = async (event: string, sender: string) =>
      ((await s.call('memory_hook', { event, payload: { text: 'ok', sender } })).results['@memory-service/plugin-review']?.watch_hits ?? []).map((f: any) => f.name);
    expect(await hits('new_message', 'ZO\u00cb')).toEqual(['from zoe']);
    expect(await hits('new_message', 'Zo\u00eb')).toEqual(['from zoe']);
    expect(await hits('auto_save_candidate', '\u0130LKER')).toEqual(['from ilker']);
    expect(await hits('new_message', 'HERR GROSS')).toEqual(['from gross']);
    expect(await hits('new_message', 'Zoey')).toEqual([]);
    expect(await hits('new_message', 'Herr Grossmann')).toEqual([]);
  });

  it('hits_24h does not count the hits dated after now (the clock stepped back)', async () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 29, 1, 30));
    s = await start({ clock });
    await add('any', 'new_message', {}, 'log');
    await s.call('memory_hook', { event: 'new_message', payload: { text: 'ok' } });
    clock.set(Date.UTC(2026, 2, 29, 0, 30)); // an NTP correction: back by an hour
    expect((await s.call('memory_watch', { action: 'list' })).rules[0].hits_24h).toBe(0);
    await s.call('memory_hook', { event: 'new_message', payload: { text: 'ok' } });
    expect((await s.call('memory_watch', { action: 'list' })).rules[0].hits_24h).toBe(1);
  });

  it('watches memory_remember through the importance gate (trigger remember)', async () => {
    s = await start();
    await add('allergies', 'remember', { keywords: 'allergy', l4_min_importance: 0.5 }, 'note');
    const stores = storesOf(s);
    const gate = (i: number, f: any) => s.kernel.hooks.importance_gate.call(i, f);
    stores.transaction(() => stores.rememberer.remember(U, { key: 'food', value: 'Peanut allergy', importance: 0.6 }, gate));
    stores.transaction(() => stores.rememberer.remember(U, { key: 'food2', value: 'Peanut allergy', importance: 0.3 }, gate));
    expect(stores.scratchpad.get(U, 'watch:allergies')!.content).toContain('food: Peanut allergy');
    expect((await s.call('memory_watch', { action: 'list' })).rules[0].hits_24h).toBe(1);
  });

  it('evaluates the rules with the review tier hidden', async () => {
    s = await start({ expose: 'primitives' });
    expect(await s.listTools()).not.toContain('memory_watch');
    storesOf(s).watchRules.add(U, { name: 'deploys', trigger: 'message_received', predicate: { keywords: ['deploy'] }, action: 'tag' });
    const r = await s.call('think', { text: LONG, layer: 'user' });
    expect(storesOf(s).episodes.get(U, r.actions.find((a: any) => a.store === 'l3').id)!.tags).toEqual(['thought', 'watch:deploys']);
  });

  it('a name the scope holds already is a ConflictError naming name, not bad input', async () => {
    s = await start();
    await add('deploys', 'new_message', {}, 'log');
    expect(await toolError(add('deploys', 'new_message', {}, 'note'))).toMatchObject({ type: 'ConflictError', code: 'KERNEL_ERR_CONFLICT', field: 'name' });
    expect(((await s.call('memory_watch', { action: 'list' })) as any).rules).toHaveLength(1);
  });

  it('a name sent decomposed is the rule of that name in NFC, and a name sharing another rule\'s watch: key is refused naming it', async () => {
    s = await start();
    const made = await add('Cafe\u0301', 'message_received', { keywords: ['flat white'] }, 'note');
    expect(made.rule.name).toBe('Caf\u00e9');
    expect(await toolError(add('Caf\u00e9', 'message_received', {}, 'note'))).toMatchObject({ type: 'ConflictError', field: 'name' });
    const clash = await toolError(add('CAFE', 'message_received', {}, 'note'));
    expect(clash).toMatchObject({ type: 'ConflictError', field: 'name' });
    expect(clash.message).toContain(`watch:cafe, which watch rule ${made.rule.id}`);
    expect((await s.call('memory_watch', { action: 'list' })).rules.map((r: { name: string }) => r.name)).toEqual(['Caf\u00e9']);
    await s.call('think', { text: 'The flat white at the corner place is the best one in town, go again on Monday', layer: 'user' });
    expect(storesOf(s).scratchpad.read(U).map((e) => [e.key, e.content.split(' (')[0]])).toEqual([['watch:cafe', 'Caf\u00e9']]);
  });
});

describe('memory_watch names with nothing hidden', () => {
  it('refuses a name holding a control character or a character that shows nothing, naming name, the character and its index, and adds nothing', async () => {
    s = await start();
    await add('deploys', 'message_received', {}, 'note');
    for (const [name, what] of [
      ['deploys\u3164', 'U+3164 at index 7'],
      ['\u115Fdeploys', 'U+115F at index 0'],
      ['de\u200Bploys', 'U+200B at index 2'],
      ['deploys\uFE0F', 'U+FE0F at index 7'],
      ['\u2800deploys', 'U+2800 at index 0'],
      ['deploys\nnow', 'U+000A at index 7'],
    ] as const) {
      const e = await toolError(add(name, 'message_received', {}, 'note'));
      expect(e, JSON.stringify(name)).toMatchObject({ type: 'ValidationError', field: 'name' });
      expect(e.message, JSON.stringify(name)).toContain(what);
    }
    expect((await s.call('memory_watch', { action: 'list' })).rules.map((r: { name: string }) => r.name)).toEqual(['deploys']);
    // A script's joiner and an emoji's selector are kept.
    expect((await add('\u2764\ufe0f', 'message_received', {}, 'log')).rule.name).toBe('\u2764\ufe0f');
  });
});

describe('memory_watch keywords as text forms (audit R)', () => {
  it('a keyword matches think text folded as dream folds it: NFC and NFD alike', async () => {
    s = await start();
    await add('cafe', 'message_received', { keywords: ['caf\u00e9'] }, 'log');
    await s.call('think', { text: 'Remember the cafe\u0301 on the corner, it serves a great flat white every morning', layer: 'user' });
    await s.call('think', { text: 'Remember the caf\u00e9 downtown, it is fine too for a quick lunch on weekdays', layer: 'user' });
    expect((await s.call('memory_watch', { action: 'list' })).rules[0].hits_24h).toBe(2);
  });
});
