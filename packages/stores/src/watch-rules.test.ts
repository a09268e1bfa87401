import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeEnv, A, U, U2, type Env } from './test-helpers.js';
import { StoreError } from './errors.js';
import { watchTag, type WatchEvent } from './watch-rules.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(StoreError);
    return (e as StoreError).field;
  }
  throw new Error('did not throw');
}

const ev = (over: Partial<WatchEvent> = {}): WatchEvent => ({ text: 'Deploy on Friday', importance: 0.6, l4_importance: null, sender: null, refs: [], ...over });

describe('WatchRuleStore', () => {
  it('adds, lists, disables and deletes rules of one scope', () => {
    const w = env.stores.watchRules;
    const r = w.add(U, { name: 'deploys', trigger: 'message_received', predicate: { keywords: ['deploy'] }, action: 'log' });
    expect(r).toMatchObject({ id: 'watch_1', name: 'deploys', trigger: 'message_received', predicate: { keywords: ['deploy'] }, action: 'log', enabled: true, hits_24h: 0 });
    expect(w.list(A)).toEqual([]);
    expect(w.list(U2)).toEqual([]);
    expect(w.setEnabled(U, r.id, false)).toMatchObject({ changed: true, rule: { enabled: false } });
    expect(w.setEnabled(U, r.id, false).changed).toBe(false);
    expect(fieldOf(() => w.setEnabled(A, r.id, false))).toBe('rule_id');
    expect(fieldOf(() => w.delete(U, 'nope'))).toBe('rule_id');
    expect(w.delete(U, r.id).name).toBe('deploys');
    expect(w.list(U)).toEqual([]);
    expect(fieldOf(() => w.delete(U, r.id))).toBe('rule_id');
  });

  it('refuses bad triggers, actions, predicates and duplicate names, naming the field', () => {
    const w = env.stores.watchRules;
    const add = (over: Record<string, unknown>) => () => w.add(U, { name: 'r', trigger: 'new_message', predicate: {}, action: 'log', ...over } as never);
    expect(fieldOf(add({ trigger: 'think' }))).toBe('trigger');
    expect(fieldOf(add({ action: 'email' }))).toBe('action_kind');
    expect(fieldOf(add({ trigger: 'remember', action: 'tag' }))).toBe('action_kind');
    expect(fieldOf(add({ predicate: { colour: 'red' } }))).toBe('predicate_json');
    expect(fieldOf(add({ predicate: { min_importance: 2 } }))).toBe('predicate_json');
    expect(fieldOf(add({ predicate: { keywords: [] } }))).toBe('predicate_json');
    expect(fieldOf(add({ predicate: [] }))).toBe('predicate_json');
    expect(fieldOf(add({ trigger: 'remember', predicate: { sender: 'bob' } }))).toBe('predicate_json');
    expect(fieldOf(add({ name: ' ' }))).toBe('name');
    add({})();
    expect(fieldOf(add({}))).toBe('name');
    // A taken name is a conflict with a record, as a branch's or a disclosure rule's is, not bad input.
    expect(add({})).toThrow(expect.objectContaining({ code: 'STORES_ERR_CONFLICT', field: 'name' }));
    expect(w.list(U)).toHaveLength(1);
  });

  it('matches each predicate key, counts hits in the last 24 hours by the clock, and runs the actions', () => {
    const w = env.stores.watchRules;
    const log = w.add(U, { name: 'important', trigger: 'new_message', predicate: { min_importance: 0.5 }, action: 'log' });
    const tag = w.add(U, { name: 'From Ann', trigger: 'new_message', predicate: { sender: 'ann', keywords: 'deploy' }, action: 'tag' });
    const note = w.add(U, { name: 'core', trigger: 'new_message', predicate: { l4_min_importance: 0.8 }, action: 'note' });
    const ep = env.stores.episodes.add(U, { summary: 'Deploy on Friday' });
    expect(w.fire(U, 'new_message', ev({ importance: 0.4, sender: 'Ann', refs: [{ store: 'l3', id: ep.id }] }))).toEqual([
      { rule_id: tag.id, name: 'From Ann', action: 'tag', effect: `tagged ${ep.id} watch:from-ann` },
    ]);
    expect(env.stores.episodes.get(U, ep.id)!.tags).toEqual(['watch:from-ann']);
    expect(w.fire(U, 'new_message', ev({ importance: 0.9, l4_importance: 0.9 })).map((f) => f.rule_id)).toEqual([log.id, note.id]);
    expect(env.stores.scratchpad.get(U, 'watch:core')!.content).toContain('core (new_message) matched');
    expect(env.stores.audit.forTargetInScope(U, log.id).map((e) => e.action)).toEqual(['create', 'watch_hit']);
    // Other scopes and triggers see none of it.
    expect(w.fire(A, 'new_message', ev({ importance: 1 }))).toEqual([]);
    expect(w.fire(U, 'auto_save_candidate', ev({ importance: 1 }))).toEqual([]);
    expect(w.list(U).map((r) => r.hits_24h)).toEqual([1, 1, 1]);
    env.clock.advance(23 * 3600_000);
    w.fire(U, 'new_message', ev({ importance: 0.7 }));
    expect(w.list(U).map((r) => r.hits_24h)).toEqual([2, 1, 1]);
    env.clock.advance(2 * 3600_000);
    expect(w.list(U).map((r) => r.hits_24h)).toEqual([1, 0, 0]);
    w.setEnabled(U, log.id, false);
    expect(w.fire(U, 'new_message', ev({ importance: 0.7 }))).toEqual([]);
  });

  // hits_24h is a window that ends at now (iso-time recentWindow): a hit counted while the clock ran
  // ahead was "in the last 24 hours" until the clock passed it by a day.
  it('hits_24h leaves out the hits dated after now (the clock stepped back)', () => {
    const w = env.stores.watchRules;
    const r = w.add(U, { name: 'any', trigger: 'new_message', predicate: {}, action: 'log' });
    w.fire(U, 'new_message', ev());
    env.clock.advance(3600_000);
    w.fire(U, 'new_message', ev());
    env.clock.advance(-2 * 3600_000); // back by two hours: both hits are after now
    expect(w.get(U, r.id)!.hits_24h).toBe(0);
    w.fire(U, 'new_message', ev());
    expect(w.list(U)[0]!.hits_24h).toBe(1);
    env.clock.advance(3600_000); // the first hit's time again
    expect(w.get(U, r.id)!.hits_24h).toBe(2);
  });
});

