import { describe, expect, it } from 'vitest';
import { closeTerms, FUZZY_PER_TERM, FUZZY_WEIGHT, fuzzyEdits, osaDistance, queryStems, scoredTerms, typoWords, type SearchedTerms, type TermSource } from './fuzzy-terms.js';
import { idf } from './score.js';
import { porterStem } from './stemmer.js';
import { SourceIndex } from './term-index.js';

/** A scope's terms from a map of stem to document frequency, counting its reads. */
function vocabulary(dfs: Record<string, number>): TermSource & { scans: number; reads: number } {
  const v = {
    scans: 0,
    reads: 0,
    df(stem: string): number {
      v.reads++;
      return dfs[stem] ?? 0;
    },
    eachTerm(visit: (stem: string, df: number) => void): void {
      v.scans++;
      for (const [s, df] of Object.entries(dfs)) visit(s, df);
    },
  };
  return v;
}

const searched = (...indexes: TermSource[]): SearchedTerms[] => indexes.map((index) => ({ index, fresh: null }));

describe('osaDistance', () => {
  it('counts insertions, deletions, substitutions and adjacent transpositions as one edit each', () => {
    expect(osaDistance('coffe', 'coffe', 2)).toBe(0);
    expect(osaDistance('cofe', 'coffe', 2)).toBe(1);
    expect(osaDistance('alci', 'alic', 2)).toBe(1);
    expect(osaDistance('kitten', 'sitting', 3)).toBe(3);
    expect(osaDistance('ca', 'abc', 3)).toBe(3);
  });

  it('answers max + 1 once the distance passes the bound', () => {
    expect(osaDistance('kitten', 'sitting', 2)).toBe(3);
    expect(osaDistance('abcdefgh', 'zyxwvuts', 1)).toBe(2);
    expect(osaDistance('ab', 'abcdef', 2)).toBe(3);
  });
});

describe('fuzzyEdits and typoWords', () => {
  it('gives no edit below four characters or with a digit, one up to seven, two from eight', () => {
    expect(['cat', 'tea', 'gpt4', 'b2b'].map(fuzzyEdits)).toEqual([0, 0, 0, 0]);
    expect(['cofee', 'alcie', 'restaur'].map(fuzzyEdits)).toEqual([1, 1, 1]);
    expect(['restaurnt', 'vacations'].map(fuzzyEdits)).toEqual([2, 2]);
  });

  it('leaves out the words of identifiers, numbers and symbols', () => {
    expect([...typoWords('Did Alcie like the "cofee"? state-of-the-art')]).toEqual(['did', 'alcie', 'like', 'the', 'cofee', 'state', 'of', 'art']);
    expect([...typoWords('fetchUserProfle fetch_user_profle config.yaml v14 user@example')]).toEqual([]);
    expect(queryStems('Alcie likes fetchUserProfle').edits()).toEqual([1, 1, 0, 0, 0, 0]);
    // Two words of one stem: as far as either allows.
    expect(queryStems('like likes').edits()).toEqual([1]);
  });
});

describe('closeTerms', () => {
  it('orders by distance, then higher document frequency, then the term, and keeps at most three', () => {
    const v = vocabulary({ coffe: 4, cofe: 1, toffe: 9, coff: 2, cafe: 9, cone: 9, coffeehous: 50 });
    // "cofe" itself is the query's own stem and is skipped.
    expect(closeTerms('cofe', 1, searched(v), ['cofe'])).toEqual([
      { stem: 'cafe', distance: 1, df: 9 },
      { stem: 'cone', distance: 1, df: 9 },
      { stem: 'coffe', distance: 1, df: 4 },
    ]);
    expect(closeTerms('cofe', 1, searched(v), ['cofe'], 10).map((c) => c.stem)).toEqual(['cafe', 'cone', 'coffe', 'coff']);
    expect(FUZZY_PER_TERM).toBe(3);
  });

  it('sums a term over the searched sources and answers the same whatever their order', () => {
    const a = vocabulary({ alic: 2, alcis: 5 });
    const b = vocabulary({ alic: 4, blic: 1 });
    const ab = closeTerms('alci', 1, searched(a, b), []);
    expect(ab).toEqual([
      { stem: 'alic', distance: 1, df: 6 },
      { stem: 'alcis', distance: 1, df: 5 },
    ]);
    expect(closeTerms('alci', 1, searched(b, a), [])).toEqual(ab);
  });

  it('finds every term within the bound, as a full distance over all terms does', () => {
    let seed = 7;
    const rnd = (n: number): number => {
      seed = (seed * 48271) % 2147483647;
      return seed % n;
    };
    const word = (): string => Array.from({ length: 3 + rnd(8) }, () => 'abcdeilnorst'[rnd(12)]).join('');
    const dfs: Record<string, number> = {};
    for (let i = 0; i < 3000; i++) dfs[word()] = 1 + rnd(5);
    const v = vocabulary(dfs);
    for (let q = 0; q < 60; q++) {
      const stem = word();
      for (const edits of [1, 2]) {
        const want = Object.keys(dfs)
          .filter((t) => t !== stem && osaDistance(stem, t, 9) <= edits)
          .map((t) => ({ stem: t, distance: osaDistance(stem, t, 9), df: dfs[t]! }))
          .sort((x, y) => x.distance - y.distance || y.df - x.df || (x.stem < y.stem ? -1 : 1));
        expect(closeTerms(stem, edits, searched(v), [stem], 1000), `${stem} ${edits}`).toEqual(want);
      }
    }
  });

  it('finds nothing past the bound', () => {
    expect(closeTerms('restaurnt', 2, searched(vocabulary({ restaur: 3, rest: 8 })), [])).toEqual([{ stem: 'restaur', distance: 2, df: 3 }]);
    expect(closeTerms('vacaton', 1, searched(vocabulary({ vacat: 3 })), [])).toEqual([]);
  });
});

