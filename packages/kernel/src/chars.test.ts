import { describe, expect, it } from 'vitest';
import { charLength, cutChars, cutUnits, overChars } from './chars.js';

describe('charLength', () => {
  it('counts code points: an emoji or a supplementary ideograph is one character', () => {
    expect(charLength('')).toBe(0);
    expect(charLength('hello')).toBe(5);
    expect(charLength('漢字')).toBe(2);
    expect(charLength('😀')).toBe(1);
    expect(charLength('😀'.repeat(1001))).toBe(1001);
    expect(charLength('a😀b𠀀c')).toBe(5);
    expect(charLength('Remember: my name is Alice ' + '😀'.repeat(20))).toBe(47);
  });

  it('counts a lone surrogate as one character', () => {
    expect(charLength('a\uD83D')).toBe(2);
    expect(charLength('\uDE00b')).toBe(2);
    expect(charLength('\uD83D\uD83D\uDE00')).toBe(2);
  });
});

describe('overChars', () => {
  it('compares code points with the limit', () => {
    expect(overChars('a'.repeat(200), 200)).toBe(false);
    expect(overChars('a'.repeat(201), 200)).toBe(true);
    expect(overChars('😀'.repeat(200), 200)).toBe(false);
    expect(overChars('😀'.repeat(201), 200)).toBe(true);
  });
});

describe('cutChars', () => {
  it('keeps the first max code points, never half of a surrogate pair', () => {
    expect(cutChars('hello', 10)).toBe('hello');
    expect(cutChars('hello', 3)).toBe('hel');
    expect(cutChars('hello', 0)).toBe('');
    expect(cutChars(`${'a'.repeat(278)}😀rest`, 279)).toBe(`${'a'.repeat(278)}😀`);
    expect(cutChars('😀😀😀', 2)).toBe('😀😀');
    expect(cutChars('a😀b😀c', 4)).toBe('a😀b😀');
  });
});

describe('cutUnits', () => {
  it('keeps at most max units, dropping a pair the cut would split', () => {
    expect(cutUnits('hello', 3)).toBe('hel');
    expect(cutUnits('ab😀', 3)).toBe('ab');
    expect(cutUnits('ab😀', 4)).toBe('ab😀');
    expect(cutUnits('😀😀', 3)).toBe('😀');
  });
});
