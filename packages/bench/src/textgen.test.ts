import { describe, expect, it } from 'vitest';
import { Prng } from './prng.js';
import { MAX_TEXT_LENGTH, MIN_TEXT_LENGTH, TextGenerator } from './textgen.js';
import { QUERY_WORDS } from './vocabulary.js';

describe('Prng', () => {
  it('repeats for a seed and differs across seeds', () => {
    const a = new Prng(7);
    const b = new Prng(7);
    const c = new Prng(8);
    const sa = Array.from({ length: 5 }, () => a.next());
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(sa);
    expect(Array.from({ length: 5 }, () => c.next())).not.toEqual(sa);
    for (const v of sa) expect(v >= 0 && v < 1).toBe(true);
  });
});

describe('TextGenerator', () => {
  it('is deterministic for a seed', () => {
    const a = new TextGenerator(42);
    const b = new TextGenerator(42);
    for (let i = 0; i < 50; i++) {
      expect(a.nextText()).toBe(b.nextText());
      expect(a.nextQuery()).toBe(b.nextQuery());
    }
    expect(new TextGenerator(43).nextText()).not.toBe(new TextGenerator(42).nextText());
  });

  it('makes sentences of 60 to 200 characters, mostly distinct', () => {
    const g = new TextGenerator(1);
    const texts = Array.from({ length: 2000 }, () => g.nextText());
    for (const t of texts) {
      expect(t.length).toBeGreaterThanOrEqual(MIN_TEXT_LENGTH);
      expect(t.length).toBeLessThanOrEqual(MAX_TEXT_LENGTH);
      expect(t).toMatch(/^[A-Z].*\.$/);
    }
    expect(new Set(texts).size).toBeGreaterThan(1990);
  });

  it('makes queries of vocabulary words that occur in the texts', () => {
    const g = new TextGenerator(3);
    const corpus = Array.from({ length: 2000 }, () => g.nextText().toLowerCase()).join(' ');
    let hits = 0;
    for (let i = 0; i < 100; i++) {
      const words = g.nextQuery().split(' ');
      expect(words.length).toBeGreaterThanOrEqual(1);
      expect(words.length).toBeLessThanOrEqual(3);
      for (const w of words) expect(QUERY_WORDS).toContain(w);
      if (words.some((w) => corpus.includes(w.toLowerCase()))) hits++;
    }
    expect(hits).toBe(100);
  });
});
