import { describe, expect, it } from 'vitest';
import { MemoryError, thrownValue, toMemoryError } from './errors.js';

describe('a thrown value that is not an Error', () => {
  it('is shown by its JSON, cut short, instead of "[object Object]"', () => {
    expect(toMemoryError({ weird: 1 }, 'p')).toMatchObject({ code: 'KERNEL_ERR_TOOL_FAILED', plugin: 'p', message: 'threw a value that is not an Error: {"weird":1}' });
    const long = thrownValue({ text: 'x'.repeat(500) });
    expect(long).toMatch(/^threw a value that is not an Error: \{"text":"x+\.\.\.$/);
    expect(long.length).toBe('threw a value that is not an Error: '.length + 200);
    expect(thrownValue([1, 2])).toBe('threw a value that is not an Error: [1,2]');
  });

  it('a string is its own message, an object with a message gives it, a cycle or a BigInt is named by its kind', () => {
    expect(toMemoryError('plain words').message).toBe('plain words');
    expect(thrownValue({ message: 'from a message field', code: 7 })).toBe('from a message field');
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(thrownValue(cycle)).toBe('threw a value that is not an Error: an object JSON cannot write');
    expect(thrownValue({ n: 1n })).toBe('threw a value that is not an Error: an object JSON cannot write');
    expect(thrownValue(42)).toBe('42');
    expect(thrownValue(null)).toBe('null');
    expect(thrownValue(undefined)).toBe('undefined');
  });

  it('Errors and coded errors keep their messages', () => {
    expect(toMemoryError(new Error('boom')).message).toBe('boom');
    expect(toMemoryError(new MemoryError('KERNEL_ERR_VALUE', 'bad value')).message).toBe('bad value');
  });
});
