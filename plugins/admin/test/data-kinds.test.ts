import insight from '@memory-service/plugin-insight';
import review from '@memory-service/plugin-review';
import write from '@memory-service/plugin-write';
import { createTestServer } from '@memory-service/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { admin, ManualClock, primitives, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const HOUR = 3_600_000;

/** A server with the tiers whose tools own the later record kinds, every tool exposed. */
function startAll(clock = new ManualClock()): Promise<TestServer> {
  return createTestServer({ plugins: [primitives, write, review, insight, admin], expose: 'all', clock });
}

/** One record of every later kind in the scope, each through its own tool; `tag` makes them distinct. */
async function seed(user_id: string, tag: string) {
  const u = { user_id };
  await s.call('memory_counterfactual', { action: 'save', anchor: `move ${tag}`, premise: `if we had moved ${tag}`, projection: 'more sun', ...u });
  await s.call('memory_procedure', { action: 'save', name: `deploy ${tag}`, steps: ['build', 'ship'], description: 'ship it', trigger: 'release', ...u });
  await s.call('memory_procedure', { action: 'record', name: `deploy ${tag}`, outcome: 'success', note: 'smooth', ...u });
  await s.call('memory_scratchpad', { action: 'write', key: `draft-${tag}`, content: 'half a plan', ...u });
  await s.call('memory_stash', { action: 'push', name: `plan ${tag}`, note: 'later', ...u });
  await s.call('think', { text: `The ${tag} city is Lyon`, ...u });
  await s.call('memory_branch', { action: 'create', name: `what if ${tag}`, ...u });
  await s.call('memory_branch', { action: 'set', name: `what if ${tag}`, key: `pet-${tag}`, value: 'cat', ...u });
  await s.call('memory_reflect', { action: 'write', period_hours: 24, topic: tag, ...u });
  const rule = await s.call('memory_disclose', { action: 'add', name: `allergy ${tag}`, trigger_keywords: ['dinner'], content: 'Allergic to nuts', ...u });
  await s.call('memory_disclose', { action: 'disable', rule_id: rule.rule.rule_id, ...u });
  await s.call('memory_watch', { action: 'add', name: `big ${tag}`, trigger: 'message_received', predicate_json: { keywords: ['deadline'] }, action_kind: 'log', ...u });
  await s.call('memory_standing', { action: 'save', name: `important${tag}`, spec_json: { target: 'core', importance_min: 0.7, description: 'key facts' }, ...u });
  await s.call('memory_proposals', { action: 'propose', kind: 'core_write', key: `pet-${tag}`, value: 'cat', ...u });
}

/** A tool's answer without what differs between two scopes holding the same records (ids, scope, hit counts). */
function plain(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(plain);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => !['id', 'rule_id', 'proposal_id', 'layer', 'user_id', 'hits_24h', 'pad_count'].includes(k))
      .map(([k, x]) => [k, plain(x)]),
  );
}

/** Every later kind of the scope, listed through its own tool. */
async function lists(user_id: string) {
  const u = { user_id };
  return plain({
    counterfactuals: (await s.call('memory_counterfactual', { action: 'list', ...u })).counterfactuals,
    procedures: (await s.call('memory_procedure', { action: 'list', ...u })).procedures,
    stashes: (await s.call('memory_stash', { action: 'list', ...u })).stashes,
    branches: (await s.call('memory_branch', { action: 'list', ...u })).branches,
    reflections: (await s.call('memory_reflect', { action: 'list', ...u })).reflections,
    disclosure: (await s.call('memory_disclose', { action: 'list', ...u })).rules,
    watch: (await s.call('memory_watch', { action: 'list', ...u })).rules,
    standing: (await s.call('memory_standing', { action: 'list', ...u })).queries,
    proposals: (await s.call('memory_proposals', { action: 'list', ...u })).proposals,
  }) as Record<string, unknown[]>;
}

