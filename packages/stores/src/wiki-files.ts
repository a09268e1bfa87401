import fs from 'node:fs';
import type { StoreContext } from './context.js';
import { safeJoin, writeFileAtomic } from './paths.js';

/** First delay before a wiki page file that could not be written is tried again; it doubles with each failure in a row. */
export const WIKI_FILE_RETRY_MS = 1000;
/** Longest delay between two tries of a wiki page file that cannot be written. */
export const WIKI_FILE_RETRY_MAX_MS = 60_000;

/**
 * The page files that could not be written or removed after their row committed (a read-only or
 * full disk, a folder in the way). The row is canonical and committed, so the call that saved it
 * succeeded: the failure is reported on the logger, reads of such a page take its row's text, and
 * the file is made equal to the row again later: by the next change of that file, on a timer
 * (WIKI_FILE_RETRY_MS, doubling up to WIKI_FILE_RETRY_MAX_MS), at flush, or by the repair at the
 * next start (WikiStore.repairRecent).
 */
export class WikiFilesBehind {
  /** Paths relative to the data dir, with forward slashes, as in wiki_pages.path. */
  private readonly paths = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  /** Retries in a row that left a file behind. */
  private failures = 0;

  constructor(private readonly ctx: StoreContext) {}

  /** Whether the file at `rel` is behind its row (reads take the row). */
  has(rel: string): boolean {
    return this.paths.has(rel);
  }

  get size(): number {
    return this.paths.size;
  }

  /**
   * Make a change to the file at `rel` (`what` names it in the log). Never throws: a failure notes
   * the file as behind and schedules a retry. A success clears what an earlier failure noted.
   */
  apply(rel: string, what: string, change: () => void): void {
    try {
      change();
      this.paths.delete(rel);
    } catch (err) {
      this.paths.add(rel);
      const delay = this.schedule();
      this.ctx.logger.error(`${what} ${rel} failed (the page's row is stored; tried again in ${delay} ms): ${(err as Error).message}`);
    }
  }

  /**
   * Try every file behind again now: each is written with the text of the row that has its path,
   * or removed when no row has it. Never throws; returns how many are still behind.
   */
  retry(): number {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.paths.size === 0 || !this.ctx.db.open) return this.paths.size;
    // The row read must be a committed one: inside a transaction, wait for the next try.
    if (this.ctx.db.inTransaction) {
      this.schedule();
      return this.paths.size;
    }
    let lastError: unknown = null;
    for (const rel of [...this.paths]) {
      try {
        const row = this.ctx.stmt('SELECT content FROM wiki_pages WHERE path = ?').get(rel) as { content: string } | undefined;
        const abs = safeJoin(this.ctx.dataDir, rel);
        if (row) writeFileAtomic(abs, row.content);
        else fs.rmSync(abs, { force: true });
        this.paths.delete(rel);
      } catch (err) {
        lastError = err;
      }
    }
    if (this.paths.size === 0) {
      if (this.failures > 0) this.ctx.logger.info('wiki page files are written again');
      this.failures = 0;
      return 0;
    }
    const delay = this.schedule(true);
    this.ctx.logger.error(
      `${this.paths.size} wiki page file(s) still cannot be written (tried again in ${delay} ms): ${(lastError as Error).message}`,
    );
    return this.paths.size;
  }

  /** Arm the retry timer unless armed (`again`: after a failed retry, with a longer delay); returns its delay. */
  private schedule(again = false): number {
    if (again) this.failures++;
    const delay = Math.min(WIKI_FILE_RETRY_MS * 2 ** this.failures, WIKI_FILE_RETRY_MAX_MS);
    if (!this.timer) {
      this.timer = setTimeout(() => this.retry(), delay);
      // A pending retry never keeps the process alive: the repair at the next start takes over.
      this.timer.unref();
    }
    return delay;
  }
}
