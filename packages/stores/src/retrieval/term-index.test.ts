import { describe, expect, it } from 'vitest';
import { INTENT_WEIGHTS, keepContenders } from './retrieval.js';
import { bm25Score, idf, proximityBonus, proximityBound, stemTokens, ProximityScorer } from './score.js';
import { SourceIndex, columnTerms } from './term-index.js';

describe('SourceIndex', () => {
  it('keeps scopes apart, each with its own statistics', () => {
    const ix = new SourceIndex([1, 0.5]);
    ix.add({ id: 1, scope: 'u', facet: null, columns: ['the red kayak', ''] });
    ix.add({ id: 2, scope: 'u', facet: null, columns: ['a blue kayak and a red canoe', ''] });
    ix.add({ id: 3, scope: 'v', facet: null, columns: ['red red red', ''] });
    expect(ix.df('u', 'red')).toBe(2);
    expect(ix.df('v', 'red')).toBe(1);
    expect(ix.stats('u')).toEqual({ docs: 2, avgLen: [5, 0] });
    const top = ix.top('u', [{ stem: 'red', idf: 1 }], 10, 4.5);
    expect(top.map((t) => t.id)).toEqual([1, 2]);
    expect(ix.remove(1, ['the red kayak', ''])).toBe(true);
    expect(ix.df('u', 'red')).toBe(1);
    expect(ix.top('u', [{ stem: 'red', idf: 1 }], 10, 4.5).map((t) => t.id)).toEqual([2]);
    expect(ix.remove(1, ['the red kayak', ''])).toBe(false);
    expect(ix.dead).toBe(1);
  });

  it('drops a term once no live document holds it, and starts it again for a new one', () => {
    const ix = new SourceIndex([1]);
    ix.add({ id: 1, scope: 'u', facet: null, columns: ['zorblatt savings account'] });
    ix.add({ id: 2, scope: 'u', facet: null, columns: ['savings plan'] });
    const stems = () => ix.state().parts.flatMap((p) => p.terms.map((t) => t.stem));
    expect(stems()).toContain('zorblatt');
    expect(ix.remove(1, ['zorblatt savings account'])).toBe(true);
    expect(stems()).not.toContain('zorblatt');
    expect(ix.df('u', 'save')).toBe(1);
    expect(ix.top('u', [{ stem: 'save', idf: 1 }], 10, 2).map((t) => t.id)).toEqual([2]);
    ix.add({ id: 3, scope: 'u', facet: null, columns: ['zorblatt again'] });
    expect(ix.df('u', 'zorblatt')).toBe(1);
    expect(ix.top('u', [{ stem: 'zorblatt', idf: 1 }], 10, 2).map((t) => t.id)).toEqual([3]);
  });

  it('returns the best pool by score, newer first on ties, whatever the number of matches', () => {
    const ix = new SourceIndex([1]);
    for (let i = 1; i <= 500; i++) ix.add({ id: i, scope: 'u', facet: null, columns: [i % 7 === 0 ? 'tide tide pool' : 'tide pool'] });
    const top = ix.top('u', [{ stem: 'tide', idf: 1 }], 5, 2.2);
    expect(top.map((t) => t.id)).toEqual([497, 490, 483, 476, 469]);
    for (let i = 1; i < top.length; i++) expect(top[i - 1].score).toBeGreaterThanOrEqual(top[i].score);
    const plain = ix.top('u', [{ stem: 'pool', idf: 1 }], 3, 2.2).map((t) => t.id);
    expect(plain).toEqual([500, 499, 498]);
  });
});

