/**
 * Upper bounds, in seconds, of the buckets of the tool-call duration histogram (the server's
 * /metrics publishes them as `le`): from half a millisecond, under which think and dream answer,
 * to 5 s, which a backup or an import of a large scope may take; a slower call falls in +Inf only.
 */
export const CALL_DURATION_BUCKETS: readonly number[] = Object.freeze([0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]);

/** The same bounds in milliseconds, as performance.now() measures: no division on the call path. */
const BOUNDS_MS = Float64Array.from(CALL_DURATION_BUCKETS, (s) => s * 1000);

/**
 * The calls of one registered tool since the kernel was made: how many answered and how many
 * failed (bad arguments, a handler that threw or rejected, an answer its output schema refused),
 * and their durations in CALL_DURATION_BUCKETS. Counting one call allocates nothing: two reads of
 * the monotonic clock (start, end), two additions and a bucket increment.
 */
export class ToolCallStats {
  /** Calls that answered. */
  ok = 0;
  /** Calls that failed. */
  error = 0;
  /** Milliseconds of every call counted, added up. */
  totalMs = 0;
  /**
   * Calls per bucket, not cumulative: index i counts the durations above bound i - 1 and at most
   * bound i; the last index, those above the last bound.
   */
  readonly perBucket = new Float64Array(BOUNDS_MS.length + 1);

  /** Count one call that began at `start` (performance.now()) and settled now. */
  done(ok: boolean, start: number): void {
    const ms = performance.now() - start;
    if (ok) this.ok++;
    else this.error++;
    this.totalMs += ms;
    let i = 0;
    while (i < BOUNDS_MS.length && ms > BOUNDS_MS[i]) i++;
    this.perBucket[i]++;
  }

  /**
   * Run fn and count it: answered when it returns, failed when it throws (thrown on). For a call
   * answered synchronously; `start` (performance.now()) when the call began before fn.
   */
  time<T>(fn: () => T, start = performance.now()): T {
    let value: T;
    try {
      value = fn();
    } catch (err) {
      this.done(false, start);
      throw err;
    }
    this.done(true, start);
    return value;
  }

  /** Calls counted, answered or failed. */
  get count(): number {
    return this.ok + this.error;
  }
}
