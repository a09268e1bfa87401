/** Progress lines on stderr (stdout stays for results). */
import { performance } from 'node:perf_hooks';

export function note(message: string): void {
  process.stderr.write(`${message}\n`);
}

/** A counter that reports at most every `everyMs` and at completion. */
export class Progress {
  private last = 0;
  private readonly start = performance.now();

  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly everyMs = 2000,
  ) {}

  tick(done: number): void {
    const now = performance.now();
    if (done < this.total && now - this.last < this.everyMs) return;
    this.last = now;
    const secs = (now - this.start) / 1000;
    const rate = secs > 0 ? Math.round(done / secs) : 0;
    note(`  ${this.label}: ${done}/${this.total} (${secs.toFixed(1)} s, ${rate}/s)`);
  }
}
