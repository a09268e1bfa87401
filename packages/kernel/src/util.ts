/** Small helpers the kernel's modules share; not part of the package's exports. */

/**
 * A value computed on first read and kept (used where work is deferred from start-up to first use:
 * a surface's JSON schemas, a plugin's tool schemas file).
 */
export function once<T>(compute: () => T): () => T {
  let done = false;
  let value: T;
  return () => {
    if (!done) {
      value = compute();
      done = true;
    }
    return value;
  };
}

/** Whether a value is a plain object (not null, not an array). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
