import { describe, expect, it } from 'vitest';
import { seededRandom } from '@memory-service/kernel';
import { MY_NOUN_IS } from './importance.js';
import { anyOf, asciiEntities, isAllCaps, isAscii, namedEntities, normalize, TWIN_PATTERNS, unicodeEntities, wordsOf } from './text.js';

/** Random ASCII texts built from pieces the scorers care about: capitals, digits, apostrophes, punctuation. */
function asciiTexts(n: number, seed: number): string[] {
  const rand = seededRandom(seed);
  const pieces = [
    'my', 'name', 'is', 'dog', "Dog's", 'are', 'was', 'I', "I'm", 'a', 'an', 'NASA', 'HATE', 'Alice', 'McDonald',
    'x-ray', "rock'n'roll", "don't", 'O\'Neil', 'B2B', '42', '3.14', 'a_b', '_', '-', "'", '"', '(', ')', ',', '.',
    '!', '?', ':', ';', '\n', '\t', '  ', 'Monday', 'may', 'May', 'remember', 'never', 'we', 'will', 'secret', 'pin',
    'Z', 'zz', 'Q1', "'quoted'", '--dash', 'end.', 'OK!', 'e.g.', '#tag', '@you', '~', '`', '\\', '{}',
  ];
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const len = 1 + Math.floor(rand() * 14);
    let text = '';
    for (let j = 0; j < len; j++) text += (rand() < 0.8 ? ' ' : '') + pieces[Math.floor(rand() * pieces.length)];
    out.push(text);
  }
  return out;
}

describe('ASCII twins of the Unicode patterns', () => {
  const texts = asciiTexts(1500, 3);

  it('agree with their Unicode pattern on ASCII text', () => {
    for (const text of texts) {
      for (const t of [text, text.toLowerCase()]) {
        expect(isAscii(t)).toBe(true);
        expect(t.match(TWIN_PATTERNS.word[1])).toEqual(t.match(TWIN_PATTERNS.word[0]));
        expect(MY_NOUN_IS[1].exec(t)?.[1]).toBe(MY_NOUN_IS[0].exec(t)?.[1]);
        for (const token of t.split(/\s+/)) {
          expect(TWIN_PATTERNS.capitalised[1].test(token)).toBe(TWIN_PATTERNS.capitalised[0].test(token));
          // isAllCaps reads an ASCII token by character codes: the same answer as its definition.
          expect(isAllCaps(token)).toBe(token.length >= 2 && /\p{Lu}/u.test(token) && token === token.toUpperCase());
        }
      }
    }
  });

  it('give the same named entities in one scan as by splitting sentences and tokens', () => {
    let found = 0;
    for (const text of [...texts, 'Hi. We met Bob:  Ann;\tEve!\n\nZed? NASA NASA Bob', ' . Bob Ann', 'x\r\nBob Ann\n', '']) {
      const expected = unicodeEntities(text);
      expect(asciiEntities(text), JSON.stringify(text)).toEqual(expected);
      found += expected.length;
    }
    expect(found).toBeGreaterThan(500);
  });

  it('are not used for text beyond ASCII', () => {
    expect(isAscii('café')).toBe(false);
    expect(isAscii('it’s')).toBe(false);
    expect(wordsOf('Ça va, Zoë? 東京 ok')).toEqual(['Ça', 'va', 'Zoë', '東京', 'ok']);
    expect(wordsOf(normalize('It’s ÉTÉ').toLowerCase())).toEqual(["it's", 'été']);
    expect(isAllCaps('ÉTÉ')).toBe(true);
    expect(isAllCaps('Été')).toBe(false);
    expect(['AÉ', 'aÉ', 'ÉA', 'ÉTa', 'Aé', '東京', 'A東'].map(isAllCaps)).toEqual([true, false, true, false, false, false, true]);
    expect(namedEntities('We met Zoë and Ørjan in Tromsø.')).toEqual(['Zoë', 'Ørjan', 'Tromsø']);
  });
});

describe('anyOf', () => {
  it('matches exactly where one of its patterns matches', () => {
    const patterns = [/\bwe will\b/, /\bwe'll\b/, /\bgoing with\b/, /\d/, /\b(?:mon|tues)days?\b/];
    const any = anyOf(patterns);
    for (const text of asciiTexts(1500, 5).map((t) => `${t} ${t.length % 3 === 0 ? 'we will' : t.length % 3 === 1 ? 'mondays' : ''}`.toLowerCase())) {
      expect(any.test(text)).toBe(patterns.some((p) => p.test(text)));
    }
  });
});
