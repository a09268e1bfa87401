import { afterEach, expect, it } from 'vitest';
import { count, dreamIds, snapshot, thinkApart, type TestServer } from './helpers.js';

/**
 * dream tolerates a slip of the keyboard: a query word no memory of the scope holds is searched as
 * the scope's words one or two edits away (stores retrieval/fuzzy-terms.ts), and a query word with
 * ä, ö or ü also finds the ae, oe, ue spelling. A query whose words all exist ranks as before, and
 * forget never deletes by a near word: typo tolerance is for recall only.
 */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const MEMORIES = [
  'Alice likes coffee with oat milk.',
  'The office coffee machine is broken again.',
  'Alicia plays tennis on Sundays.',
  'Bob likes green tea in the afternoon.',
  'Die Kuendigung der Wohnung ist abgeschickt.',
  'The restaurant on Main Street closes at ten.',
];

/** Each memory's ids (episode, fact, nodes: what think wrote besides the L1 turn), in MEMORIES' order. */
async function thinkAll(): Promise<string[][]> {
  const { s: server, results } = await thinkApart(MEMORIES);
  s = server;
  return results.map((r) => r.actions.filter((a: { store: string }) => a.store !== 'l1').map((a: { id: string }) => a.id));
}

it('dream "Alcie cofee" finds "Alice likes coffee" first', async () => {
  const ids = await thinkAll();
  for (const query of ['Alcie cofee', 'alice cofee', 'resturant', 'Does Alcie like coffee?']) {
    const hits = await dreamIds(s, { query, layer: 'user' });
    const want = query === 'resturant' ? ids[5]! : ids[0]!;
    expect(hits.length, query).toBeGreaterThan(0);
    expect(want, `${query}: first hit ${hits[0]}`).toContain(hits[0]);
  }
  // Two edits are too many for a word of five letters, and a word of three gets none.
  expect(await dreamIds(s, { query: 'Alxyz', layer: 'user' })).toEqual([]);
  expect(await dreamIds(s, { query: 'tae', layer: 'user' })).toEqual([]);
});

it('dream "Kündigung" finds the note written "Kuendigung"', async () => {
  const ids = await thinkAll();
  for (const query of ['Kündigung', 'KÜNDIGUNG der Wohnung', 'Kuendigung']) {
    const hits = await dreamIds(s, { query, layer: 'user' });
    expect(hits.length, query).toBeGreaterThan(0);
    expect(ids[4], `${query}: first hit ${hits[0]}`).toContain(hits[0]);
  }
  // What dream finds for a word, fuzzy forget with it deletes.
  const r = await s.call('forget', { key: 'Kündigung', scope: 'fuzzy', layer: 'user' });
  expect(r.deleted_l3).toBe(1);
  expect((await dreamIds(s, { query: 'Kuendigung', layer: 'user' })).some((id) => ids[4]!.includes(id))).toBe(false);
  expect(count(s, 'episodes', { layer: 'user' })).toBe(MEMORIES.length - 1);
});

it('forget fuzzy with a misspelt word deletes nothing, while dream finds the memory by it', async () => {
  const ids = await thinkAll();
  for (const key of ['cofee', 'Alcie', 'resturant']) {
    expect((await dreamIds(s, { query: key, layer: 'user' })).length, key).toBeGreaterThan(0);
    // The dream query just recorded names the word itself: forget takes it, as any recorded query naming the pattern.
    const { recall_events: _, ...before } = snapshot(s);
    const r = await s.call('forget', { key, scope: 'fuzzy', layer: 'user' });
    expect([r.deleted_l3, r.deleted_l4, r.deleted_l1, r.deleted_graph, r.deleted_wiki, r.deleted_timeline], key).toEqual([0, 0, 0, 0, 0, 0]);
    const { recall_events: __, ...after } = snapshot(s);
    expect(after, key).toEqual(before);
  }
  expect(ids[0]).toContain((await dreamIds(s, { query: 'Alice coffee', layer: 'user' }))[0]);
  expect(count(s, 'episodes', { layer: 'user' })).toBe(MEMORIES.length);
});

/** Hits (id, score) of queries whose words all exist, as ranked before typo tolerance and the query-side umlaut spelling. */
const UNCHANGED: [string, [string, number][]][] = [
  ['Alice coffee', [['ep_1', 0.939266], ['node_1', 0.307641], ['ep_2', 0.294953]]],
  ['who likes coffee or tea?', [['ep_4', 0.939631], ['ep_1', 0.795228], ['node_1', 0.319069], ['ep_2', 0.306181]]],
  ['office machine broken', [['node_1', 0.951604], ['ep_2', 0.924703]]],
  ['tennis on Sundays', [['ep_3', 0.944509]]],
  ['Kuendigung Wohnung', [['ep_5', 0.944753]]],
  ['restaurant Main Street', [['ep_6', 0.947376]]],
];

it('a query whose words all exist ranks exactly as before', async () => {
  await thinkAll();
  for (const [query, want] of UNCHANGED) {
    const r = await s.call('dream', { query, layer: 'user', hits: true });
    expect(r.hits.map((h: { id: string; score: number }) => [h.id, h.score]), query).toEqual(want);
  }
});