describe('WatchRuleStore: the tag and scratchpad key of a rule', () => {
  it('rules named in other scripts each write their own note and tag; an ASCII name keeps its key', () => {
    const w = env.stores.watchRules;
    const ep = env.stores.episodes.add(U, { summary: 'Позвонить врачу насчёт анализов' });
    for (const name of ['Важно', 'Срочно']) w.add(U, { name, trigger: 'new_message', predicate: {}, action: 'note' });
    const tagger = w.add(U, { name: '東京 Notes', trigger: 'new_message', predicate: {}, action: 'tag' });
    const fired = w.fire(U, 'new_message', ev({ text: 'Позвонить врачу', refs: [{ store: 'l3', id: ep.id }] }));
    expect(fired.map((f) => f.effect)).toEqual(['scratchpad watch:важно', 'scratchpad watch:срочно', `tagged ${ep.id} watch:東京-notes`]);
    expect(env.stores.scratchpad.get(U, 'watch:важно')!.content).toMatch(/^Важно \(new_message\)/);
    expect(env.stores.scratchpad.get(U, 'watch:срочно')!.content).toMatch(/^Срочно \(new_message\)/);
    expect(env.stores.scratchpad.get(U, 'watch:untitled')).toBeNull();
    expect(env.stores.episodes.get(U, ep.id)!.tags).toEqual(['watch:東京-notes']);
    expect(watchTag({ id: tagger.id, name: 'From Ann!' })).toBe('watch:from-ann');
  });

  it('a rule whose name has no letter or digit is tagged by its id, so two such rules never share a note', () => {
    const w = env.stores.watchRules;
    const a = w.add(U, { name: '!!!', trigger: 'new_message', predicate: {}, action: 'note' });
    const b = w.add(U, { name: '???', trigger: 'new_message', predicate: {}, action: 'note' });
    expect(w.fire(U, 'new_message', ev()).map((f) => f.effect)).toEqual([`scratchpad watch:${a.id}`, `scratchpad watch:${b.id}`]);
    expect(env.stores.scratchpad.get(U, `watch:${a.id}`)!.content).toMatch(/^!!! /);
    expect(env.stores.scratchpad.get(U, `watch:${b.id}`)!.content).toMatch(/^\?\?\? /);
  });
});

