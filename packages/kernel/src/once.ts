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
