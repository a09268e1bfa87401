/** Summary statistics for latency samples. */

/**
 * The p-th percentile (0..100) of the values, by linear interpolation between the closest ranks
 * (the same definition as numpy's default). NaN for an empty list.
 */
export function percentile(values: readonly number[], p: number): number {
  if (!Number.isFinite(p) || p < 0 || p > 100) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  if (lo === hi) return sorted[lo];
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
}

/** Arithmetic mean; NaN for an empty list. */
export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

export interface LatencySummary {
  p50: number;
  p95: number;
  count: number;
}

/** p50 and p95 of a list of durations in milliseconds. */
export function summarize(values: readonly number[]): LatencySummary {
  return { p50: percentile(values, 50), p95: percentile(values, 95), count: values.length };
}
