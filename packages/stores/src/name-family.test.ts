import { describe, expect, it } from 'vitest';
import { familyName, familyNumber, freeName, freeNumber } from './name-family.js';

describe('name families', () => {
  it('names and numbers members, and only members', () => {
    expect(familyName('a/b', '.md', 1)).toBe('a/b.md');
    expect(familyName('a/b', '.md', 12)).toBe('a/b-12.md');
    for (const n of [1, 2, 9, 10, 123456789]) expect(familyNumber(familyName('k', '', n), 'k', '')).toBe(n);
    for (const name of ['k-1', 'k-01', 'k-2x', 'k--2', 'k-+2', 'k-', 'kx', 'k-1234567890', 'j-2']) expect(familyNumber(name, 'k', '')).toBeNull();
    expect(familyNumber('d/s-3.md', 'd/s', '.md')).toBe(3);
    expect(familyNumber('d/s-3.mdx', 'd/s', '.md')).toBeNull();
  });

  it('names the free member of a family from the names taken', () => {
    const taken = new Set(['d/s.md', 'd/s-2.md', 'd/s-3.md']);
    expect(freeName('d/s', '.md', (name) => taken.has(name))).toBe('d/s-4.md');
    expect(freeName('k', '', () => false)).toBe('k');
  });

  it('finds a free number in a few lookups: the lowest while no gap, else one after a taken number', () => {
    const probe = (taken: Set<number>) => {
      let lookups = 0;
      const n = freeNumber((k) => {
        lookups++;
        return taken.has(k);
      });
      return { n, lookups };
    };
    expect(probe(new Set())).toEqual({ n: 1, lookups: 1 });
    for (const k of [1, 2, 3, 7, 8, 9, 100, 1000, 4097]) {
      const { n, lookups } = probe(new Set(Array.from({ length: k }, (_, i) => i + 1)));
      expect(n).toBe(k + 1);
      expect(lookups).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(k + 1)) + 2);
    }
    let seed = 5;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 200; round++) {
      const taken = new Set<number>();
      for (let k = 1; k <= 80; k++) if (rnd() < 0.85) taken.add(k);
      const { n } = probe(taken);
      expect(taken.has(n)).toBe(false);
      expect(n === 1 || taken.has(n - 1)).toBe(true);
    }
  });
});