describe('SourceIndex.top keeps what a full ranking ranks first', () => {
  it('for any pool and one to three terms, ties (identical texts) included, on every merge path', () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const words = ['harbour', 'ferry', 'island', 'tide', 'lighthouse', 'gull', 'net', 'rope'];
    const texts = Array.from({ length: 40 }, () => Array.from({ length: 1 + rand(9) }, () => words[rand(words.length)]).join(' '));
    const ix = new SourceIndex([1, 0.5]);
    // Texts repeat (ties on score), and some documents belong to another scope.
    for (let i = 1; i <= 600; i++) ix.add({ id: i, scope: i % 11 === 0 ? 'v' : 'u', facet: 'log', columns: [texts[rand(texts.length)], texts[rand(texts.length)]] });
    // A term only documents of another facet hold: added to a query it changes no score of the
    // facet searched, but makes top() take its general merge instead of the one- or two-term paths.
    for (let i = 601; i <= 620; i++) ix.add({ id: i, scope: 'u', facet: 'other', columns: ['anchor chain', ''] });
    const elsewhere = { stem: 'anchor', idf: 1.7 };
    const stems = ['harbour', 'ferri', 'island', 'tide', 'lighthous', 'gull', 'net', 'rope'];
    for (let round = 0; round < 300; round++) {
      const terms = Array.from({ length: 1 + rand(3) }, () => stems[rand(stems.length)])
        .filter((t, i, all) => all.indexOf(t) === i)
        .map((stem) => ({ stem, idf: 0.2 + rand(100) / 40 }));
      const pool = 1 + rand(25);
      const all = ix.top('u', terms, 100_000, 6, 'log');
      expect(all.length).toBeGreaterThan(0);
      expect(ix.top('u', terms, pool, 6, 'log')).toEqual(all.slice(0, pool));
      if (terms.length < 3) expect(ix.top('u', [...terms, elsewhere], pool, 6, 'log')).toEqual(all.slice(0, pool));
    }
  });
});

