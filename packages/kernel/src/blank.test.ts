import { describe, expect, it } from 'vitest';
import { isBlank } from './blank.js';

describe('isBlank', () => {
  it('is true for text that shows nothing: white space and default-ignorable code points only', () => {
    for (const s of ['', ' ', '\t\n\r', '\u00a0\u3000', '\u200b', '\u200c\u200d', '\u2060\ufeff', '\u00ad', '\ufe0f', '\u3164', '\u200e\u202e', ' \u{E0041}\u{E007F} ']) {
      expect(isBlank(s), JSON.stringify(s)).toBe(true);
    }
  });

  it('is false once one character shows', () => {
    for (const s of ['a', ' \u200bx', '.', '0', '☕', '\u200d🚢', 'ß', '中', '\u0301', '\u{1F600}']) {
      expect(isBlank(s), JSON.stringify(s)).toBe(false);
    }
  });
});
