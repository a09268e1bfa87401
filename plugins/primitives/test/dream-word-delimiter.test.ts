import { afterEach, expect, it } from 'vitest';
import { dreamIds, thinkApart, type TestServer } from './helpers.js';

/**
 * dream finds an identifier, a number with a unit, an emoji, C++ and a name that is also a stop
 * word by another spelling than the one stored (stores retrieval/word-delimiter.ts), and fuzzy
 * forget with that spelling deletes what dream finds.
 */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const MEMORIES = [
  'The retry logic lives in fetchUserProfile, next to the cache.',
  'p95 latency of the search endpoint is 250ms.',
  'Team lunch vote result: 🍕 beat the salad by two votes.',
  'Maya writes the game engine in C++ these days.',
  'Will is the new product manager for the billing team.',
  'Die Kündigungsfrist für die Wohnung ist drei Monate.',
  'I will call the plumber about the sink tomorrow.',
  'The user profile page needs a new avatar.',
  'We ran 250 requests against the staging box.',
];

/** Each memory's ids (episode, fact, nodes: what think wrote besides the L1 turn), in MEMORIES' order. */
async function thinkAll(): Promise<string[][]> {
  const { s: server, results } = await thinkApart(MEMORIES);
  s = server;
  return results.map((r) => r.actions.filter((a: { store: string }) => a.store !== 'l1').map((a: { id: string }) => a.id));
}

it('dream finds each memory first by its other spelling', async () => {
  const ids = await thinkAll();
  const cases: [string, number][] = [
    ['fetch user profile', 0],
    ['fetch_user_profile', 0],
    ['250 ms', 1],
    ['🍕', 2],
    ['C++', 3],
    ['Will', 4],
    ['who is Will', 4],
    ['Kuendigungsfrist', 5],
  ];
  for (const [query, i] of cases) {
    const hits = await dreamIds(s, { query, layer: 'user' });
    expect(hits.length, query).toBeGreaterThan(0);
    expect(ids[i], `${query}: first hit ${hits[0]}`).toContain(hits[0]);
  }
  // "k8s" meets no 8 and "will" written as a verb is no name: no hit at all.
  expect(await dreamIds(s, { query: 'k8s', layer: 'user' })).toEqual([]);
  expect((await dreamIds(s, { query: 'Will', layer: 'user' })).some((id) => ids[6]!.includes(id))).toBe(false);
});

it('fuzzy forget with the other spelling deletes what dream finds for it', async () => {
  const ids = await thinkAll();
  for (const [key, i] of [['fetch user profile', 0], ['250 ms', 1], ['🍕', 2], ['Kuendigungsfrist', 5]] as const) {
    expect((await dreamIds(s, { query: key, layer: 'user' }))[0], key).toSatisfy((id: string) => ids[i]!.includes(id));
    const r = await s.call('forget', { key, scope: 'fuzzy', layer: 'user' });
    expect(r.deleted_l3, key).toBeGreaterThanOrEqual(1);
    expect((await dreamIds(s, { query: key, layer: 'user' })).some((id) => ids[i]!.includes(id)), key).toBe(false);
  }
  // The others stay.
  expect((await dreamIds(s, { query: 'avatar', layer: 'user' })).length).toBeGreaterThan(0);
  expect((await dreamIds(s, { query: 'staging', layer: 'user' })).length).toBeGreaterThan(0);
});
