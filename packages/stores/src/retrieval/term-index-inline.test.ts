import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { decodeSnapshot, encodeSnapshot } from './index-snapshot.js';
import { INLINE_POSTINGS } from './small-postings.js';
import { SourceIndex, type IndexedDoc, type ScoredTerm } from './term-index.js';

/** A seeded generator (Park-Miller), so a failure repeats. */
function rng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 48271) % 2147483647) / 2147483647;
}

type Op = { add: IndexedDoc } | { remove: IndexedDoc };

/**
 * Seeded documents over three scopes of 5, 80 and 700 documents and a Zipf-like vocabulary, so
 * terms hold from one posting to hundreds (across INLINE_POSTINGS and SKIP_EVERY), then edits and
 * deletes (terms that lose their last document, lists that grow past the inline limit afterwards).
 */
function workload(seed: number): { initial: IndexedDoc[]; ops: Op[] } {
  const r = rng(seed);
  const vocab = Array.from({ length: 400 }, (_, i) => `t${i.toString(36)}q`);
  const word = () => vocab[Math.floor(vocab.length * r() ** 2.5)];
  const text = (k: number) => Array.from({ length: k }, word).join(' ');
  const doc = (id: number, scope: string): IndexedDoc => ({
    id,
    scope,
    facet: r() < 0.3 ? (r() < 0.5 ? 'log' : 'howto') : null,
    columns: [text(1 + Math.floor(r() * 12)), r() < 0.5 ? text(Math.floor(r() * 4)) : ''],
  });
  const initial: IndexedDoc[] = [];
  let id = 0;
  for (const [scope, count] of [['small', 5], ['mid', 80], ['big', 700]] as const) for (let i = 0; i < count; i++) initial.push(doc(++id, scope));
  const live = new Map(initial.map((d) => [d.id, d]));
  const ops: Op[] = [];
  for (let i = 0; i < 1500; i++) {
    const x = r();
    const ids = [...live.keys()];
    if (x < 0.25 && ids.length > 0) {
      const old = live.get(ids[Math.floor(r() * ids.length)])!;
      ops.push({ remove: old });
      live.delete(old.id);
    } else if (x < 0.45 && ids.length > 0) {
      const old = live.get(ids[Math.floor(r() * ids.length)])!;
      const edited = doc(old.id, old.scope);
      ops.push({ remove: old }, { add: edited });
      live.set(old.id, edited);
    } else {
      const d = doc(++id, ['small', 'mid', 'big', 'new'][Math.floor(r() * 4)]);
      ops.push({ add: d });
      live.set(d.id, d);
    }
  }
  return { initial, ops };
}

function apply(ix: SourceIndex, ops: readonly Op[]): void {
  for (const op of ops) {
    if ('add' in op) ix.add(op.add);
    else expect(ix.remove(op.remove.id, op.remove.columns)).toBe(true);
  }
}

/** Every answer of a seeded set of queries: terms, pools, facets and skipped ids. */
function answers(ix: SourceIndex, seed: number): unknown[] {
  const r = rng(seed);
  const out: unknown[] = [];
  for (let i = 0; i < 300; i++) {
    const terms: ScoredTerm[] = Array.from({ length: 1 + Math.floor(r() * 5) }, () => ({
      stem: `t${Math.floor(400 * r() ** 2).toString(36)}q`,
      idf: 0.2 + r() * 3,
    }));
    const scope = ['small', 'mid', 'big', 'new', 'none'][Math.floor(r() * 5)];
    const facet = r() < 0.2 ? 'log' : undefined;
    const skip = r() < 0.2 ? new Set(Array.from({ length: 20 }, () => 1 + Math.floor(r() * 2000))) : undefined;
    out.push(ix.top(scope, terms, 1 + Math.floor(r() * 40), 2 + r() * 8, facet, skip));
  }
  return out;
}

/** The terms of every part as plain values: stems, document frequencies and encoded postings. */
function terms(ix: SourceIndex): unknown {
  return ix.state().parts.map((p) => ({
    scope: p.scope,
    docs: p.docs,
    colTotals: [...p.colTotals],
    // In stem order: a term of one posting is made by add() rather than ahead by a build.
    terms: p.terms.map((t) => ({ ...t, bytes: [...t.bytes], skips: [...t.skips] })).sort((a, b) => (a.stem < b.stem ? -1 : 1)),
  }));
}

describe('SourceIndex inline posting lists', () => {
  it('answer exactly as lists of their own do (scores, order), built, edited and saved, for every inline limit', () => {
    for (const seed of [1, 2]) {
      const { initial, ops } = workload(seed);
      const built = (limit: number) => {
        const ix = new SourceIndex([1, 0.5], limit);
        ix.load(() => initial, initial.length);
        return ix;
      };
      const grown = (limit: number) => {
        const ix = new SourceIndex([1, 0.5], limit);
        for (const d of initial) ix.add(d);
        return ix;
      };
      const reference = built(0);
      const expectedBuilt = answers(reference, seed);
      const termsBuilt = terms(reference);
      apply(reference, ops);
      const expected = answers(reference, seed + 100);
      const expectedTerms = terms(reference);
      for (const limit of [1, 2, INLINE_POSTINGS, 64]) {
        for (const ix of [built(limit), grown(limit)]) {
          expect(answers(ix, seed)).toEqual(expectedBuilt);
          expect(terms(ix)).toEqual(termsBuilt);
          apply(ix, ops);
          expect(answers(ix, seed + 100)).toEqual(expected);
          // What a save writes is the same bytes whatever the limit, so saved files stay readable.
          expect(terms(ix)).toEqual(expectedTerms);
          const reread = SourceIndex.fromState(decodeSnapshot(Buffer.concat(encodeSnapshot({ source: 'l3', token: 't', cursor: 1 }, ix.state()))).state);
          expect(answers(reread, seed + 100)).toEqual(expected);
        }
        // An index saved with lists of their own (as before inline lists) reads into inline ones.
        const old = SourceIndex.fromState(decodeSnapshot(Buffer.concat(encodeSnapshot({ source: 'l3', token: 't', cursor: 1 }, reference.state()))).state, limit);
        expect(answers(old, seed + 100)).toEqual(expected);
        apply(old, workload(seed + 7).ops.filter((op) => 'add' in op && op.add.id > 10_000));
      }
    }
  });

  it('keep a small scope to a few KB of heap', () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const r = rng(5);
    const heap = () => {
      gc();
      gc();
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    const scopes = 2000;
    const before = heap();
    const ix = new SourceIndex([1, 0.5]);
    let id = 0;
    // Five short records a scope, about 45 distinct words each scope: the audit's small tenant.
    for (let s = 0; s < scopes; s++) {
      for (let d = 0; d < 5; d++) {
        const words = Array.from({ length: 10 }, () => `w${Math.floor(r() * 1e6).toString(36)}`).join(' ');
        ix.add({ id: ++id, scope: `user/tenant-${s}`, facet: null, columns: [words, ''] });
      }
    }
    const perScope = (heap() - before) / scopes;
    expect(ix.top('user/tenant-7', [{ stem: ix.state().parts[7].terms[0].stem, idf: 1 }], 5, 10)).toHaveLength(1);
    // About 31 KB a scope when each term had a PostingList of its own; about 5 KB now.
    expect(perScope).toBeLessThan(8_000);
  });
});
