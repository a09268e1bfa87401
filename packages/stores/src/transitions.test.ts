import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Consolidator } from './consolidation.js';
import { A, U, makeEnv, thrownBy as err, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

describe('TransitionStore and the Consolidator', () => {
  it('records one transition per promoted episode, with its id in the result', () => {
    const ep = env.stores.episodes.add(U, { summary: 'The deploy window is Tuesday morning', importance: 0.9 });
    env.stores.episodes.add(U, { summary: 'minor note', importance: 0.3 });
    const run = new Consolidator(env.stores, env.clock).consolidate(U);
    expect(run.consolidated).toHaveLength(1);
    const c = run.consolidated[0]!;
    const t = env.stores.transitions.get(U, c.transition_id)!;
    expect(t).toMatchObject({ episode_id: ep.id, entry_id: c.entry_id, key: c.key, value: ep.summary, layer: 'user', user_id: 'default', reverted: null });
    expect(t.ts).toBe(run.ts);
    expect(env.stores.transitions.get(A, c.transition_id)).toBeNull();
  });

  it('revert deletes the promoted fact, keeps the episode, and the next consolidation does not promote it again', () => {
    const ep = env.stores.episodes.add(U, { summary: 'Always test the backups on Fridays', importance: 0.9 });
    const consolidator = new Consolidator(env.stores, env.clock);
    const c = consolidator.consolidate(U).consolidated[0]!;
    const r = env.stores.transitions.revert(U, c.transition_id);
    expect(r.deleted_entry_id).toBe(c.entry_id);
    expect(r.transition.reverted).not.toBeNull();
    expect(env.stores.facts.get(U, c.key)).toBeNull();
    expect(env.stores.episodes.get(U, ep.id)).not.toBeNull();
    expect(consolidator.consolidate(U).consolidated).toEqual([]);
    expect(env.stores.facts.count(U)).toBe(0);
  });

  it('a second revert, a changed fact, an unknown or another scope\'s id are errors naming transition_id', () => {
    env.stores.episodes.add(U, { summary: 'Rotate the keys every quarter', importance: 0.9 });
    env.stores.episodes.add(U, { summary: 'Ship the release notes with every tag', importance: 0.9 });
    const [a, b] = new Consolidator(env.stores, env.clock).consolidate(U).consolidated;
    env.stores.transitions.revert(U, a!.transition_id);
    const again = err(() => env.stores.transitions.revert(U, a!.transition_id));
    expect(again).toMatchObject({ code: 'STORES_ERR_CONFLICT', field: 'transition_id' });
    expect(again.message).toContain('already reverted');
    env.stores.facts.upsert(U, { key: b!.key, value: 'edited by hand' });
    const changed = err(() => env.stores.transitions.revert(U, b!.transition_id));
    expect(changed.field).toBe('transition_id');
    expect(changed.message).toContain('no longer holds');
    expect(env.stores.facts.get(U, b!.key)?.value).toBe('edited by hand');
    expect(env.stores.transitions.get(U, b!.transition_id)?.reverted).toBeNull();
    expect(err(() => env.stores.transitions.revert(U, 'tr_999')).field).toBe('transition_id');
    expect(err(() => env.stores.transitions.revert(A, b!.transition_id)).code).toBe('STORES_ERR_NOT_FOUND');
  });
});

describe('TransitionStore: the window purge and forget', () => {
  it('deleteSince takes the promotions of the window but keeps a reverted one without its value; forgetEntries blanks the value', () => {
    const s = env.stores.transitions;
    const f1 = env.stores.facts.upsert(U, { key: 'a', value: 'old value' });
    s.record(U, { episode_id: 'ep_1', entry_id: f1.entry_id, key: 'a', value: 'old value' });
    const since = env.clock.now();
    env.clock.advance(1000);
    const f2 = env.stores.facts.upsert(U, { key: 'b', value: 'window value' });
    const t2 = s.record(U, { episode_id: 'ep_2', entry_id: f2.entry_id, key: 'b', value: 'window value' });
    s.revert(U, t2.id);
    const f3 = env.stores.facts.upsert(U, { key: 'c', value: 'another' });
    s.record(U, { episode_id: 'ep_3', entry_id: f3.entry_id, key: 'c', value: 'another' });
    expect(s.deleteSince(U, new Date(since + 1).toISOString())).toBe(1);
    expect(s.list(U).map((t) => [t.episode_id, t.value, t.reverted !== null])).toEqual([
      ['ep_2', '', true],
      ['ep_1', 'old value', false],
    ]);
    expect(s.wasReverted(U, 'ep_2')).toBe(true);
    expect(s.forgetEntries(U, [f1.entry_id])).toBe(1);
    expect(s.list(U).map((t) => t.value)).toEqual(['', '']);
    expect(s.forgetEntries(A, [f1.entry_id])).toBe(0);
  });
});
