import { describe, expect, it } from 'vitest';
import { familyName, familyNumber, familyRange, lowestFree } from './name-family.js';

describe('name families', () => {
  it('names and numbers members, and only members', () => {
    expect(familyName('a/b', '.md', 1)).toBe('a/b.md');
    expect(familyName('a/b', '.md', 12)).toBe('a/b-12.md');
    for (const n of [1, 2, 9, 10, 123456789]) expect(familyNumber(familyName('k', '', n), 'k', '')).toBe(n);
    for (const name of ['k-1', 'k-01', 'k-2x', 'k--2', 'k-+2', 'k-', 'kx', 'k-1234567890', 'j-2']) expect(familyNumber(name, 'k', '')).toBeNull();
    expect(familyNumber('d/s-3.md', 'd/s', '.md')).toBe(3);
    expect(familyNumber('d/s-3.mdx', 'd/s', '.md')).toBeNull();
  });

  it('bounds every member, and lexical order puts them between lo and hi', () => {
    const { first, lo, hi } = familyRange('note:x', '');
    expect(first).toBe('note:x');
    for (const n of [2, 10, 99999]) {
      const name = familyName('note:x', '', n);
      expect(name > lo && name < hi).toBe(true);
    }
    const paths = familyRange('w/s', '.md');
    expect(paths.first).toBe('w/s.md');
    expect('w/s-2.md' > paths.lo && 'w/s-2.md' < paths.hi).toBe(true);
  });

  it('takes the lowest free number', () => {
    expect(lowestFree(new Set())).toBe(1);
    expect(lowestFree(new Set([1, 2, 4]))).toBe(3);
    expect(lowestFree(new Set([2, 3]))).toBe(1);
  });
});
