import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { U, makeEnv, type Env } from '../test-helpers.js';
import { rankOrder, ranksAbove } from './rank.js';
import { TopK } from './top-k.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

/** `n` episodes with the same text, importance and time: every search for it ties them all. */
function twins(n: number): number[] {
  const rows: number[] = [];
  for (let i = 0; i < n; i++) rows.push(Number(env.stores.episodes.add(U, { summary: 'The lighthouse keeper polished the brass lamp.', importance: 0.5 }).id.slice(3)));
  return rows;
}

const ids = (hits: readonly { id: string }[]): string[] => hits.map((h) => h.id);

describe('rankOrder', () => {
  it('puts the higher score first, then the earlier source, then the newer row', () => {
    expect(rankOrder(2, 3, 1, 1, 0, 9)).toBeLessThan(0);
    expect(rankOrder(1, 0, 9, 2, 3, 1)).toBeGreaterThan(0);
    expect(rankOrder(1, 0, 1, 1, 1, 9)).toBeLessThan(0);
    expect(rankOrder(1, 2, 7, 1, 2, 5)).toBeLessThan(0);
    expect(rankOrder(1, 2, 5, 1, 2, 7)).toBeGreaterThan(0);
    expect(rankOrder(1, 2, 5, 1, 2, 5)).toBe(0);
    expect(ranksAbove(1, 8, 1, 3)).toBe(true);
    expect(ranksAbove(1, 3, 1, 8)).toBe(false);
  });

  it('orders the entries TopK keeps by it, and cuts a tie at the older rows', () => {
    const heap = new TopK(3);
    for (const [row, score] of [
      [4, 1],
      [9, 1],
      [2, 3],
      [7, 1],
      [1, 1],
      [8, 0.5],
    ] as const)
      heap.offer(row, score, 0);
    expect(heap.sorted().map((e) => e.row)).toEqual([2, 9, 7]);
  });
});

describe('ties in retrieval', () => {
  it('ranks tied records newest first, in the pool as in the ranking: a smaller limit is the first hits of a larger', () => {
    const rows = twins(30);
    const r = env.stores.retrieval;
    const all = r.search(U, 'lighthouse brass', { limit: 30 });
    expect(ids(all)).toEqual([...rows].reverse().map((n) => `ep_${n}`));
    // Limit 3 takes a pool of 10, limit 10 one of 15: both cut inside the tie.
    for (const limit of [1, 3, 10, 12, 24]) expect(ids(r.search(U, 'lighthouse brass', { limit }))).toEqual(ids(all).slice(0, limit));
  });

  it('keeps the order when records changed in an open transaction are scored beside the index', () => {
    twins(12);
    const r = env.stores.retrieval;
    r.search(U, 'lighthouse brass');
    env.stores.ctx.tx(() => {
      const more = twins(12);
      const all = r.search(U, 'lighthouse brass', { limit: 24 });
      expect(ids(all).slice(0, 12)).toEqual([...more].reverse().map((n) => `ep_${n}`));
      for (const limit of [3, 10, 16]) expect(ids(r.search(U, 'lighthouse brass', { limit }))).toEqual(ids(all).slice(0, limit));
    });
  });
});
