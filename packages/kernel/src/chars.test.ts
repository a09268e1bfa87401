import { describe, expect, it } from 'vitest';
import { charLength, overChars } from './chars.js';

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