describe('SourceIndex.top with one term', () => {
  it('gives what the merge of several terms gives: other scopes, facets and skipped ids left out', () => {
    const ix = new SourceIndex([1]);
    const words = ['harbour', 'ferry', 'island', 'tide'];
    for (let i = 1; i <= 300; i++) {
      const text = Array.from({ length: 1 + (i % 5) }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(' ');
      ix.add({ id: i, scope: i % 3 === 0 ? 'v' : 'u', facet: i % 4 === 0 ? 'note' : 'log', columns: [text] });
    }
    const skip = new Set([8, 16, 40]);
    // A second term held only by documents of another facet makes top() merge two terms, with the same answer.
    for (let i = 301; i <= 310; i++) ix.add({ id: i, scope: 'u', facet: 'log', columns: ['lighthouse ferry'] });
    expect(ix.df('u', 'lighthous')).toBe(10);
    const one = ix.top('u', [{ stem: 'ferri', idf: 1.3 }], 12, 3, 'note', skip);
    const merged = ix.top('u', [{ stem: 'ferri', idf: 1.3 }, { stem: 'lighthous', idf: 2 }], 12, 3, 'note', skip);
    expect(one.length).toBeGreaterThan(5);
    expect(one).toEqual(merged);
    for (const hit of one) {
      expect(hit.id % 3).not.toBe(0);
      expect(hit.id % 4).toBe(0);
      expect(skip.has(hit.id)).toBe(false);
    }
  });
});

describe('index scores', () => {
  it('equal bm25Score without the proximity bonus', () => {
    const weights = [1, 0.3, 0.5];
    const docs = [
      ['Melanie painted a sunrise over the lake last week.', '["art"]', 'Caroline: what did you paint?'],
      ['The lake was cold; we painted the boat house.', '[]', ''],
      ['Running by the lake every morning.', '["sport"]', 'Melanie: do you still paint?'],
    ];
    const ix = new SourceIndex(weights);
    docs.forEach((columns, i) => ix.add({ id: i + 1, scope: 'u', facet: null, columns }));
    const stats = ix.stats('u');
    const avgdl = weights.reduce((s, w, i) => s + w * stats.avgLen[i], 0);
    const terms = ['lake', 'paint'].map((stem) => ({ stem, idf: idf(stats.docs, ix.df('u', stem)) }));
    for (const hit of ix.top('u', terms, 10, avgdl)) {
      const columns = docs[hit.id - 1].map((text, i) => ({ tokens: stemTokens(text), weight: weights[i], avgLen: stats.avgLen[i] }));
      const bonus = proximityBonus(terms, columns.map((c) => c.tokens));
      expect(hit.score).toBeCloseTo(bm25Score(terms, columns) - bonus, 9);
      expect(bonus).toBeLessThanOrEqual(proximityBound(terms, hit.mask));
      expect(new ProximityScorer(terms).bonus(docs[hit.id - 1])).toBe(bonus);
    }
    expect(columnTerms('The cats, the dogs and a fox').stems).toEqual(['cat', 'dog', 'fox']);
  });
});

describe('ProximityScorer on words the stemmer rewrites', () => {
  it('finds query stems where stemTokens does: cases, endings, digits and non-ASCII text', () => {
    const texts = [
      'The relational Databases were CONDITIONALLY hopping between happy skies; generalizations controlled rolling tries 42x.',
      'Café déjà-vu: the RELATIONAL naïve hopping; Ünïcode skies.',
      '',
      '  --  ',
    ];
    const stemLists = [['relat', 'databas', 'condit'], ['hop', 'happi', 'sky'], ['gener', 'control', 'roll', 'tri', '42x'], ['cafe', 'deja', 'relat', 'naiv', 'hop'], ['zzz', 'hop']];
    for (const text of texts) {
      for (const stems of stemLists) {
        const terms = stems.map((stem, i) => ({ stem, idf: 1 + i / 10 }));
        expect(new ProximityScorer(terms).bonus([text]), `${text} / ${stems}`).toBe(proximityBonus(terms, [stemTokens(text)]));
      }
    }
    expect(new ProximityScorer([{ stem: 'hop', idf: 1 }, { stem: 'happi', idf: 2 }]).bonus([texts[0]])).toBeCloseTo(0.3, 12);
    expect(new ProximityScorer([{ stem: 'relat', idf: 1 }, { stem: 'naiv', idf: 2 }]).bonus([texts[1]])).toBeCloseTo(0.3, 12);
  });

  it('finds Russian stems (endings removed) and Arabic stems (article removed) where stemTokens does', () => {
    const texts = ['Встреча с инвесторами в понедельник, встречу перенесли.', 'قرأت الكتاب الجديد وكتابه القديم في المكتبة'];
    const stemLists = [['встреч', 'инвестор'], ['понедельник', 'встреч', 'перенесл'], ['كتاب', 'جديد'], ['قديم', 'مكتب'], ['قرات', 'كتاب']];
    for (const text of texts) {
      for (const stems of stemLists) {
        const terms = stems.map((stem, i) => ({ stem, idf: 1 + i / 10 }));
        expect(new ProximityScorer(terms).bonus([text]), `${text} / ${stems}`).toBe(proximityBonus(terms, [stemTokens(text)]));
      }
    }
    expect(new ProximityScorer([{ stem: 'встреч', idf: 1 }, { stem: 'инвестор', idf: 2 }]).bonus([texts[0]])).toBeCloseTo(0.3, 12);
    expect(new ProximityScorer([{ stem: 'كتاب', idf: 1 }, { stem: 'جديد', idf: 2 }]).bonus([texts[1]])).toBeCloseTo(0.3, 12);
  });
});

describe('ProximityScorer with many terms over long texts', () => {
  it('gives the bonus proximityBonus gives, whichever letters or digits the terms start with', () => {
    let seed = 11;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const vocab = ['Running', 'runner', 'rain', 'rainy', 'River', 'roads', 'apple', 'APPLES', 'ant', 'zebra', 'zone', '42x', '4th', 'the', 'a', 'happy', 'hopping', 'hop', 'lake', 'Lakes', 'paint', 'painted'];
    for (let round = 0; round < 40; round++) {
      const words = Array.from({ length: 300 + Math.floor(rnd() * 700) }, () => vocab[Math.floor(rnd() * vocab.length)]);
      const text = words.join(rnd() < 0.5 ? ' ' : ', ');
      const stems = [...new Set(Array.from({ length: 2 + Math.floor(rnd() * 30) }, () => stemTokens(vocab[Math.floor(rnd() * vocab.length)])[0]).filter((x): x is string => !!x))];
      const terms = stems.map((stem, i) => ({ stem, idf: 0.5 + ((i * 7) % 5) / 3 }));
      expect(new ProximityScorer(terms).bonus([text])).toBe(proximityBonus(terms, [stemTokens(text)]));
    }
  });
});

describe('keepContenders', () => {
  it('never drops a candidate that the full fusion would rank within the limit', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (const [intent, w] of Object.entries(INTENT_WEIGHTS)) {
      for (let round = 0; round < 200; round++) {
        const limit = 1 + Math.floor(rnd() * 10);
        const found = Array.from({ length: 5 + Math.floor(rnd() * 40) }, (_, i) => {
          const bound = rnd() < 0.5 ? 0 : rnd() * 2;
          return { i, hit: { score: rnd() * 10 }, bound, prox: bound * rnd(), imp: rnd(), rec: rnd(), acc: rnd() };
        });
        const fused = (list: typeof found) => {
          const max = Math.max(...list.map((f) => f.hit.score + f.prox));
          return list
            .map((f) => ({ i: f.i, v: (w.bm25 * (f.hit.score + f.prox)) / max + w.importance * f.imp + w.recency * f.rec + w.access * f.acc }))
            .sort((a, b) => b.v - a.v || a.i - b.i)
            .slice(0, limit);
        };
        const kept = keepContenders(found, w, limit);
        expect(fused(kept), `${intent} round ${round}`).toEqual(fused(found));
      }
    }
  });
});

