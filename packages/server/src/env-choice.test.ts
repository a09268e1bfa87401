import { describe, expect, it } from 'vitest';
import { envChoice } from './env-choice.js';

describe('envChoice', () => {
  it('gives the first word when the variable is unset or empty, and any word it takes as given', () => {
    expect(envChoice({}, 'X', ['a', 'b'])).toBe('a');
    expect(envChoice({ X: '' }, 'X', ['a', 'b'])).toBe('a');
    expect(envChoice({ X: 'a' }, 'X', ['a', 'b'])).toBe('a');
    expect(envChoice({ X: 'b' }, 'X', ['a', 'b'])).toBe('b');
  });

  it('refuses anything else, naming the variable, the words it takes and what it got', () => {
    expect(() => envChoice({ X: 'B' }, 'X', ['a', 'b'])).toThrow('X must be a or b, got "B"');
    expect(() => envChoice({ X: 'd' }, 'X', ['a', 'b', 'c'])).toThrow('X must be one of a, b, c, got "d"');
  });
});
