import { describe, expect, it } from 'vitest';
import { decodeSnapshot, encodeSnapshot } from './index-snapshot.js';
import { INLINE_POSTINGS } from './small-postings.js';
import { SourceIndex, type IndexedDoc, type ScoredTerm } from './term-index.js';

/** A seeded generator (Park-Miller), so a failure repeats. */
function rng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 48271) % 2147483647) / 2147483647;
}

const save = (ix: SourceIndex) => Buffer.concat(encodeSnapshot({ source: 'l3', token: 't', cursor: 1 }, ix.state()));

/**
 * A saved index read back decodes no part at the start: at most the bound's parts keep their saved
 * terms, each decoded at its first use; the others are reloaded from their rows.
 */
describe('SourceIndex read from a saved index, parts decoded at their first use', () => {
  it('answers exactly as the index it was saved from, through searches, adds, edits and deletes that empty parts', () => {
    const r = rng(17);
    const vocab = Array.from({ length: 150 }, (_, i) => `w${i.toString(36)}q`);
    const text = (k: number) => Array.from({ length: k }, () => vocab[Math.floor(vocab.length * r() ** 2)]).join(' ');
    const scopes = Array.from({ length: 40 }, (_, i) => `${i % 2 ? 'agent' : 'user'}/u${i}`);
    const doc = (id: number, scope: string): IndexedDoc => ({ id, scope, facet: r() < 0.3 ? 'log' : null, columns: [text(1 + Math.floor(r() * 10)), text(Math.floor(r() * 3))] });
    const live = new Map<number, IndexedDoc>();
    let id = 0;
    // The reference keeps every part decoded; the index it is saved from evicts past 8 parts.
    const reference = new SourceIndex([1, 0.5]);
    const saved = new SourceIndex([1, 0.5], INLINE_POSTINGS, 8);
    for (let i = 0; i < 400; i++) {
      const d = doc(++id, scopes[Math.floor(r() * scopes.length)]);
      reference.add(d);
      saved.add(d);
      live.set(d.id, d);
    }
    const BOUND = 5;
    const lazy = SourceIndex.fromState(decodeSnapshot(save(saved), BOUND).state, INLINE_POSTINGS, BOUND);
    expect(lazy.residentParts).toBe(0);
    expect(lazy.savedParts).toBe(BOUND);
    let reloads = 0;
    const read = (scope: string) => {
      if (lazy.use(scope)) return;
      expect(lazy.reload(scope, [...live.values()].filter((d) => d.scope === scope))).toBe(true);
      reloads++;
    };
    const compare = (scope: string) => {
      read(scope);
      const terms: ScoredTerm[] = Array.from({ length: 1 + Math.floor(r() * 3) }, () => ({ stem: vocab[Math.floor(vocab.length * r() ** 2)], idf: 0.5 + r() }));
      const facet = r() < 0.2 ? 'log' : undefined;
      const pool = 1 + Math.floor(r() * 12);
      expect(lazy.top(scope, terms, pool, 6, facet)).toEqual(reference.top(scope, terms, pool, 6, facet));
      expect(lazy.stats(scope)).toEqual(reference.stats(scope));
      for (const t of terms) expect(lazy.df(scope, t.stem)).toBe(reference.df(scope, t.stem));
    };
    // Written before any search: a document added to one part not decoded yet, one taken out of
    // another (each is decoded first, so its saved terms are not read stale later).
    const waiting = lazy.state().parts.filter((p) => p.saved !== undefined).map((p) => p.scope);
    expect(waiting).toHaveLength(BOUND);
    const added = doc(++id, waiting[0]);
    reference.add(added);
    lazy.add(added);
    live.set(added.id, added);
    const gone = [...live.values()].find((d) => d.scope === waiting[1]) as IndexedDoc;
    expect(lazy.remove(gone.id, gone.columns)).toBe(reference.remove(gone.id, gone.columns));
    live.delete(gone.id);
    expect(lazy.savedParts).toBe(BOUND - 2);
    // Each part not decoded yet, searched first: decoded from its saved bytes, not reloaded.
    const stillWaiting = new Set(waiting.slice(2));
    for (const scope of scopes) {
      const before = reloads;
      compare(scope);
      if (stillWaiting.has(scope)) expect(reloads).toBe(before);
    }
    expect(lazy.savedParts).toBe(0);
    expect(reloads).toBeGreaterThanOrEqual(scopes.length - BOUND);
    const emptied = new Set<string>();
    for (let step = 0; step < 1500; step++) {
      const scope = scopes[Math.floor(r() * scopes.length)];
      const x = r();
      const mine = [...live.values()].filter((d) => d.scope === scope);
      if (x < 0.3 && !emptied.has(scope)) {
        const d = doc(++id, scope);
        reference.add(d);
        lazy.add(d);
        live.set(d.id, d);
      } else if (x < 0.45 && mine.length > 0) {
        const old = mine[Math.floor(r() * mine.length)];
        const edited = doc(old.id, scope);
        for (const ix of [reference, lazy]) {
          ix.remove(old.id, old.columns);
          ix.add(edited);
        }
        live.set(old.id, edited);
      } else if (x < 0.65 && mine.length > 0) {
        // Deletes, more of them in a few scopes, so parts are left without documents.
        for (const old of emptied.size < 6 && r() < 0.3 ? mine : [mine[0]]) {
          expect(lazy.remove(old.id, old.columns)).toBe(reference.remove(old.id, old.columns));
          live.delete(old.id);
        }
        if (mine.length > 1 && [...live.values()].every((d) => d.scope !== scope)) emptied.add(scope);
      } else compare(scope);
      expect(lazy.residentParts).toBeLessThanOrEqual(BOUND);
      expect(lazy.savedParts).toBeLessThanOrEqual(BOUND);
    }
    expect(emptied.size).toBeGreaterThan(2);
    for (const scope of scopes) compare(scope);
    // Saved again (with parts not decoded yet, evicted and emptied) and read back: the same.
    const again = SourceIndex.fromState(decodeSnapshot(save(lazy), BOUND).state, INLINE_POSTINGS, BOUND);
    for (const scope of scopes) {
      if (!again.use(scope)) expect(again.reload(scope, [...live.values()].filter((d) => d.scope === scope))).toBe(true);
      const terms = vocab.slice(0, 5).map((stem) => ({ stem, idf: 1 }));
      expect(again.top(scope, terms, 20, 6)).toEqual(reference.top(scope, terms, 20, 6));
      expect(again.stats(scope)).toEqual(reference.stats(scope));
    }
  });

  it('keeps at most the bound of a big saved index, the most recently used parts, and decodes none at the start', () => {
    const weights = [1];
    const big = new SourceIndex(weights);
    const scopes = Array.from({ length: 3000 }, (_, i) => `user/t${i}`);
    let id = 0;
    for (const scope of scopes) for (let k = 0; k < 2; k++) big.add({ id: ++id, scope, facet: null, columns: [`note ${k} of ${scope.slice(5)} about kayaks`] });
    // Used last: every tenth scope, backwards, so neither the first nor the last made are the newest.
    const recent = scopes.filter((_, i) => i % 10 === 0).reverse().slice(0, 200);
    for (const scope of recent) big.use(scope);
    const file = save(big);
    const read = SourceIndex.fromState(decodeSnapshot(file, 100).state, INLINE_POSTINGS, 100);
    expect(read.residentParts).toBe(0);
    expect(read.savedParts).toBe(100);
    // The 100 most recently used are those kept: each is decoded by its first use, none reloaded.
    for (const scope of recent.slice(100)) expect(read.use(scope)).toBe(true);
    expect(read.residentParts).toBe(100);
    expect(read.savedParts).toBe(0);
    for (const scope of recent.slice(0, 100)) expect(read.use(scope)).toBe(false);
    // Read without a bound on the decoding but with one on the index: it still keeps 100.
    const unbounded = SourceIndex.fromState(decodeSnapshot(file).state, INLINE_POSTINGS, 100);
    expect(unbounded.savedParts).toBe(100);
    expect(unbounded.residentParts).toBe(0);
    expect(unbounded.top(recent[199], [{ stem: 'kayak', idf: 1 }], 5, 6)).toEqual(big.top(recent[199], [{ stem: 'kayak', idf: 1 }], 5, 6));
  });

  it('drops a part its deletes left empty: it no longer counts towards the bound, and starts again with a new document', () => {
    const ix = new SourceIndex([1], INLINE_POSTINGS, 2);
    const a1 = { id: 1, scope: 'user/a', facet: null, columns: ['red kayak'] };
    const a2 = { id: 2, scope: 'user/a', facet: null, columns: ['blue kayak'] };
    const b1 = { id: 3, scope: 'user/b', facet: null, columns: ['green boat'] };
    const c1 = { id: 4, scope: 'user/c', facet: null, columns: ['yellow canoe'] };
    ix.add(a1);
    ix.add(a2);
    ix.add(b1);
    expect(ix.residentParts).toBe(2);
    ix.remove(a1.id, a1.columns);
    ix.remove(a2.id, a2.columns);
    expect(ix.residentParts).toBe(1);
    // A third scope fits without evicting b.
    ix.add(c1);
    expect(ix.residentParts).toBe(2);
    expect(ix.use('user/b')).toBe(true);
    // The emptied scope reads as empty, without a reload and without taking a place.
    expect(ix.use('user/a')).toBe(true);
    expect(ix.residentParts).toBe(2);
    expect(ix.top('user/a', [{ stem: 'kayak', idf: 1 }], 5, 2)).toEqual([]);
    expect(ix.stats('user/a')).toEqual({ docs: 0, avgLen: [0] });
    // Its record is gone: a saved index does not hold it (nor the scope's name).
    expect(ix.state().parts.map((p) => p.scope)).toEqual(['user/b', 'user/c']);
    // An evicted part emptied by deletes is dropped too.
    ix.add({ id: 5, scope: 'user/a', facet: null, columns: ['grey kayak'] });
    expect(ix.residentParts).toBe(2);
    expect(ix.use('user/c')).toBe(false);
    ix.remove(c1.id, c1.columns);
    expect(ix.use('user/c')).toBe(true);
    expect(ix.stats('user/c')).toEqual({ docs: 0, avgLen: [0] });
    expect(ix.residentParts).toBe(2);
    expect(ix.top('user/a', [{ stem: 'kayak', idf: 1 }], 5, 2).map((h) => h.id)).toEqual([5]);
    // Saved and read back, the emptied parts are not there, and the others are numbered anew.
    const state = ix.state();
    expect(state.parts.map((p) => p.scope)).toEqual(['user/b', 'user/a']);
    expect([...state.slotPart]).toEqual([0, 0, 0, 1, 0, 2]);
    const read = SourceIndex.fromState(decodeSnapshot(save(ix)).state, INLINE_POSTINGS, 2);
    expect(read.savedParts).toBe(2);
    expect(read.use('user/c')).toBe(true);
    expect(read.stats('user/c')).toEqual({ docs: 0, avgLen: [0] });
    expect(read.savedParts).toBe(2);
    expect(read.residentParts).toBe(0);
    expect(read.top('user/a', [{ stem: 'kayak', idf: 1 }], 5, 2).map((h) => h.id)).toEqual([5]);
    expect(read.top('user/b', [{ stem: 'boat', idf: 1 }], 5, 2).map((h) => h.id)).toEqual([3]);
  });
});