describe('memory_data: the later record kinds', () => {
  it('an export holding one of every kind, imported into another user_id, lists the same records through their own tools', async () => {
    const clock = new ManualClock();
    s = await startAll(clock);
    await seed('default', 'a');
    const source = await lists('default');
    for (const [kind, list] of Object.entries(source)) expect(list, kind).toHaveLength(1);
    const exp = await s.call('memory_data', { action: 'export' });
    expect(exp.counts).toMatchObject({ counterfactuals: 1, procedures: 1, stashes: 1, branches: 1, reflections: 1, disclosure_rules: 1, watch_rules: 1, standing_queries: 1, proposals: 1 });
    clock.advance(HOUR);
    const imp = await s.call('memory_data', { action: 'import', data: exp.data, user_id: 'bob' });
    expect(imp.imported).toMatchObject(exp.counts);
    expect(await lists('bob')).toEqual(source);
    // The imported records work: the disclosure rule stays disabled, the branch merges its addition, the proposal is decided.
    const bobBranch = await s.call('memory_branch', { action: 'diff', name: 'what if a', user_id: 'bob' });
    expect(bobBranch.diff.added).toEqual([expect.objectContaining({ key: 'pet-a', value: 'cat' })]);
    const prop = (await s.call('memory_proposals', { action: 'list', user_id: 'bob' })).proposals[0];
    expect((await s.call('memory_proposals', { action: 'decide', proposal_id: prop.proposal_id, approve: true, user_id: 'bob' })).proposal.status).toBe('applied');
    // The source user_id and the agent layer are untouched.
    expect(await lists('default')).toEqual(source);
    expect((await s.call('memory_data', { action: 'export', layer: 'agent' })).counts).toMatchObject({ counterfactuals: 0, procedures: 0, standing_queries: 0 });
  });

  it('merge leaves what the target holds and adds nothing twice; replace clears the target first', async () => {
    s = await startAll();
    await seed('default', 'a');
    const data = (await s.call('memory_data', { action: 'export' })).data;
    await seed('bob', 'b');
    const merged = await s.call('memory_data', { action: 'import', data, user_id: 'bob' });
    expect(merged.imported).toMatchObject({ counterfactuals: 1, procedures: 1, standing_queries: 1, proposals: 1 });
    const again = await s.call('memory_data', { action: 'import', data, user_id: 'bob' });
    expect(again.imported).toMatchObject({ counterfactuals: 0, procedures: 0, stashes: 0, branches: 0, reflections: 0, disclosure_rules: 0, watch_rules: 0, standing_queries: 0, proposals: 0 });
    expect(again.skipped).toMatchObject({ counterfactuals: 1, procedures: 1, stashes: 1, branches: 1, reflections: 1, disclosure_rules: 1, watch_rules: 1, standing_queries: 1, proposals: 1 });
    expect((await lists('bob')).procedures).toHaveLength(2);
    const replaced = await s.call('memory_data', { action: 'import', data, user_id: 'bob', mode: 'replace' });
    expect(replaced.cleared).toMatchObject({ counterfactuals: 2, procedures: 2, stashes: 2, branches: 2, standing_queries: 2, proposals: 2 });
    expect(replaced.previous_export).toEqual(expect.any(String));
    expect(await lists('bob')).toEqual(await lists('default'));
  });

  it('standing queries an older build exported under names with _ or - import renamed (letters and digits only), each rename in the answer', async () => {
    s = await startAll();
    await s.call('memory_remember', { key: 'pref:editor', value: 'Uses Vim', user_id: 'bob' });
    await s.call('memory_standing', { action: 'save', name: 'ab', spec_json: { key_like: 'other' }, user_id: 'bob' });
    const data = (await s.call('memory_data', { action: 'export' })).data as any;
    const q = (name: string, key_like: string) => ({ name, description: 'older', filters: { target: 'core', key_like }, created: '2025-01-01T00:00:00.000Z', updated: '2025-01-01T00:00:00.000Z' });
    data.standing_queries = [q('My_Prefs-1', 'pref:'), q('a-b', 'a')];
    const r = await s.call('memory_data', { action: 'import', data, user_id: 'bob' });
    expect(r.renamed_standing_queries).toEqual([
      { from: 'My_Prefs-1', to: 'MyPrefs1' },
      { from: 'a-b', to: 'ab1' },
    ]);
    expect(r.imported.standing_queries).toBe(2);
    const listed = (await s.call('memory_standing', { action: 'list', user_id: 'bob' })).queries.map((x: { name: string }) => x.name);
    expect(listed).toEqual(['ab', 'ab1', 'MyPrefs1']);
    const run = await s.call('memory_standing', { action: 'run', name: 'MyPrefs1', user_id: 'bob' });
    expect(run.facts.map((f: { value: string }) => f.value)).toEqual(['Uses Vim']);
    // Imported again: each finds itself under its new name, nothing is added.
    const again = await s.call('memory_data', { action: 'import', data, user_id: 'bob' });
    expect(again.skipped.standing_queries).toBe(2);
    expect((await s.call('memory_standing', { action: 'list', user_id: 'bob' })).queries).toHaveLength(3);
  });

  it('a bad record of a later kind is an error naming its path, and nothing is written', async () => {
    s = await startAll();
    await seed('default', 'a');
    const data = (await s.call('memory_data', { action: 'export' })).data as any;
    const cases: [(d: any) => void, string][] = [
      [(d) => (d.watch_rules[0].trigger = 'never'), 'data.watch_rules[0].trigger'],
      [(d) => (d.procedures[0].steps = 'build'), 'data.procedures[0].steps'],
      [(d) => (d.standing_queries[0].filters = { nope: true }), 'data.standing_queries[0].filters'],
      [(d) => (d.proposals[0].payload.key = ''), 'data.proposals[0].payload.key'],
    ];
    for (const [mutate, field] of cases) {
      const d = JSON.parse(JSON.stringify(data));
      mutate(d);
      for (const mode of ['merge', 'replace']) expect((await toolError(s.call('memory_data', { action: 'import', data: d, user_id: 'bob', mode }))).field, field).toBe(field);
    }
    const empty = await lists('bob');
    for (const [kind, list] of Object.entries(empty)) expect(list, kind).toEqual([]);
  });
});