describe('scoredTerms', () => {
  it('never reads the vocabulary nor reads the query again when every stem is known, and scores exactly as idf over the sources', () => {
    const a = vocabulary({ alic: 1, like: 3, coffe: 1 });
    const b = vocabulary({ coffe: 2 });
    const { stems } = queryStems('Alice likes coffee');
    expect(scoredTerms(stems, () => expect.unreachable(), searched(a, b), 10)).toEqual([
      { stem: 'alic', idf: idf(10, 1) },
      { stem: 'like', idf: idf(10, 3) },
      { stem: 'coffe', idf: idf(10, 3) },
    ]);
    expect(a.scans + b.scans).toBe(0);
  });

  it('searches an unknown word as its close terms, each below the exact words', () => {
    const v = vocabulary({ alic: 1, like: 3, coffe: 1, milk: 6 });
    const { stems, edits } = queryStems('Alcie likes cofee');
    expect(stems).toEqual(['alci', 'like', 'cofe']);
    const terms = scoredTerms(stems, edits, searched(v), 10);
    const lowest = idf(10, 3);
    expect(terms).toEqual([
      { stem: 'alic', idf: FUZZY_WEIGHT * Math.min(idf(10, 1), lowest) },
      { stem: 'like', idf: lowest },
      { stem: 'coffe', idf: FUZZY_WEIGHT * Math.min(idf(10, 1), lowest) },
    ]);
    for (const t of terms) if (t.stem !== 'like') expect(t.idf).toBeLessThan(lowest);
  });

  it('does not expand a short word, a word with a digit, an identifier, or a word a changed record holds', () => {
    const v = vocabulary({ cat: 1, gpt4: 1, fetchuserprofil: 1, cofe: 0 });
    for (const q of ['cta', 'gpt5', 'fetchUserProfle']) {
      const { stems, edits } = queryStems(q);
      expect(scoredTerms(stems, edits, searched(v), 3).map((t) => t.stem)).toEqual(stems);
    }
    const fresh = vocabulary({ cofe: 1 });
    const { stems, edits } = queryStems('cofee');
    expect(scoredTerms(stems, edits, [{ index: vocabulary({ coffe: 2 }), fresh }], 3)).toEqual([{ stem: 'cofe', idf: idf(3, 0) }]);
  });

  it('keeps an unknown word with nothing close, and takes no close term twice', () => {
    const v = vocabulary({ coffe: 1 });
    expect(scoredTerms(['zzzzz'], () => [1], searched(v), 2)).toEqual([{ stem: 'zzzzz', idf: idf(2, 0) }]);
    // "coffe" is close to both unknown words: searched once.
    expect(scoredTerms(['cofe', 'cofff'], () => [1, 1], searched(v), 2).map((t) => t.stem)).toEqual(['coffe']);
  });

  it('reads a SourceIndex part as its vocabulary', () => {
    const index = new SourceIndex([1]);
    index.add({ id: 1, scope: 's', facet: null, columns: ['Alice likes coffee'] });
    index.add({ id: 2, scope: 's', facet: null, columns: ['Bob likes tea'] });
    index.add({ id: 3, scope: 't', facet: null, columns: ['Alicia drinks coffee'] });
    const seen: [string, number][] = [];
    index.eachTerm('s', (stem, df) => seen.push([stem, df]));
    expect(seen.sort()).toEqual([['alic', 1], ['bob', 1], ['coffe', 1], ['like', 2], ['tea', 1]]);
    const source: TermSource = { df: (s) => index.df('s', s), eachTerm: (visit) => index.eachTerm('s', visit) };
    expect(closeTerms(porterStem('alcie'), 1, searched(source), [])).toEqual([{ stem: 'alic', distance: 1, df: 1 }]);
    index.eachTerm('none', () => expect.unreachable());
  });
});
