import { afterEach, describe, expect, it } from 'vitest';
import { actionsIn, count, dreamIds, ManualClock, start, type TestServer } from './helpers.js';

/**
 * think makes a relation node from a phrase "X is Y" of a thought (routing rule 5); the node words
 * it differently ("my name is Alice" from "Remember: my name is Alice"). Forgetting the thought's
 * fact or episode, by key or by pattern, removes that node too.
 */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});
const HOUR = 3600_000;

async function nodeOf(text: string, layer = 'user', user_id = 'default'): Promise<string> {
  const r = await s.call('think', { text, layer, user_id });
  const [node] = actionsIn(r, 'graph');
  expect(node, `"${text}" should make a relation node`).toBeDefined();
  return node!.id;
}

describe('forget fuzzy removes the relation node of a thought it deletes', () => {
  it('of an L4 fact, though the node does not hold the pattern', async () => {
    s = await start();
    await nodeOf('Remember: my name is Alice');
    expect(count(s, 'facts')).toBe(1);
    const r = await s.call('forget', { key: 'remember', scope: 'fuzzy', layer: 'user' });
    expect(r).toMatchObject({ deleted_l4: 1, deleted_graph: 1, archived: 2 });
    expect(count(s, 'graph_nodes')).toBe(0);
    expect(await dreamIds(s, { query: 'Alice', layer: 'user' })).toEqual([]);
  });

  it('of an L3 episode, without the Shadow Bin', async () => {
    s = await start();
    await nodeOf('Honestly, never forget that Paris is the capital of my heart');
    expect(count(s, 'episodes')).toBe(1);
    const r = await s.call('forget', { key: 'honestly', scope: 'fuzzy', layer: 'user', shadow_bin: false });
    expect(r).toMatchObject({ deleted_l3: 1, deleted_graph: 1, archived: 0 });
    expect(count(s, 'graph_nodes')).toBe(0);
    expect(count(s, 'shadow_bin')).toBe(0);
    expect(await dreamIds(s, { query: 'Paris capital', layer: 'user' })).toEqual([]);
  });

  it('and only that node: the same relation of another thought, layer or user stays', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    await nodeOf('Honestly, never forget that Paris is the capital of my heart');
    clock.advance(HOUR);
    await nodeOf('Paris is the capital of my heart');
    await nodeOf('Honestly, never forget that Paris is the capital of my heart', 'agent');
    await nodeOf('Honestly, never forget that Paris is the capital of my heart', 'user', 'bob');
    const r = await s.call('forget', { key: 'honestly', scope: 'fuzzy', layer: 'user' });
    expect(r).toMatchObject({ deleted_l3: 1, deleted_graph: 1 });
    expect(count(s, 'graph_nodes', { layer: 'user' })).toBe(1);
    expect(count(s, 'graph_nodes', { layer: 'agent' })).toBe(1);
    expect(count(s, 'graph_nodes', { layer: 'user', user_id: 'bob' })).toBe(1);
  });
});

describe('forget exact removes the relation node of an episode it deletes', () => {
  it('when the episode carries the fact value and made a node of its own', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const r = await s.call('think', { text: 'IMPORTANT: my cat is named Whiskers!', layer: 'user' });
    const key = actionsIn(r, 'l4')[0]!.key!;
    clock.advance(HOUR);
    const ep = await s.call('think', { text: 'The vet said: IMPORTANT: my cat is named Whiskers! The clinic is closed on Sundays.', layer: 'user' });
    expect(actionsIn(ep, 'l3')).toHaveLength(1);
    expect(actionsIn(ep, 'graph')).toHaveLength(1);
    expect(count(s, 'graph_nodes')).toBe(2);
    const out = await s.call('forget', { key, layer: 'user' });
    expect(out).toMatchObject({ deleted_l4: 1, deleted_l3: 1, deleted_graph: 2 });
    expect(count(s, 'graph_nodes')).toBe(0);
  });
});
