import { seededRandom } from '@memory-service/kernel';
import { describe, expect, it } from 'vitest';
import { carriesValue, holdsStartOf, isExcerptOf } from './forgetter.js';
import { ForgottenTexts, WINDOW } from './forgotten-texts.js';

/** Few words, so texts overlap, share starts and cut each other off as real contexts do. */
const WORDS = ['the', 'cat', 'Café', 'sat', 'on', 'a', 'mat', 'near', 'Zürich', 'CAFE', 'violin', 'lessons', 'x', '日本', 'yes'];

function words(next: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(WORDS[Math.floor(next() * WORDS.length)]!);
  return out.join(next() < 0.2 ? '  ' : ' ');
}

describe('ForgottenTexts', () => {
  it('answers as testing each text in turn with carriesValue, isExcerptOf and holdsStartOf', () => {
    const wrong: unknown[] = [];
    for (let seed = 1; seed <= 60; seed++) {
      const next = seededRandom(seed);
      const texts = Array.from({ length: 1 + Math.floor(next() * 12) }, () => words(next, 1 + Math.floor(next() * 8)));
      const forgotten = new ForgottenTexts(texts);
      for (let k = 0; k < 150; k++) {
        let record = words(next, Math.floor(next() * 14));
        const pick = texts[Math.floor(next() * texts.length)]!;
        const roll = next();
        // Records that hold a text, its cut start, or an excerpt of it, as well as unrelated ones.
        if (roll < 0.25) record = `${record} ${pick} ${words(next, 2)}`;
        else if (roll < 0.45) record = `${record} ${pick.slice(0, Math.floor(next() * (pick.length + 1)))}`;
        else if (roll < 0.6) record = `${pick.slice(0, WINDOW + Math.floor(next() * 10))}…`;
        else if (roll < 0.7) record = pick.toUpperCase();
        const carried = texts.some((t) => carriesValue(record, t) || isExcerptOf(record, t));
        const held = texts.some((t) => holdsStartOf(record, t));
        if (forgotten.carriedBy(record) !== carried) wrong.push({ seed, texts, record, carried });
        if (forgotten.startHeldBy(record) !== held) wrong.push({ seed, texts, record, held });
      }
    }
    expect(wrong).toEqual([]);
  });

  it('finds a long text whole, its start cut off at the end, and an excerpt of it', () => {
    const forgotten = new ForgottenTexts(['I take violin lessons on Tuesdays with Mr Novak']);
    expect(forgotten.carriedBy('Note: i take VIOLIN lessons on tuesdays with mr novak, weekly')).toBe(true);
    expect(forgotten.carriedBy('I take violin lessons on…')).toBe(true);
    expect(forgotten.carriedBy('I take violin…')).toBe(false);
    expect(forgotten.startHeldBy('earlier: I take violin lessons on Tue')).toBe(true);
    expect(forgotten.startHeldBy('earlier: I take violin lessons on Tue and more')).toBe(false);
    expect(forgotten.startHeldBy('I take violin')).toBe(false);
  });

  it('matches a short value only as the whole record, and a short text of three words where contained', () => {
    const forgotten = new ForgottenTexts(['yes', 'a b c', '  ']);
    expect(forgotten.size).toBe(2);
    expect(forgotten.carriedBy(' YES ')).toBe(true);
    expect(forgotten.carriedBy('yes please')).toBe(false);
    expect(forgotten.carriedBy('x a b c y')).toBe(true);
    expect(forgotten.startHeldBy('oh yes please')).toBe(true);
  });

  it('stays exact when windows share a hash bucket: a hit is checked against the text itself', () => {
    const texts = Array.from({ length: 5_000 }, (_, i) => `memory number ${i} about the garden`);
    const forgotten = new ForgottenTexts(texts);
    expect(forgotten.carriedBy('memory number 4999 about the garden, again')).toBe(true);
    expect(forgotten.carriedBy('memory number 5000 about the garden')).toBe(false);
    expect(forgotten.startHeldBy('... memory number 12 about the gar')).toBe(true);
    expect(forgotten.startHeldBy('... memory number 12 about a garden')).toBe(false);
  });
});
