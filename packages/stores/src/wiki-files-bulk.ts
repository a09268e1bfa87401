import { performance } from 'node:perf_hooks';
import type { StoreContext } from './context.js';
import { clearFileNotes } from './file-notes.js';
import type { PageFileText } from './wiki-files.js';

/**
 * Longest run of page file work one turn of the event loop does after a bulk writer's commit
 * (BulkPageFiles): then the loop serves what is waiting (other clients, timers) before the next slice.
 */
export const WIKI_FILE_SLICE_MS = 8;
/** Delay before a slice tries again when it finds a transaction open on the connection (its reads would not be committed rows). */
export const WIKI_FILE_SLICE_WAIT_MS = 5;

/** What a queued path's file owes: the notes that name it (wiki_file_writes, wiki_file_removals). */
interface Owed {
  write: boolean;
  removal: boolean;
}

/** How BulkPageFiles makes one file hold its row (WikiFilesBehind.mirror): true when the file is settled. */
export type MirrorFile = (rel: string, what: string, text: PageFileText) => boolean;

/**
 * The page files a bulk writer's committed transaction owes (memory_data import: a replace removes
 * every page file of the scope and writes every imported page's, 1,675 of each at 48 MB), made to
 * match their rows a slice at a time after the commit (WIKI_FILE_SLICE_MS of work, then the event
 * loop's turn), where each was written or removed by a hook of its own right after the commit, all
 * in the same turn: 0.6-1.1 s in which the server answered no one. Each file is made to hold the
 * row that has its path when its slice comes (removed when none has it) and followed as a single
 * save's file is (mirror: another process's later commit wins), its notes cleared once per slice.
 * Until then `has` says the file is not the page's text, so reads take the row. The notes commit
 * with the rows, so a process stopped before the last slice leaves the rest to the next start
 * (finishWrites, finishRemovals); flush and close finish the queue at once (drain).
 */
export class BulkPageFiles {
  /** Paths relative to the data dir, in the order their work was queued. */
  private readonly queued = new Map<string, Owed>();
  private next: NodeJS.Immediate | NodeJS.Timeout | null = null;

  constructor(
    private readonly ctx: StoreContext,
    private readonly mirror: MirrorFile,
    /** Clear the wiki_file_writes notes of files settled (WikiFilesBehind.clearWrites). */
    private readonly clearWrites: (rels: readonly string[]) => void,
  ) {}

  /** Whether the file at `rel` still waits for its slice. */
  has(rel: string): boolean {
    return this.queued.has(rel);
  }

  get size(): number {
    return this.queued.size;
  }

  /** Queue the files a committed bulk writer owes: written (`writes`) and removed (`removals`), each as its row says when its slice comes. */
  add(writes: readonly string[], removals: readonly string[]): void {
    const owed = (rel: string): Owed => {
      let o = this.queued.get(rel);
      if (!o) this.queued.set(rel, (o = { write: false, removal: false }));
      return o;
    };
    for (const rel of removals) owed(rel).removal = true;
    for (const rel of writes) owed(rel).write = true;
    if (this.queued.size > 0) this.arm(false);
  }

  /** Do every queued file now (flush, close). */
  drain(): void {
    this.disarm();
    this.work(Infinity);
  }

  /** Stop the slices (the database is closing): what is left stays noted for the next start. */
  stop(): void {
    this.disarm();
  }

  private arm(wait: boolean): void {
    if (this.next) return;
    this.next = wait ? setTimeout(() => this.slice(), WIKI_FILE_SLICE_WAIT_MS) : setImmediate(() => this.slice());
  }

  private disarm(): void {
    if (this.next) {
      clearTimeout(this.next as NodeJS.Timeout);
      clearImmediate(this.next as NodeJS.Immediate);
    }
    this.next = null;
  }

  private slice(): void {
    this.next = null;
    // Closed: the notes leave the rest to the next start.
    if (!this.ctx.db.open) return this.queued.clear();
    // The rows read must be committed ones (a call's transaction may be open across a turn).
    if (this.ctx.db.inTransaction) return this.arm(true);
    this.work(WIKI_FILE_SLICE_MS);
    if (this.queued.size > 0) this.arm(false);
  }

  /** Make queued files hold their rows for up to `budgetMs`, then clear the notes of those settled. Never throws. */
  private work(budgetMs: number): void {
    if (this.queued.size === 0 || !this.ctx.db.open || this.ctx.db.inTransaction) return;
    const until = performance.now() + budgetMs;
    const writes: string[] = [];
    const removals: string[] = [];
    const row = this.ctx.stmt('SELECT content, updated FROM wiki_pages WHERE path = ?');
    for (const [rel, owed] of this.queued) {
      this.queued.delete(rel);
      let text: PageFileText;
      try {
        text = (row.get(rel) as { content: string; updated: string } | undefined) ?? null;
      } catch (err) {
        // Left noted: the next start (or a later save of the page) writes it.
        this.ctx.logger.error(`reading the row of page file ${rel} failed (its file is left to the next start): ${(err as Error).message}`);
        continue;
      }
      // A file behind (not settled) keeps its notes: the retry timer finishes it.
      if (this.mirror(rel, text === null ? 'removing the page file' : 'writing the page file', text)) {
        if (owed.write) writes.push(rel);
        if (owed.removal) removals.push(rel);
      }
      if (performance.now() >= until) break;
    }
    this.clearWrites(writes);
    // Left noted when another process holds the lock: the next start finds the file settled and clears it.
    clearFileNotes(this.ctx, 'wiki_file_removals', removals);
  }
}
