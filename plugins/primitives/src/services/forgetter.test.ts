import { describe, expect, it } from 'vitest';
import { carriesValue, leadingChars } from './forgetter.js';

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

  it('an empty or blank value matches nothing', () => {
    expect(carriesValue('anything at all', '')).toBe(false);
    expect(carriesValue('', '   ')).toBe(false);
  });
});

describe('leadingChars', () => {
  it('is the first word, lower-cased, at most 16 characters, cut before a character JSON escapes', () => {
    expect(leadingChars('  Remember:   my name is Alice')).toBe('remember:');
    expect(leadingChars('Supercalifragilisticexpialidocious words')).toBe('supercalifragili');
    expect(leadingChars('say"hello" to all')).toBe('say');
    expect(leadingChars('"quoted" first')).toBe('');
  });
});
