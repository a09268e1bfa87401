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

/**
 * Whether `work` settles within `ms`: true once it does (its rejection is thrown), false when the
 * time runs out first. The timer is cleared either way, so it never holds the process.
 */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([work.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}
