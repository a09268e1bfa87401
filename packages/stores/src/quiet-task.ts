/** Work done once writes pause (Stores' index catch-up and idle rebuild): one unref'd timer per task. */

/**
 * Work run once `quietMs` have passed since the last write (`since()`, a performance.now() time):
 * armed after each write, it waits again for as long as writes keep coming, or, given `maxWaitMs`,
 * at most that long after it was armed. Its timer never keeps the process alive, and the work is
 * only done ahead of time (a search does it itself), so a failure is left to that search to report.
 */
export class QuietTask {
  private timer: NodeJS.Timeout | null = null;
  /** performance.now() when the task was armed after its last run. */
  private armedAt = 0;

  constructor(
    private readonly quietMs: number,
    private readonly since: () => number,
    private readonly task: () => void,
    private readonly maxWaitMs = Infinity,
  ) {}

  /** Wait for the quiet time, unless already waiting. */
  arm(ms = this.quietMs): void {
    if (this.timer) return;
    this.armedAt = performance.now();
    this.wait(ms);
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private wait(ms: number): void {
    this.timer = setTimeout(() => this.fire(), ms);
    this.timer.unref();
  }

  private fire(): void {
    this.timer = null;
    const now = performance.now();
    const quiet = now - this.since();
    const waited = now - this.armedAt;
    if (quiet < this.quietMs && waited < this.maxWaitMs) return this.wait(Math.min(this.quietMs - quiet, this.maxWaitMs - waited));
    try {
      this.task();
    } catch {
      // Only done ahead of time: the next search does it itself, and reports what fails.
    }
  }
}
