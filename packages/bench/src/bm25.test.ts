import { describe, expect, it } from 'vitest';
import { Bm25Index, tokenize } from './bm25.js';

describe('tokenize', () => {
  it('lower-cases, keeps alphanumeric runs and drops stop words', () => {
    expect(tokenize("Caroline: I've been to the LGBTQ support group in 2023!")).toEqual(['caroline', 'lgbtq', 'support', 'group', '2023']);
  });
});

describe('Bm25Index', () => {
  const index = new Bm25Index();
  index.add('d1', 'The cat sat on the mat');
  index.add('d2', 'A dog chased the cat around the garden');
  index.add('d3', 'Stock markets fell sharply today');
  index.add('d4', 'The dog slept');

  it('ranks documents sharing rarer query terms first', () => {
    const hits = index.search('dog garden', 10);
    expect(hits.map((h) => h.id)).toEqual(['d2', 'd4']);
    expect(hits[0].score).toBeGreaterThan(hits[1].score);
  });

  it('matches the BM25 formula (k1 1.2, b 0.75, idf ln(1 + (N - df + 0.5) / (df + 0.5)))', () => {
    const [hit] = index.search('markets', 1);
    const lengths = [
      'The cat sat on the mat',
      'A dog chased the cat around the garden',
      'Stock markets fell sharply today',
      'The dog slept',
    ].map((t) => tokenize(t).length);
    expect(lengths).toEqual([3, 5, 5, 2]);
    const avg = lengths.reduce((a, b) => a + b, 0) / lengths.length;
    const idf = Math.log(1 + (4 - 1 + 0.5) / (1 + 0.5));
    const expected = (idf * 1 * 2.2) / (1 + 1.2 * (1 - 0.75 + (0.75 * 5) / avg));
    expect(hit.id).toBe('d3');
    expect(hit.score).toBeCloseTo(expected, 10);
  });

  it('breaks ties by insertion order, honours the limit, and ignores stop-word queries', () => {
    const ties = new Bm25Index();
    ties.add('a', 'apple pie');
    ties.add('b', 'apple pie');
    ties.add('c', 'apple pie');
    expect(ties.search('apple', 2).map((h) => h.id)).toEqual(['a', 'b']);
    expect(ties.search('the of and', 5)).toEqual([]);
    expect(new Bm25Index().search('anything', 5)).toEqual([]);
  });
});
