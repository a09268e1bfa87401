import { describe, expect, it } from 'vitest';
import { decodeSnapshot, encodeSnapshot } from './index-snapshot.js';
import { INLINE_POSTINGS } from './small-postings.js';
import { SourceIndex, type IndexedDoc, type ScoredTerm } from './term-index.js';

/** A seeded generator (Park-Miller), so a failure repeats. */
function rng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 48271) % 2147483647) / 2147483647;
}

const SCOPES = ['user/a', 'user/b', 'agent/a', 'user/c', 'agent/d', 'user/e'];

describe('SourceIndex eviction of idle scope parts', () => {
  it('answers exactly as an index that keeps every part, through adds, edits and deletes of evicted scopes', () => {
    const r = rng(9);
    const vocab = Array.from({ length: 120 }, (_, i) => `v${i.toString(36)}k`);
    const text = (k: number) => Array.from({ length: k }, () => vocab[Math.floor(vocab.length * r() ** 2)]).join(' ');
    const doc = (id: number, scope: string): IndexedDoc => ({ id, scope, facet: r() < 0.3 ? 'log' : null, columns: [text(1 + Math.floor(r() * 10)), text(Math.floor(r() * 3))] });
    const reference = new SourceIndex([1, 0.5]);
    const bounded = new SourceIndex([1, 0.5], INLINE_POSTINGS, 2);
    const live = new Map<number, IndexedDoc>();
    let id = 0;
    let reloads = 0;
    const both = (fn: (ix: SourceIndex) => void) => {
      fn(reference);
      fn(bounded);
    };
    /** What a search does: mark the scope used, reload it from its rows (in any order) if evicted. */
    const read = (scope: string) => {
      if (bounded.use(scope)) return;
      const rows = [...live.values()].filter((d) => d.scope === scope).sort(() => r() - 0.5);
      expect(bounded.reload(scope, rows)).toBe(true);
      reloads++;
    };
    for (let step = 0; step < 1500; step++) {
      const scope = SCOPES[Math.floor(r() * SCOPES.length)];
      const x = r();
      const mine = [...live.values()].filter((d) => d.scope === scope);
      if (x < 0.45 || mine.length === 0) {
        const d = doc(++id, scope);
        both((ix) => ix.add(d));
        live.set(d.id, d);
      } else if (x < 0.6) {
        const old = mine[Math.floor(r() * mine.length)];
        const edited = doc(old.id, scope);
        both((ix) => {
          ix.remove(old.id, old.columns);
          ix.add(edited);
        });
        live.set(old.id, edited);
      } else if (x < 0.7) {
        const old = mine[Math.floor(r() * mine.length)];
        both((ix) => ix.remove(old.id, old.columns));
        live.delete(old.id);
      } else {
        read(scope);
        const terms: ScoredTerm[] = Array.from({ length: 1 + Math.floor(r() * 3) }, () => ({ stem: vocab[Math.floor(vocab.length * r() ** 2)], idf: 0.5 + r() }));
        const pool = 1 + Math.floor(r() * 12);
        const facet = r() < 0.2 ? 'log' : undefined;
        expect(bounded.top(scope, terms, pool, 6, facet)).toEqual(reference.top(scope, terms, pool, 6, facet));
        expect(bounded.stats(scope)).toEqual(reference.stats(scope));
        for (const t of terms) expect(bounded.df(scope, t.stem)).toBe(reference.df(scope, t.stem));
      }
      expect(bounded.residentParts).toBeLessThanOrEqual(2);
    }
    expect(reloads).toBeGreaterThan(100);
    // Saved with evicted parts and read back: still the same answers once each scope is reloaded.
    const file = Buffer.concat(encodeSnapshot({ source: 'l3', token: 't', cursor: 1 }, bounded.state()));
    const reread = SourceIndex.fromState(decodeSnapshot(file).state, INLINE_POSTINGS, 2);
    // The two parts resident at the save are kept, to be decoded at their first use.
    expect(reread.residentParts).toBe(0);
    expect(reread.savedParts).toBe(2);
    // An index saved whole and read with a bound keeps only that many parts.
    const whole = Buffer.concat(encodeSnapshot({ source: 'l3', token: 't', cursor: 1 }, reference.state()));
    const bound = SourceIndex.fromState(decodeSnapshot(whole).state, INLINE_POSTINGS, 3);
    expect(bound.savedParts).toBe(3);
    expect(bound.residentParts).toBe(0);
    for (const [i, scope] of SCOPES.entries()) {
      if (!bound.use(scope)) expect(bound.reload(scope, [...live.values()].filter((d) => d.scope === scope))).toBe(true);
      expect(bound.residentParts).toBe(Math.min(i + 1, 3));
      expect(bound.savedParts).toBeLessThanOrEqual(3);
      const terms = vocab.slice(2, 6).map((stem) => ({ stem, idf: 1 }));
      expect(bound.top(scope, terms, 20, 6)).toEqual(reference.top(scope, terms, 20, 6));
    }
    for (const scope of SCOPES) {
      if (!reread.use(scope)) expect(reread.reload(scope, [...live.values()].filter((d) => d.scope === scope))).toBe(true);
      const terms = vocab.slice(0, 4).map((stem) => ({ stem, idf: 1 }));
      expect(reread.top(scope, terms, 20, 6)).toEqual(reference.top(scope, terms, 20, 6));
    }
  });

  it('refuses rows that are not the versions indexed, and reading a part before it is reloaded', () => {
    const ix = new SourceIndex([1], INLINE_POSTINGS, 1);
    const a1 = { id: 1, scope: 'user/a', facet: null, columns: ['red kayak'] };
    const a2 = { id: 2, scope: 'user/a', facet: null, columns: ['blue canoe'] };
    ix.add(a1);
    ix.add(a2);
    ix.add({ id: 3, scope: 'user/b', facet: null, columns: ['green boat'] });
    expect(ix.use('user/a')).toBe(false);
    expect(() => ix.top('user/a', [{ stem: 'kayak', idf: 1 }], 5, 2)).toThrow(/evicted/);
    expect(() => ix.stats('user/a')).toThrow(/evicted/);
    expect(ix.reload('user/a', [a1])).toBe(false);
    expect(ix.reload('user/a', [a1, { ...a2, columns: ['blue canoe trip'] }])).toBe(false);
    expect(ix.reload('user/a', [a1, { ...a2, id: 3 }])).toBe(false);
    expect(ix.use('user/a')).toBe(false);
    expect(ix.reload('user/a', [a2, a1])).toBe(true);
    expect(ix.top('user/a', [{ stem: 'kayak', idf: 1 }], 5, 2).map((h) => h.id)).toEqual([1]);
    expect(ix.use('user/b')).toBe(false);
    expect(() => new SourceIndex([1], INLINE_POSTINGS, 0)).toThrow(/maxResident/);
  });
});