describe('memory_data: rule names through the name rule', () => {
  it('merge skips a disclosure rule whose name the target holds in the other canonical form, and imports it in NFC', async () => {
    s = await startAll();
    await s.call('memory_disclose', { action: 'add', name: 'Caf\u00e9', trigger_keywords: ['coffee'], content: 'Decaf only', user_id: 'bob' });
    const data = (await s.call('memory_data', { action: 'export', user_id: 'bob' })).data as any;
    data.disclosure_rules[0].name = 'Cafe\u0301';
    const merged = await s.call('memory_data', { action: 'import', data, user_id: 'bob' });
    expect([merged.imported.disclosure_rules, merged.skipped.disclosure_rules]).toEqual([0, 1]);
    const fresh = await s.call('memory_data', { action: 'import', data, user_id: 'carol' });
    expect(fresh.imported.disclosure_rules).toBe(1);
    expect((await s.call('memory_disclose', { action: 'list', user_id: 'carol' })).rules.map((r: { name: string }) => r.name)).toEqual(['Caf\u00e9']);
  });

  it('a watch or disclosure rule name holding a character that shows nothing is an error naming its path, and nothing is written', async () => {
    s = await startAll();
    await seed('default', 'a');
    const data = (await s.call('memory_data', { action: 'export' })).data as any;
    const cases: [(d: any) => void, string, string][] = [
      [(d) => (d.watch_rules[0].name = 'big\u3164'), 'data.watch_rules[0].name', 'U+3164 at index 3'],
      [(d) => (d.disclosure_rules[0].name = 'allergy\u200b'), 'data.disclosure_rules[0].name', 'U+200B at index 7'],
    ];
    for (const [mutate, field, what] of cases) {
      const d = JSON.parse(JSON.stringify(data));
      mutate(d);
      const e = await toolError(s.call('memory_data', { action: 'import', data: d, user_id: 'bob' }));
      expect(e.field).toBe(field);
      expect(e.message).toContain(what);
    }
    const empty = await lists('bob');
    for (const [kind, list] of Object.entries(empty)) expect(list, kind).toEqual([]);
  });
});

describe('memory_lucidity_purge: the later record kinds', () => {
  it('purges the records of every later kind made in the window, keeps older ones and other user_ids', async () => {
    const clock = new ManualClock();
    s = await startAll(clock);
    await seed('default', 'old');
    await seed('bob', 'bob');
    clock.advance(5 * HOUR);
    await seed('default', 'fresh');
    const before = await lists('default');
    for (const [kind, list] of Object.entries(before)) expect(list, kind).toHaveLength(2);
    const r = await s.call('memory_lucidity_purge', { hours: 2, confirm: true });
    expect(r).toMatchObject({
      deleted_counterfactuals: 1,
      deleted_procedures: 1,
      deleted_stashes: 1,
      deleted_branches: 1,
      deleted_reflections: 1,
      deleted_disclosure_rules: 1,
      deleted_watch_rules: 1,
      deleted_standing_queries: 1,
      deleted_proposals: 1,
    });
    const after = await lists('default');
    for (const [kind, list] of Object.entries(after)) {
      expect(list, kind).toHaveLength(1);
      expect(JSON.stringify(list), kind).not.toMatch(/fresh/);
    }
    for (const [kind, list] of Object.entries(await lists('bob'))) expect(list, kind).toHaveLength(1);
  });
});
