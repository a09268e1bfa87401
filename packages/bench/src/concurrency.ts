/** Running a numbered task list with a bounded number in flight. */

/**
 * Run task(0) .. task(count - 1) with at most `concurrency` pending at once; resolves when all are
 * done and rejects on the first failure (tasks already started are left to finish).
 */
export async function runPool(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<unknown>,
  onDone?: (done: number) => void,
): Promise<void> {
  let next = 0;
  let done = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < count) {
      const i = next++;
      try {
        await task(i);
      } catch (err) {
        failed = true;
        throw err;
      }
      done++;
      onDone?.(done);
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, () => worker());
  await Promise.all(workers);
}
