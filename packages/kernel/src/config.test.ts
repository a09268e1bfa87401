import { describe, expect, it } from 'vitest';
import { Config } from './config.js';

describe('Config.number and Config.integer', () => {
  it.each([
    [{ notes: { limit: 'abc' } }, 'config notes.limit must be an integer in [1, 100]; got "abc"'],
    [{ notes: { limit: 500 } }, 'config notes.limit must be an integer in [1, 100]; got 500'],
    [{ notes: { limit: 2.5 } }, 'config notes.limit must be an integer in [1, 100]; got 2.5'],
  ])('a value out of range or of the wrong type is refused naming the key, what it accepts and the value given (%j)', (data, message) => {
    expect(() => new Config(data).integer('notes.limit', 10, 1, 100)).toThrow(message);
  });

  it('a number setting says the value given too', () => {
    expect(() => new Config({ notes: { ratio: -1 } }).number('notes.ratio', 0.5, 0, 1)).toThrow('config notes.ratio must be a number in [0, 1]; got -1');
    expect(new Config({ notes: { ratio: 0.25 } }).number('notes.ratio', 0.5, 0, 1)).toBe(0.25);
  });
});