describe('WatchRuleStore: names in NFC, one key per rule', () => {
  const C = 'Caf\u00e9';
  const D = 'Cafe\u0301';
  const conflict = (fn: () => unknown): string => {
    try {
      fn();
    } catch (e) {
      expect(e).toMatchObject({ code: 'STORES_ERR_CONFLICT', field: 'name' });
      return (e as Error).message;
    }
    throw new Error('did not throw');
  };

  it('takes the name in NFC: the same name sent decomposed is the rule already there, not a second one', () => {
    const w = env.stores.watchRules;
    const made = w.add(U, { name: D, trigger: 'new_message', predicate: {}, action: 'note' });
    expect(made.name).toBe(C);
    expect(conflict(() => w.add(U, { name: C, trigger: 'new_message', predicate: {}, action: 'log' }))).toMatch(/a watch rule named "Café" exists/);
    expect(w.list(U).map((r) => r.name)).toEqual([C]);
    // Import merge skips it in either form.
    const r = { name: D, trigger: 'new_message', predicate: {}, action: 'log', enabled: true, created: '2020-01-01T00:00:00.000Z', updated: '2020-01-01T00:00:00.000Z' };
    expect(w.restore(U, r)).toBeNull();
    expect(w.restore(U, { ...r, name: C })).toBeNull();
    expect(w.list(U)).toHaveLength(1);
  });

  it('refuses a second name that would share the first one\'s tag and note key, naming the rule holding it', () => {
    const w = env.stores.watchRules;
    const cafe = w.add(U, { name: C, trigger: 'new_message', predicate: {}, action: 'note' });
    const ab = w.add(U, { name: 'a b', trigger: 'new_message', predicate: {}, action: 'note' });
    expect(conflict(() => w.add(U, { name: 'Cafe', trigger: 'new_message', predicate: {}, action: 'note' }))).toContain(`watch:cafe, which watch rule ${cafe.id} ("Café") already uses`);
    expect(conflict(() => w.add(U, { name: 'a-b', trigger: 'new_message', predicate: {}, action: 'note' }))).toContain(`watch:a-b, which watch rule ${ab.id} ("a b")`);
    expect(conflict(() => w.add(U, { name: 'A  B!', trigger: 'new_message', predicate: {}, action: 'note' }))).toContain('watch:a-b');
    // Another scope, and names with no letter or digit (keyed by id), are free.
    expect(w.add(U2, { name: 'Cafe', trigger: 'new_message', predicate: {}, action: 'note' }).name).toBe('Cafe');
    w.add(U, { name: '!!!', trigger: 'new_message', predicate: {}, action: 'note' });
    w.add(U, { name: '???', trigger: 'new_message', predicate: {}, action: 'note' });
    expect(new Set(w.list(U).map((r) => watchTag(r))).size).toBe(4);
    // Import merge skips a rule whose key is taken rather than failing the import.
    expect(w.restore(U, { name: 'CAFE', trigger: 'new_message', predicate: {}, action: 'log', enabled: true, created: '2020-01-01T00:00:00.000Z', updated: '2020-01-01T00:00:00.000Z' })).toBeNull();
    // Once deleted, the key is free again.
    w.delete(U, cafe.id);
    expect(w.add(U, { name: 'Cafe', trigger: 'new_message', predicate: {}, action: 'note' }).name).toBe('Cafe');
  });
});

