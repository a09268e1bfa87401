import { describe, expect, it } from 'vitest';
import { decodeSnapshot, encodeSnapshot } from './index-snapshot.js';
import { INLINE_POSTINGS } from './small-postings.js';
import { SourceIndex, type IndexedDoc, type ScoredTerm } from './term-index.js';

/**
 * An index whose last column is context (an episode's neighbouring thoughts, `own` = 1): a hit's
 * mask marks only the terms its own column holds (or a context that asks something), and a
 * document matching in a context that asks nothing, alone (mask 0), keeps `contextOnly` of its
 * BM25, computed from the postings.
 */

const OWN = ['kafka cluster frankfurt', 'oat milk and bread', 'kafka consumer lag alerts', 'the plumber and the sink', 'frankfurt airport'];

function docs(): IndexedDoc[] {
  const out: IndexedDoc[] = [];
  // Each with the two before it as context, as think writes them; then many more, so the terms
  // get posting lists of their own as well as inline ones.
  for (let i = 0; i < 60; i++) {
    const own = OWN[i % OWN.length];
    const context = [OWN[(i + OWN.length - 1) % OWN.length], OWN[(i + OWN.length - 2) % OWN.length]].join('\n');
    out.push({ id: i + 1, scope: 'u', facet: null, columns: [own, i % 3 === 0 ? '' : context] });
  }
  return out;
}

const QUERIES: ScoredTerm[][] = [
  [{ stem: 'kafka', idf: 1.2 }],
  [{ stem: 'kafka', idf: 1.2 }, { stem: 'frankfurt', idf: 0.9 }],
  [{ stem: 'kafka', idf: 1.2 }, { stem: 'cluster', idf: 1.5 }, { stem: 'frankfurt', idf: 0.9 }],
];

/** Bit i set when the document's own text holds query term i. */
function ownMask(doc: IndexedDoc, terms: readonly ScoredTerm[]): number {
  const words = doc.columns[0].split(' ');
  let mask = 0;
  terms.forEach((t, i) => {
    if (words.includes(t.stem)) mask |= 1 << i;
  });
  return mask;
}

describe('SourceIndex with a context column', () => {
  for (const inline of [0, INLINE_POSTINGS]) {
    it(`masks own-column matches only and scales a context-only match, on every merge path (inline ${inline})`, () => {
      const all = docs();
      const ix = new SourceIndex([1, 0.5], inline, Number.POSITIVE_INFINITY, 1);
      // The same documents, every column taken as own text: the scores before any scaling.
      const plain = new SourceIndex([1, 0.5], inline);
      for (const d of all) {
        ix.add(d);
        plain.add(d);
      }
      for (const terms of QUERIES) {
        const ref = new Map(plain.top('u', terms, 100, 4).map((h) => [h.id, h]));
        const got = ix.top('u', terms, 100, 4, null, undefined, 0.25);
        expect(got).toHaveLength(ref.size);
        let contextOnly = 0;
        for (const h of got) {
          const doc = all[h.id - 1];
          const mask = ownMask(doc, terms);
          expect(h.mask).toBe(mask);
          if (mask === 0) contextOnly++;
          expect(h.score).toBe(mask === 0 ? ref.get(h.id)!.score * 0.25 : ref.get(h.id)!.score);
        }
        expect(contextOnly).toBeGreaterThan(0);
        // Without scaling, a context-only match scores as before.
        expect(ix.top('u', terms, 100, 4).map((h) => [h.id, h.score]).sort()).toEqual(plain.top('u', terms, 100, 4).map((h) => [h.id, h.score]).sort());
      }
    });
  }

  it('ranks a context-only match below a weaker own match', () => {
    const ix = new SourceIndex([1, 0.5], INLINE_POSTINGS, Number.POSITIVE_INFINITY, 1);
    ix.add({ id: 1, scope: 'u', facet: null, columns: ['kafka consumer lag alerts go to the data on-call channel', ''] });
    ix.add({ id: 2, scope: 'u', facet: null, columns: ['jonas manages the kafka cluster in frankfurt', 'kafka consumer lag alerts'] });
    ix.add({ id: 3, scope: 'u', facet: null, columns: ['bought oat milk', 'jonas manages the kafka cluster in frankfurt\nkafka consumer lag alerts'] });
    const terms = QUERIES[2];
    expect(ix.top('u', terms, 10, 8).map((h) => h.id)).toEqual([2, 3, 1]);
    expect(ix.top('u', terms, 10, 8, null, undefined, 0.25).map((h) => h.id)).toEqual([2, 1, 3]);
  });

  it('counts the terms of a context that asks something as the document\'s own', () => {
    const ix = new SourceIndex([1, 0.5], INLINE_POSTINGS, Number.POSITIVE_INFINITY, 1);
    const plain = new SourceIndex([1, 0.5]);
    const all: IndexedDoc[] = [
      { id: 1, scope: 'u', facet: null, columns: ['we went camping by the river', 'what did you do last weekend?'] },
      { id: 2, scope: 'u', facet: null, columns: ['we went camping by the river', 'we did a lot last weekend'] },
      { id: 3, scope: 'u', facet: null, columns: ['we went camping by the river', 'ne yaptınız geçen hafta sonu؟ weekend'] },
      { id: 4, scope: 'u', facet: null, columns: ['we went camping by the river', '週末は何をしましたか？ weekend'] },
    ];
    for (const d of all) {
      ix.add(d);
      plain.add(d);
    }
    const terms = [{ stem: 'weekend', idf: 1 }];
    const ref = new Map(plain.top('u', terms, 10, 8).map((h) => [h.id, h.score]));
    const got = new Map(ix.top('u', terms, 10, 8, null, undefined, 0.1).map((h) => [h.id, h]));
    for (const id of [1, 3, 4]) expect([got.get(id)!.mask, got.get(id)!.score]).toEqual([1, ref.get(id)]);
    expect([got.get(2)!.mask, got.get(2)!.score]).toEqual([0, ref.get(2)! * 0.1]);
  });

  it('keeps which columns are own text, and the postings saying so, through a saved snapshot', () => {
    const ix = new SourceIndex([1, 0.5], INLINE_POSTINGS, Number.POSITIVE_INFINITY, 1);
    for (const d of docs()) ix.add(d);
    const state = decodeSnapshot(Buffer.concat(encodeSnapshot({ source: 'l3', token: 't', cursor: 1 }, ix.state()))).state;
    expect(state.own).toBe(1);
    const back = SourceIndex.fromState(state);
    expect(back.own).toBe(1);
    for (const terms of QUERIES) expect(back.top('u', terms, 100, 4, null, undefined, 0.25)).toEqual(ix.top('u', terms, 100, 4, null, undefined, 0.25));
  });

  it('refuses an own column count outside 1..columns', () => {
    expect(() => new SourceIndex([1, 0.5], INLINE_POSTINGS, Number.POSITIVE_INFINITY, 0)).toThrow(/own must be an integer from 1 to 2/);
    expect(() => new SourceIndex([1, 0.5], INLINE_POSTINGS, Number.POSITIVE_INFINITY, 3)).toThrow(/own must be an integer from 1 to 2/);
  });
});