describe('ProximityScorer', () => {
  it('equals proximityBonus over stemTokens, for any texts and terms', () => {
    let seed = 5;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const words = ['Running', 'runs', 'runner', 'lake', 'LAKES', 'paint', 'painted', 'painting', 'happy', 'happiness', 'sky', 'skies', 'the', 'a', 'of', 'café', 'naïve', 'Déjà', 'x1', '42', 'boat', 'boathouse', 'generalizations', 'general'];
    const seps = [' ', ' ', ', ', '; ', ' -- ', '\n', "'s "];
    const text = () => Array.from({ length: Math.floor(rnd() * 25) }, () => words[Math.floor(rnd() * words.length)] + seps[Math.floor(rnd() * seps.length)]).join('');
    const pool = ['run', 'lake', 'paint', 'happi', 'sky', 'cafe', 'naiv', 'deja', 'x1', '42', 'boat', 'gener', 'boathous', 'absent'];
    for (let round = 0; round < 400; round++) {
      const stems = [...new Set(Array.from({ length: 1 + Math.floor(rnd() * 5) }, () => pool[Math.floor(rnd() * pool.length)]))];
      const terms = stems.map((stem) => ({ stem, idf: 0.5 + rnd() * 3 }));
      const texts = Array.from({ length: 1 + Math.floor(rnd() * 3) }, text);
      const want = proximityBonus(terms, texts.map(stemTokens));
      expect(new ProximityScorer(terms).bonus(texts), `round ${round}: ${JSON.stringify({ stems, texts })}`).toBe(want);
    }
    const scorer = new ProximityScorer([{ stem: 'lake', idf: 2 }, { stem: 'paint', idf: 1 }]);
    expect(scorer.bonus(['Painted by the lake'])).toBeCloseTo(0.3, 12);
    expect(scorer.bonus(['lake one two three four five six seven paint'])).toBe(0);
    // One scorer, many documents: nothing carries over from the one before.
    expect(scorer.bonus(['', 'the lake we paint'])).toBeCloseTo(0.3, 12);
  });
});

describe('columnTerms in scripts written without spaces', () => {
  it('indexes the bigrams of a run, so a two-character word from inside it is a term', () => {
    const { length, stems } = columnTerms('我的名字是王小明。我住在北京。');
    expect(length).toBe(stems.length);
    expect(stems).toEqual(expect.arrayContaining(['王小', '小明', '北京']));
    const ix = new SourceIndex([1]);
    ix.add({ id: 1, scope: 'u', facet: null, columns: ['我喜欢吃苹果和香蕉'] });
    ix.add({ id: 2, scope: 'u', facet: null, columns: ['東京は日本の首都です'] });
    ix.add({ id: 3, scope: 'u', facet: null, columns: ['汉'.repeat(2001)] });
    expect(ix.top('u', [{ stem: '苹果', idf: 1 }], 10, 5).map((t) => t.id)).toEqual([1]);
    expect(ix.top('u', [{ stem: '東京', idf: 1 }], 10, 5).map((t) => t.id)).toEqual([2]);
    expect(ix.top('u', [{ stem: '汉汉', idf: 1 }], 10, 5).map((t) => t.id)).toEqual([3]);
  });

  it('gives the proximity bonus over bigrams as over words', () => {
    const terms = [{ stem: '王小', idf: 1 }, { stem: '小明', idf: 2 }];
    const text = '我的名字是王小明。';
    expect(new ProximityScorer(terms).bonus([text])).toBe(proximityBonus(terms, [stemTokens(text)]));
    expect(new ProximityScorer(terms).bonus([text])).toBeCloseTo(0.3, 12);
  });
});
