import { describe, expect, it } from 'vitest';
import { carriesValue, holdsStartOf, isExcerptOf, prefilterTerm } from './forgetter.js';

/** carriesValue: which L3 / graph records an exact forget also removes. */
describe('carriesValue', () => {
  it('a distinctive value (3+ words) matches where it is contained', () => {
    expect(carriesValue('At dinner we agreed my birthday is March 3 as usual', 'my birthday is March 3')).toBe(true);
    expect(carriesValue('my birthday is in spring', 'my birthday is March 3')).toBe(false);
  });

  it('a distinctive value (16+ characters, one word) matches where it is contained', () => {
    expect(carriesValue('see https://example.org/a-long-path today', 'https://example.org/a-long-path')).toBe(true);
    expect('supercalifragilistic'.length).toBeGreaterThanOrEqual(16);
    expect(carriesValue('it was supercalifragilistic indeed', 'supercalifragilistic')).toBe(true);
  });

  it('a short value matches only a record that says exactly that', () => {
    expect(carriesValue('yes', 'yes')).toBe(true);
    expect(carriesValue('  YES ', 'yes')).toBe(true);
    expect(carriesValue('yes please, two sugars', 'yes')).toBe(false);
    expect(carriesValue('dark mode everywhere', 'dark mode')).toBe(false);
    expect(carriesValue('Dark   Mode', 'dark mode')).toBe(true);
  });

  it('a value of 15 characters in two words is still short', () => {
    const v = 'blue whale tank';
    expect(v.split(' ')).toHaveLength(3);
    const two = 'bluewhale tanks';
    expect(two.length).toBe(15);
    expect(carriesValue(`the ${two} are full`, two)).toBe(false);
    expect(carriesValue(`the ${v} is full`, v)).toBe(true);
  });

  it('ignores case and collapses whitespace on both sides', () => {
    expect(carriesValue('MY  BIRTHDAY\nIS march 3, remember', 'my birthday is March   3')).toBe(true);
  });

  it('folds accents, full-width forms and case on both sides, as dream does', () => {
    expect(carriesValue('café zurich', 'Café Zürich')).toBe(true);
    expect(carriesValue('\uff23\uff21\uff26\uff25 ZÜRICH', 'Café Zürich')).toBe(true);
    expect(carriesValue('Cafe\u0301 Zu\u0308rich', 'Café Zürich')).toBe(true);
    // A short value still matches only a record that says exactly that.
    expect(carriesValue('I love café zurich', 'Café Zürich')).toBe(false);
    expect(carriesValue('we met at the CAFE ZURICH by the lake on Sunday', 'the Café Zürich by the lake')).toBe(true);
  });

  it('an empty or blank value matches nothing', () => {
    expect(carriesValue('anything at all', '')).toBe(false);
    expect(carriesValue('', '   ')).toBe(false);
  });
});

describe('isExcerptOf', () => {
  it('takes a record ending in an ellipsis that starts the value, at least 16 characters, folded', () => {
    const value = 'We met at the Café Zürich by the lake and stayed until the evening';
    expect(isExcerptOf('We met at the café zurich by…', value)).toBe(true);
    expect(isExcerptOf('WE MET AT THE \uff23\uff21\uff26\uff25 zurich…  ', value)).toBe(true);
    expect(isExcerptOf('We met at the café zurich by', value)).toBe(false);
    expect(isExcerptOf('We met at…', value)).toBe(false);
    expect(isExcerptOf('We met at the tea house…', value)).toBe(false);
  });
});

describe('prefilterTerm', () => {
  it('is the longest piece of the first 16 folded characters between white space and characters JSON escapes', () => {
    expect(prefilterTerm('  Remember:   my name is Alice')).toBe('remember:');
    expect(prefilterTerm('The value number 1500 is blue')).toBe('number');
    expect(prefilterTerm('Supercalifragilisticexpialidocious words')).toBe('supercalifragili');
    expect(prefilterTerm('say"hello" to all')).toBe('hello');
    expect(prefilterTerm('"quoted" first')).toBe('quoted');
    expect(prefilterTerm('a\tb\\c d')).toBe('a');
    expect(prefilterTerm('\uff23\uff21\uff26\uff25 Zürich')).toBe('zurich');
    expect(prefilterTerm(' " \n ')).toBe('');
  });

  /**
   * The stores' prefilter (foldedTermsFilter) reads a row only when its raw text holds the term
   * (LIKE: ASCII case ignored) or has a character beyond ASCII: every ASCII record, and every
   * metadata JSON, that the tests forget makes take must hold the term.
   */
  it('is held by every record that carries, excerpts or holds the start of the text (seeded random texts)', () => {
    let seed = 7;
    const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n);
    const words = ['the', 'a', 'Value', 'NUMBER', '1500', 'is', 'say"hi"', 'tab\there', 'back\\slash', 'x', 'Supercalifragilistic', 'e-mail', 'of'];
    const spaces = [' ', '  ', '\n', '\t '];
    const text = (n: number) => Array.from({ length: n }, () => words[rnd(words.length)]).join(spaces[rnd(spaces.length)]);
    for (let i = 0; i < 2000; i++) {
      const value = text(1 + rnd(8));
      const term = prefilterTerm(value);
      const records = [
        value,
        `${text(rnd(4))} ${value} ${text(rnd(4))}`,
        `${text(rnd(3))} ${value.slice(0, 16 + rnd(Math.max(1, value.length - 15)))}`,
        `${value.slice(0, 16 + rnd(Math.max(1, value.length - 15)))}…`,
        value.toUpperCase(),
      ];
      for (const r of records) {
        const held = carriesValue(r, value) || isExcerptOf(r, value) || holdsStartOf(r, value);
        if (!held) continue;
        expect(term === '' || r.toLowerCase().includes(term), `${JSON.stringify(r)} holds ${JSON.stringify(term)}`).toBe(true);
        expect(term === '' || JSON.stringify({ summary: r }).toLowerCase().includes(term), `the JSON of ${JSON.stringify(r)} holds ${JSON.stringify(term)}`).toBe(true);
      }
    }
  });
});

/** holdsStartOf: which episodes' neighbouring contexts exact and fuzzy forget clear. */
describe('holdsStartOf', () => {
  const text = 'Remember the long plan for the garden and its tomatoes this season';
  it('holds a text whole, or its start of 16+ characters cut off at the end', () => {
    expect(holdsStartOf(`earlier thought\n${text}\nlater thought`, text)).toBe(true);
    expect(holdsStartOf(`earlier thought\n${text.slice(0, 30)}`, text)).toBe(true);
    expect(holdsStartOf(`earlier thought\nREMEMBER THE LONG PLAN`, text)).toBe(true);
  });

  it('does not hold a start shorter than 16 characters, or one the context goes on past', () => {
    expect(holdsStartOf(`earlier thought\n${text.slice(0, 12)}`, text)).toBe(false);
    expect(holdsStartOf(`${text.slice(0, 30)} and then something else`, text)).toBe(false);
    expect(holdsStartOf('anything', '   ')).toBe(false);
  });
});