describe('WatchRuleStore: names with nothing hidden (kernel checkNewName)', () => {
  const refusal = (name: string): { field?: string; message: string } => {
    try {
      env.stores.watchRules.add(U, { name, trigger: 'new_message', predicate: {}, action: 'note' });
    } catch (e) {
      return { field: (e as { field?: string }).field, message: (e as Error).message };
    }
    throw new Error(`did not throw for ${JSON.stringify(name)}`);
  };

  it('refuses a control character or a character that shows nothing, naming name, the character as U+XXXX and its index', () => {
    expect(refusal('deploys\u3164')).toEqual({ field: 'name', message: expect.stringContaining('U+3164 at index 7') });
    expect(refusal('\u115Fdeploys')).toEqual({ field: 'name', message: expect.stringContaining('U+115F at index 0') });
    expect(refusal('de\u200Bploys')).toEqual({ field: 'name', message: expect.stringContaining('U+200B at index 2') });
    expect(refusal('deploys\u202Eth')).toEqual({ field: 'name', message: expect.stringContaining('U+202E at index 7') });
    expect(refusal('deploys\uFE0F')).toEqual({ field: 'name', message: expect.stringContaining('U+FE0F at index 7') });
    // Trimmed first, so the index is the stored name's; a blank at the edge is U+2800.
    expect(refusal('  \u2800deploys')).toEqual({ field: 'name', message: expect.stringContaining('U+2800 at index 0') });
    expect(refusal('deploys\u2800')).toEqual({ field: 'name', message: expect.stringContaining('U+2800 at index 7') });
    expect(refusal('deploys\nnow')).toEqual({ field: 'name', message: expect.stringContaining('U+000A at index 7') });
    expect(refusal('dep\tloys')).toEqual({ field: 'name', message: expect.stringContaining('U+0009 at index 3') });
    expect(refusal('deploys\u2029now')).toEqual({ field: 'name', message: expect.stringContaining('U+2029 at index 7') });
    expect(env.stores.watchRules.list(U)).toEqual([]);
  });

  it('keeps what a script needs: joiners, an emoji\'s selector, the bidi marks', () => {
    const w = env.stores.watchRules;
    for (const name of ['\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645', '\u2764\ufe0f', '\u05e9\u05dc\u05d5\u05dd\u200f 1']) {
      expect(w.add(U, { name, trigger: 'new_message', predicate: {}, action: 'log' }).name).toBe(name);
    }
    expect(w.list(U)).toHaveLength(3);
  });

  it('import refuses a rule so named, naming its field, as add does', () => {
    const r = { name: 'deploys\u3164', trigger: 'new_message', predicate: {}, action: 'log', enabled: true, created: '2020-01-01T00:00:00.000Z', updated: '2020-01-01T00:00:00.000Z' };
    expect(() => env.stores.watchRules.restore(U, r)).toThrow(expect.objectContaining({ field: 'name', message: expect.stringContaining('U+3164 at index 7') }));
    expect(env.stores.watchRules.list(U)).toEqual([]);
  });
});

describe('WatchRuleStore: export, import and the window purge', () => {
  it('restore keeps the state and times with no hits; deleteSince takes the rules added and the hits counted in the window', () => {
    const s = env.stores.watchRules;
    const event: WatchEvent = { text: 'deadline', importance: 0.9, l4_importance: null, sender: null, refs: [] };
    s.add(U, { name: 'old', trigger: 'message_received', predicate: {}, action: 'log' });
    s.fire(U, 'message_received', event);
    const since = env.clock.now();
    env.clock.advance(1000);
    s.add(U, { name: 'new', trigger: 'message_received', predicate: {}, action: 'log' });
    s.fire(U, 'message_received', event);
    expect(s.list(U).map((r) => r.hits_24h)).toEqual([2, 1]);
    const r = { name: 'Big', trigger: 'remember', predicate: { min_importance: 0.5 }, action: 'note', enabled: false, created: '2020-01-01T00:00:00.000Z', updated: '2020-01-02T00:00:00.000Z' };
    expect(s.restore(U2, r)).toMatchObject({ ...r, hits_24h: 0 });
    expect(s.restore(U2, { ...r, action: 'log' })).toBeNull();
    expect(s.deleteSince(U, new Date(since + 1).toISOString())).toBe(1);
    expect(s.list(U).map((x) => [x.name, x.hits_24h])).toEqual([['old', 1]]);
    expect(s.clear(U2)).toBe(1);
  });

});

