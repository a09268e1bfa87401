import type { Scope, Stores } from '@memory-service/stores';
import { afterEach, describe, expect, it } from 'vitest';
import { actionsIn, ManualClock, start, type TestServer } from './helpers.js';

/** forget and the record kinds beside the memory stores: counterfactuals, procedures, stashes, branches, ... */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const HOUR = 3_600_000;
const U: Scope = { layer: 'user', user_id: 'default' };
const BOB: Scope = { layer: 'user', user_id: 'bob' };
const storesOf = (t: TestServer) => t.kernel.container.resolve<Stores>('stores');

/** One record of every later kind in the scope; `tag` makes them distinct. */
function seed(st: Stores, scope: Scope, tag: string) {
  st.counterfactuals.save(scope, { anchor: `move ${tag}`, premise: `if ${tag}`, projection: 'sun' });
  st.procedures.save(scope, `deploy ${tag}`, { steps: ['build'] });
  st.scratchpad.write(scope, `pad-${tag}`, 'x');
  st.stashes.push(scope, `stash ${tag}`);
  st.branches.create(scope, `branch ${tag}`);
  st.reflections.write(scope, { topic: tag });
  st.disclosure.add(scope, { name: `rule ${tag}`, trigger_keywords: ['x'], content: 'y' });
  st.watchRules.add(scope, { name: `watch ${tag}`, trigger: 'remember', predicate: {}, action: 'log' });
  st.standing.save(scope, `query${tag}`, { target: 'core' });
  st.proposals.propose(scope, { kind: 'core_write', key: `k-${tag}`, value: `v ${tag}` });
}

/** The names (or anchors, topics, keys) of every later kind of the scope, per kind. */
function names(st: Stores, scope: Scope) {
  return {
    counterfactuals: st.counterfactuals.all(scope).map((c) => c.anchor),
    procedures: st.procedures.all(scope).map((p) => p.name),
    stashes: st.stashes.all(scope).map((x) => x.name),
    branches: st.branches.all(scope).map((b) => b.name),
    reflections: st.reflections.all(scope).map((r) => r.topic),
    disclosure_rules: st.disclosure.list(scope).map((r) => r.name),
    watch_rules: st.watchRules.list(scope).map((r) => r.name),
    standing_queries: st.standing.list(scope).map((q) => q.name),
    proposals: st.proposals.allPending(scope).map((p) => (p.payload.kind === 'core_write' ? p.payload.key : '')),
  };
}

describe('forget recent and the later record kinds', () => {
  it('deletes the records of every later kind created in the window, keeps older ones and other user_ids', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const st = storesOf(s);
    seed(st, U, 'old');
    seed(st, BOB, 'bob');
    clock.advance(2 * HOUR);
    seed(st, U, 'fresh');
    const r = await s.call('forget', { key: '', scope: 'recent', minutes: 60 });
    expect(r.deleted_records).toEqual({
      counterfactuals: 1,
      procedures: 1,
      stashes: 1,
      branches: 1,
      reflections: 1,
      disclosure_rules: 1,
      watch_rules: 1,
      standing_queries: 1,
      proposals: 1,
      transitions: 0,
    });
    // The spec's counts stay as they were.
    expect(r).toMatchObject({ scope: 'recent', deleted_l4: 0, deleted_l3: 0, deleted_graph: 0, archived: 0 });
    expect(names(st, U)).toEqual({
      counterfactuals: ['move old'],
      procedures: ['deploy-old'],
      stashes: ['stash-old'],
      branches: ['branch-old'],
      reflections: ['old'],
      disclosure_rules: ['rule old'],
      watch_rules: ['watch old'],
      standing_queries: ['queryold'],
      proposals: ['k-old'],
    });
    expect(Object.values(names(st, BOB)).every((l) => l.length === 1)).toBe(true);
  });
});

describe('forget exact and fuzzy leave no dangling reference in the later kinds', () => {
  it('exact: a branch copy, a pending proposal, a reflection row and a promotion of the fact go; another user_id keeps its own', async () => {
    s = await start();
    const st = storesOf(s);
    const value = 'My birthday is March 3';
    const think = await s.call('think', { text: value });
    const key = actionsIn(think, 'l4')[0]!.key!;
    const fact = st.facts.get(U, key)!;
    st.facts.upsert(BOB, { key, value });
    for (const scope of [U, BOB]) {
      st.branches.create(scope, 'copy');
      st.proposals.propose(scope, { kind: 'core_write', key: 'again', value });
    }
    st.proposals.propose(U, { kind: 'core_write', key: 'other', value: 'unrelated' });
    st.ctx.bumpAccess('facts', 'fact', [fact.entry_id]);
    st.reflections.write(U, {});
    st.transitions.record(U, { episode_id: 'ep_99', entry_id: fact.entry_id, key, value });
    const r = await s.call('forget', { key, shadow_bin: false });
    expect(r.deleted_l4).toBe(1);
    expect(r.cleaned_records).toEqual({ branch_entries: 1, proposals: 1, reflections: 1, transitions: 1 });
    expect(st.branches.info(U, 'copy')?.facts).toBe(0);
    expect(st.branches.diff(U, 'copy')).toMatchObject({ added: [], changed: [], removed: [], conflicts: [] });
    expect(st.proposals.allPending(U).map((p) => (p.payload.kind === 'core_write' ? p.payload.key : ''))).toEqual(['other']);
    expect(JSON.stringify(st.reflections.list(U))).not.toContain('birthday');
    expect(st.transitions.list(U)[0]!.value).toBe('');
    // bob's copies are his own.
    expect(st.branches.info(BOB, 'copy')?.facts).toBe(1);
    expect(st.proposals.allPending(BOB)).toHaveLength(1);
  });

  it("fuzzy: the branches' copies and the pending proposals holding the pattern go; a branch's own edit stays as an addition", async () => {
    s = await start();
    const st = storesOf(s);
    st.facts.upsert(U, { key: 'hobby', value: 'I collect vintage typewriters' });
    st.facts.upsert(U, { key: 'food', value: 'pasta' });
    st.branches.create(U, 'plan');
    st.branches.set(U, 'plan', 'hobby', 'I restore clocks');
    st.proposals.propose(U, { kind: 'wiki_write', title: 'Collection', content: 'Every typewriters model I own' });
    const r = await s.call('forget', { key: 'typewriters', scope: 'fuzzy' });
    expect(r.deleted_l4).toBe(1);
    expect(r.cleaned_records).toMatchObject({ branch_entries: 1, proposals: 1 });
    expect(st.branches.diff(U, 'plan')).toMatchObject({ added: [{ key: 'hobby', value: 'I restore clocks' }], changed: [], conflicts: [] });
    expect(st.branches.info(U, 'plan')?.facts).toBe(2);
    expect(st.proposals.allPending(U)).toEqual([]);
  });
});
