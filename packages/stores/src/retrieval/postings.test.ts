import { describe, expect, it } from 'vitest';
import { PostingCursor, PostingList, SKIP_EVERY, postingSize, varintSize } from './postings.js';

/** Deterministic postings with gaps from 1 to over 2^21 and frequencies from 1 to over 2^14. */
function sample(count: number): { slot: number; q: number }[] {
  const out: { slot: number; q: number }[] = [];
  let slot = 0;
  let seed = 11;
  for (let i = 0; i < count; i++) {
    seed = (seed * 48271) % 2147483647;
    slot += 1 + (i % 97 === 0 ? seed % 3_000_000 : seed % 40);
    out.push({ slot, q: i % 50 === 0 ? 20_000 + (seed % 100) : 1 + (seed % 30) });
  }
  return out;
}

const read = (list: PostingList, from: number) => {
  const c = PostingCursor.over(list, from);
  const got: { slot: number; q: number }[] = [];
  while (c.next()) got.push({ slot: c.slot, q: c.q });
  return got;
};

describe('PostingList', () => {
  it('reads back every posting from any starting index, across skip boundaries', () => {
    const postings = sample(3 * SKIP_EVERY + 5);
    const list = new PostingList();
    for (const p of postings) list.append(p.slot, p.q);
    expect(list.n).toBe(postings.length);
    for (const from of [-5, 0, 1, SKIP_EVERY - 1, SKIP_EVERY, SKIP_EVERY + 1, 2 * SKIP_EVERY + 7, postings.length - 1, postings.length, postings.length + 3]) {
      expect(read(list, from)).toEqual(postings.slice(Math.max(0, from)));
    }
  });

  it('uses exactly the bytes postingSize predicts, so a build can allocate once', () => {
    const postings = sample(500);
    let bytes = 0;
    let last = 0;
    for (const p of postings) {
      bytes += postingSize(p.slot, last, p.q);
      last = p.slot;
    }
    const list = new PostingList(bytes, postings.length);
    const buffer = list.bytes;
    const skips = list.skips;
    for (const p of postings) list.append(p.slot, p.q);
    expect(list.len).toBe(bytes);
    expect(list.bytes).toBe(buffer);
    expect(list.skips).toBe(skips);
    expect([varintSize(0), varintSize(127), varintSize(128), varintSize(2 ** 21), varintSize(2 ** 31)]).toEqual([1, 1, 2, 4, 5]);
  });

  it('refuses a slot that does not grow', () => {
    const list = new PostingList();
    list.append(5, 1);
    expect(() => list.append(5, 1)).toThrow(/must grow/);
  });
});
