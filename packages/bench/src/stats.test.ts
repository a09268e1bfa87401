import { describe, expect, it } from 'vitest';
import { mean, percentile, summarize } from './stats.js';

describe('percentile', () => {
  it('interpolates between the closest ranks', () => {
    const v = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(percentile(v, 50)).toBeCloseTo(5.5);
    expect(percentile(v, 95)).toBeCloseTo(9.55);
    expect(percentile(v, 0)).toBe(1);
    expect(percentile(v, 100)).toBe(10);
  });

  it('does not depend on input order and leaves the input alone', () => {
    const v = [9, 1, 5, 3, 7];
    expect(percentile(v, 50)).toBe(5);
    expect(v).toEqual([9, 1, 5, 3, 7]);
  });

  it('handles one value and no value', () => {
    expect(percentile([4.2], 95)).toBe(4.2);
    expect(percentile([], 50)).toBeNaN();
  });

  it('rejects percentiles outside 0..100', () => {
    expect(() => percentile([1], 101)).toThrow(RangeError);
    expect(() => percentile([1], -1)).toThrow(RangeError);
  });

  it('summarizes p50, p95 and the count', () => {
    const v = Array.from({ length: 101 }, (_, i) => i);
    expect(summarize(v)).toEqual({ p50: 50, p95: 95, count: 101 });
    expect(mean([1, 2, 3])).toBe(2);
  });
});
