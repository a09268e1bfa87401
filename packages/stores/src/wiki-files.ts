import fs from 'node:fs';
import path from 'node:path';
import type { StoreContext } from './context.js';
import { clearFileNotes } from './file-notes.js';
import { BulkPageFiles } from './wiki-files-bulk.js';
import { fileHolds, writePageFile } from './wiki-page-file.js';
import { removeStaleTemps, safeJoin } from './paths.js';
import { LAYERS } from './types.js';

/** What WikiFilesBehind.matchRows did: files written from their rows, files no row names removed, files left behind (tried again later). */
export interface WikiFilesMatched {
  written: number;
  removed: number;
  behind: number;
}

/** First delay before a wiki page file that could not be written is tried again; it doubles with each failure in a row. */
export const WIKI_FILE_RETRY_MS = 1000;
/** Longest delay between two tries of a wiki page file that cannot be written. */
export const WIKI_FILE_RETRY_MAX_MS = 60_000;
/**
 * Most writes of one page file in a row by WikiFilesBehind.mirror, each after another process
 * changed the row again; past it the file is left to the retry timer (never reached but by a
 * page saved without a pause by other processes the whole time).
 */
export const WIKI_FILE_MIRROR_ROUNDS = 16;

/** What a page file is made to hold: a row's text and its `updated` (the file's time), or nothing (removed). */
export type PageFileText = { content: string; updated: string } | null;

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
  /** The notes of written files (wiki_file_writes) whose clearing found the lock taken: cleared on the timer, or by flush. */
  private readonly uncleared = new Set<string>();
  /** The files a bulk writer's commit owes, made to hold their rows a slice at a time (queued by WikiStore.withFileWritesRecorded). */
  readonly bulk: BulkPageFiles;

  constructor(private readonly ctx: StoreContext) {
    this.bulk = new BulkPageFiles(ctx, (rel, what, text) => this.mirror(rel, what, text), (rels) => this.clearWrites(rels));
  }

  /** Whether the file at `rel` is behind its row, or waits for its slice after a bulk commit (reads take the row). */
  has(rel: string): boolean {
    return this.paths.has(rel) || this.bulk.has(rel);
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
      this.ctx.logger.error(`${what} ${rel} failed (the page's change is stored; its file is tried again in ${delay} ms): ${(err as Error).message}`);
    }
  }

  /**
   * Make the file at `rel` hold `text` (its row's text and time, written by writePageFile; null:
   * removed), a row committed by now, then read the row that has its path again, and while that
   * differs from what the file was just made to hold (another process committed a save or delete
   * of that path meanwhile), make the file hold the row read and read it again. Several processes
   * share a data dir, and each writes its page files after its commit, outside the write lock: the
   * file writes land in the order the processes get to them, not in commit order, so an earlier
   * save's text could be written over a later one's, or a deleted page's file written back after its
   * removal. Every writer reads the row after its last write, so the last write of all is followed
   * by a read that sees the last commit, and the file ends holding it. A read finding the row as
   * written (the common case) is one primary-key read comparing the text inside SQLite.
   * Inside a transaction (opened elsewhere, outcome unknown) the file is changed once, as before.
   * Never throws: a failure notes the file as behind (the retry timer writes the row read then).
   * Answers whether the file is settled (not behind).
   */
  mirror(rel: string, what: string, text: PageFileText): boolean {
    let abs: string;
    try {
      abs = safeJoin(this.ctx.dataDir, rel);
    } catch (err) {
      // A row whose path leaves the data dir is never written (a backup from elsewhere could hold one).
      this.ctx.logger.error(`wiki page file ${rel} is not written: ${(err as Error).message}`);
      return false;
    }
    this.apply(rel, what, () => makeFileHold(abs, text));
    return !this.paths.has(rel) && this.settle(rel, abs, text);
  }

  /**
   * After the file at `rel` (`abs`) was made to hold `made`: read the row that has its path, and
   * while it differs, make the file hold it and read it again (see mirror). Answers whether the
   * file is settled (false: noted behind, the retry timer finishes it).
   */
  private settle(rel: string, abs: string, made: PageFileText): boolean {
    for (let round = 1; ; round++) {
      // Inside a transaction the row read is not the last committed one.
      if (!this.ctx.db.open || this.ctx.db.inTransaction) return true;
      let now: PageFileText;
      try {
        if (made !== null && this.ctx.stmt('SELECT content = ? FROM wiki_pages WHERE path = ?').pluck(true).get(made.content, rel) === 1) return true;
        now = (this.ctx.stmt('SELECT content, updated FROM wiki_pages WHERE path = ?').get(rel) as { content: string; updated: string } | undefined) ?? null;
      } catch (err) {
        this.paths.add(rel);
        const delay = this.schedule();
        this.ctx.logger.error(`reading the row of page file ${rel} again failed (its file is tried again in ${delay} ms): ${(err as Error).message}`);
        return false;
      }
      if (now === null ? made === null : made !== null && now.content === made.content) return true;
      if (round >= WIKI_FILE_MIRROR_ROUNDS) {
        this.paths.add(rel);
        this.schedule();
        return false;
      }
      made = now;
      const next = now;
      this.apply(rel, next === null ? 'removing the page file another process deleted' : 'writing the page file another process saved', () =>
        makeFileHold(abs, next),
      );
      if (this.paths.has(rel)) return false;
    }
  }

  /**
   * Write the file at `rel` again with `text`, its row's text and time read now (a read found the
   * file empty): at once outside a transaction, where that text is committed; inside one, on the
   * retry timer, which reads the committed row then (its page is read from the row meanwhile).
   * Never throws.
   */
  rewrite(rel: string, what: string, text: { content: string; updated: string }): void {
    if (this.ctx.db.inTransaction) {
      this.paths.add(rel);
      this.schedule();
      return;
    }
    this.mirror(rel, what, text);
  }

  /**
   * Inside the transaction that deletes or moves a page: note that the file at `rel` is to be
   * removed, and remove it once the transaction commits, then follow the row at that path (mirror):
   * when another process saved a page there since, the file is written with its text instead of
   * staying removed (a file a racing save writes after the removal is removed by that save's own
   * read of the row). The note is cleared when the file is settled; one a stopped process left is
   * finished by the next start (finishRemovals).
   */
  removeAfterCommit(rel: string, what: string): void {
    this.ctx.stmt('INSERT OR IGNORE INTO wiki_file_removals (path) VALUES (?)').run(rel);
    // A guard only: a page's path never leaves the data dir.
    safeJoin(this.ctx.dataDir, rel);
    this.ctx.whenCommitted(() => {
      if (this.mirror(rel, what, null)) this.removalDone(rel);
    });
  }

  /**
   * Inside a bulk writer's transaction (WikiStore.withFileWritesRecorded): note that the file at
   * `rel` owes the text of the row that has its path once the transaction commits. The note commits
   * with the row and is cleared once the file is written (clearWrites); one a stopped process left
   * is finished by the next start (finishWrites).
   */
  oweWrite(rel: string): void {
    this.ctx.stmt('INSERT OR IGNORE INTO wiki_file_writes (path) VALUES (?)').run(rel);
  }

  /**
   * Inside a bulk writer's transaction: note that the file at `rel` is to be removed once it commits
   * (wiki_file_removals, as removeAfterCommit notes it); the removal itself is queued with the
   * writer's files (BulkPageFiles), which follows the row at that path when its slice comes.
   */
  oweRemoval(rel: string): void {
    this.ctx.stmt('INSERT OR IGNORE INTO wiki_file_removals (path) VALUES (?)').run(rel);
    // A guard only: a page's path never leaves the data dir.
    safeJoin(this.ctx.dataDir, rel);
  }

  /**
   * After the commit and the writes of a bulk writer: clear the notes of the files written, in one
   * transaction that never waits for the lock (a note left is finished by the next start, which
   * finds the file holding its row's text). A file behind keeps its note until retry writes it.
   */
  clearWrites(rels: readonly string[]): void {
    const done = rels.filter((rel) => !this.paths.has(rel));
    if (done.length === 0 || !this.ctx.db.open) return;
    // Left noted when it fails: the next start finds the files holding their rows' text and clears the notes.
    if (clearFileNotes(this.ctx, 'wiki_file_writes', done)) {
      for (const rel of done) this.uncleared.delete(rel);
      return;
    }
    // Another process holds the lock: cleared on the timer, so a later hand edit of one of these files is not written over at the next start.
    for (const rel of done) this.uncleared.add(rel);
    this.schedule();
  }

  /**
   * Whether a table of notes holds one (read without the write lock): nothing owed, the common
   * case, takes no lock, so a start never waits for another process's write lock for nothing.
   */
  private owes(table: 'wiki_file_writes' | 'wiki_file_removals'): boolean {
    return this.ctx.stmt(`SELECT 1 FROM ${table} LIMIT 1`).get() !== undefined;
  }

  /**
   * Write the page files the notes of wiki_file_writes say a committed transaction owed and a
   * process stopped before writing (killed after an import's commit): each from the row that has
   * its path, whatever the file's time (an import's rows keep their exported times, older than a
   * file of the text they replaced), unless the file holds that text already. A note whose path no
   * row has is dropped (the removals are wiki_file_removals'). A file that cannot be written keeps
   * its note and is noted behind (tried again on the timer). Returns how many files were written.
   */
  finishWrites(): number {
    if (!this.ctx.db.open || !this.owes('wiki_file_writes')) return 0;
    let written = 0;
    // Under the write lock: no other process commits a page at one of these paths in between.
    this.ctx.tx(() => {
      const rels = this.ctx.stmt('SELECT path FROM wiki_file_writes').pluck(true).all() as string[];
      if (rels.length === 0) return;
      const row = this.ctx.stmt('SELECT content, updated FROM wiki_pages WHERE path = ?');
      const done = this.ctx.stmt('DELETE FROM wiki_file_writes WHERE path = ?');
      const dirs = new Set<string>();
      for (const rel of rels) {
        const r = row.get(rel) as { content: string; updated: string } | undefined;
        const content = r?.content;
        let abs: string;
        try {
          abs = safeJoin(this.ctx.dataDir, rel);
        } catch (err) {
          this.ctx.logger.error(`wiki page file ${rel} is not written: ${(err as Error).message}`);
          done.run(rel);
          continue;
        }
        if (content !== undefined && !fileHolds(abs, content)) {
          dirs.add(path.dirname(abs));
          let ok = false;
          this.apply(rel, 'writing the page file an import owed', () => {
            writePageFile(abs, content, (r as { updated: string }).updated);
            ok = true;
          });
          if (!ok) continue;
          written++;
        }
        done.run(rel);
      }
      for (const dir of dirs) removeStaleTemps(dir);
    });
    return written;
  }

  /**
   * Remove the files of the removals noted and never finished (a process stopped first) whose path
   * no page has taken since; a page that took one keeps its file. Returns how many files were
   * removed. A file that cannot be removed stays noted and behind (tried again on the timer).
   */
  finishRemovals(): number {
    if (!this.ctx.db.open || !this.owes('wiki_file_removals')) return 0;
    let removed = 0;
    // Under the write lock: no other process commits a page at one of these paths in between.
    this.ctx.tx(() => {
      const rels = this.ctx.stmt('SELECT path FROM wiki_file_removals').pluck(true).all() as string[];
      const taken = this.ctx.stmt('SELECT 1 FROM wiki_pages WHERE path = ?').pluck(true);
      const done = this.ctx.stmt('DELETE FROM wiki_file_removals WHERE path = ?');
      for (const rel of rels) {
        if (taken.get(rel) === undefined) {
          const abs = safeJoin(this.ctx.dataDir, rel);
          if (!fs.existsSync(abs)) {
            done.run(rel);
            continue;
          }
          this.apply(rel, 'removing the page file', () => fs.rmSync(abs, { force: true }));
          if (this.paths.has(rel)) continue;
          removed++;
        }
        done.run(rel);
      }
    });
    return removed;
  }

  /**
   * Make every page file equal to the row that names it, after the rows were replaced wholesale (a
   * backup restored into memory.db): each row's file is written from its content unless it holds
   * that text already, and each page file (`.md`) under the wiki folders of the layers
   * (`<data_dir>/wiki/<layer>/`) that no row names is removed, with the temp files of killed writes.
   * A file that cannot be written or removed is noted behind and tried again later, as after a save
   * (reads of its page take the row meanwhile); never throws for one file. Outside a transaction:
   * the rows read are committed ones.
   */
  matchRows(): WikiFilesMatched {
    const out: WikiFilesMatched = { written: 0, removed: 0, behind: 0 };
    if (!this.ctx.db.open) return out;
    const named = new Set<string>();
    const rows = this.ctx.stmt('SELECT path, content, updated FROM wiki_pages ORDER BY id').iterate() as IterableIterator<{
      path: string;
      content: string;
      updated: string;
    }>;
    const written: { rel: string; abs: string; made: PageFileText }[] = [];
    for (const r of rows) {
      named.add(r.path);
      let abs: string;
      try {
        abs = safeJoin(this.ctx.dataDir, r.path);
      } catch (err) {
        // A row whose path leaves the data dir is never written (a backup from elsewhere could hold one).
        this.ctx.logger.error(`wiki page file ${r.path} is not written: ${(err as Error).message}`);
        continue;
      }
      if (fileHolds(abs, r.content)) {
        this.paths.delete(r.path);
        continue;
      }
      let ok = false;
      this.apply(r.path, 'restoring the page file', () => {
        writePageFile(abs, r.content, r.updated);
        ok = true;
      });
      if (ok) {
        out.written++;
        written.push({ rel: r.path, abs, made: { content: r.content, updated: r.updated } });
      }
    }
    // Once the rows are read (a read open is no fresh read): another process may have saved one since.
    for (const w of written) this.settle(w.rel, w.abs, w.made);
    for (const layer of LAYERS) {
      for (const rel of pageFilesUnder(this.ctx.dataDir, `wiki/${layer}`)) {
        if (named.has(rel)) continue;
        let ok = false;
        this.apply(rel, 'removing the page file no restored page names', () => {
          fs.rmSync(safeJoin(this.ctx.dataDir, rel), { force: true });
          ok = true;
        });
        if (ok) out.removed++;
      }
    }
    out.behind = this.paths.size;
    return out;
  }

  /** Clear the note of a removal that is done; never waits for the lock (the next start clears it then). */
  private removalDone(rel: string): void {
    // Left noted when it fails: the next start finds the file gone and clears it.
    clearFileNotes(this.ctx, 'wiki_file_removals', [rel]);
  }

  /**
   * Try every file behind again now: each is written with the text of the row that has its path,
   * or removed when no row has it. Never throws; returns how many are still behind.
   */
  retry(): number {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if ((this.paths.size === 0 && this.uncleared.size === 0) || !this.ctx.db.open) return this.paths.size;
    // The row read must be a committed one: inside a transaction, wait for the next try.
    if (this.ctx.db.inTransaction) {
      this.schedule();
      return this.paths.size;
    }
    if (this.uncleared.size > 0) this.clearWrites([...this.uncleared]);
    if (this.paths.size === 0) return 0;
    let lastError: unknown = null;
    const written: string[] = [];
    for (const rel of [...this.paths]) {
      try {
        const row = (this.ctx.stmt('SELECT content, updated FROM wiki_pages WHERE path = ?').get(rel) as { content: string; updated: string } | undefined) ?? null;
        const abs = safeJoin(this.ctx.dataDir, rel);
        makeFileHold(abs, row);
        this.paths.delete(rel);
        // Another process may have saved or deleted the page since the row was read.
        if (!this.settle(rel, abs, row)) continue;
        if (!row) this.removalDone(rel);
        else written.push(rel);
      } catch (err) {
        lastError = err;
      }
    }
    // The notes of the files an import owed, now written.
    this.clearWrites(written);
    if (this.paths.size === 0) {
      if (this.failures > 0) this.ctx.logger.info('wiki page files are written again');
      this.failures = 0;
      return 0;
    }
    const delay = this.schedule(true);
    this.ctx.logger.error(
      `${this.paths.size} wiki page file(s) still cannot be written (tried again in ${delay} ms): ${lastError === null ? 'their pages kept changing' : (lastError as Error).message}`,
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

/** Make the page file at `abs` hold `text` (writePageFile), or remove it (null). */
function makeFileHold(abs: string, text: PageFileText): void {
  if (text === null) fs.rmSync(abs, { force: true });
  else writePageFile(abs, text.content, text.updated);
}

/**
 * The page files (`*.md`, regular files: a link is never followed) at any depth under the folder
 * `rel` of the data dir, as paths relative to the data dir with forward slashes, as wiki_pages.path
 * holds them. The temp files of writes killed in those folders are removed on the way.
 */
function pageFilesUnder(dataDir: string, rel: string): string[] {
  const out: string[] = [];
  const walk = (relDir: string): void => {
    const abs = safeJoin(dataDir, relDir);
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      return;
    }
    removeStaleTemps(abs);
    for (const e of entries) {
      const child = `${relDir}/${e.name}`;
      if (e.isDirectory()) walk(child);
      else if (e.isFile() && path.extname(e.name) === '.md') out.push(child);
    }
  };
  walk(rel);
  return out;
}