describe('WatchRuleStore: keywords folded', () => {
  it('matches keywords folded as dream folds words: NFC and NFD, Turkish capital I with dot, sharp s', () => {
    const w = env.stores.watchRules;
    const cafe = w.add(U, { name: 'cafe', trigger: 'new_message', predicate: { keywords: ['caf\u00e9'] }, action: 'log' });
    const ist = w.add(U, { name: 'ist', trigger: 'new_message', predicate: { keywords: ['istanbul'] }, action: 'log' });
    const str = w.add(U, { name: 'str', trigger: 'new_message', predicate: { keywords: ['strasse'] }, action: 'log' });
    const fired = (text: string) => w.fire(U, 'new_message', ev({ text })).map((f) => f.rule_id);
    expect(fired('the cafe\u0301 on the corner')).toEqual([cafe.id]);
    expect(fired('trip to \u0130STANBUL')).toEqual([ist.id]);
    expect(fired('walk down the Stra\u00dfe')).toEqual([str.id]);
    expect(fired('nothing here')).toEqual([]);
  });
});

describe('WatchRuleStore: sender folded', () => {
  // sender compared by lower case alone: a sender sent decomposed (macOS, some keyboards), "İLKER" or
  // "STRASSE" did not match the rule that keywords, dream and forget would all have matched.
  it('matches the sender by folded equality: NFC and NFD, case, accents, Turkish capital I with dot, sharp s; never a part of it', () => {
    const w = env.stores.watchRules;
    const zoe = w.add(U, { name: 'zoe', trigger: 'new_message', predicate: { sender: 'Zo\u00eb' }, action: 'log' });
    const ilker = w.add(U, { name: 'ilker', trigger: 'new_message', predicate: { sender: 'ilker' }, action: 'log' });
    const gross = w.add(U, { name: 'gross', trigger: 'auto_save_candidate', predicate: { sender: 'Herr Gro\u00df' }, action: 'log' });
    const fired = (sender: string | null, trigger: 'new_message' | 'auto_save_candidate' = 'new_message') => w.fire(U, trigger, ev({ sender })).map((f) => f.rule_id);
    for (const s of ['Zoe\u0308', 'ZO\u00cb', 'zo\u00eb', ' Zo\u00eb ', 'Zoe']) expect(fired(s), JSON.stringify(s)).toEqual([zoe.id]);
    for (const s of ['\u0130LKER', 'ILKER', 'Ilker']) expect(fired(s), s).toEqual([ilker.id]);
    for (const s of ['HERR GROSS', 'herr gross', 'Herr Gro\u1e9e']) expect(fired(s, 'auto_save_candidate'), s).toEqual([gross.id]);
    // Equality, not a substring either way.
    for (const s of ['Zoey', 'Zo', 'ilker2', 'Herr Grossmann', 'Gross', '', null]) {
      expect(fired(s), JSON.stringify(s)).toEqual([]);
      expect(fired(s, 'auto_save_candidate'), JSON.stringify(s)).toEqual([]);
    }
  });

  it('stores the sender trimmed in NFC; a sender that folds to nothing matches no sender', () => {
    const w = env.stores.watchRules;
    const r = w.add(U, { name: 'nfd', trigger: 'new_message', predicate: { sender: '  Zoe\u0308 ' }, action: 'log' });
    expect(r.predicate.sender).toBe('Zo\u00eb');
    expect(w.get(U, r.id)!.predicate.sender).toBe('Zo\u00eb');
    const mark = w.add(U, { name: 'mark', trigger: 'new_message', predicate: { sender: '\u0301' }, action: 'log' });
    expect(mark.predicate.sender).toBe('\u0301');
    expect(w.fire(U, 'new_message', ev({ sender: '\u00ad' })).map((f) => f.rule_id)).toEqual([]);
    expect(w.fire(U, 'new_message', ev({ sender: '\u0301' })).map((f) => f.rule_id)).toEqual([]);
  });
});
