import fs from 'node:fs';
import path from 'node:path';
import { fileFailureError, lockWaitError, makeDirs, openSqlite, removeStaleTemps, tempNameFor, type WriteWait } from '@memory-service/kernel';
import type { StoreContext } from '../context.js';
import { StoreError, notFound, validationError } from '../errors.js';
import { isoOf } from '../util.js';
import { safeJoin } from '../paths.js';
import type { Database } from '../types.js';
import type { WikiFilesMatched } from '../wiki-files.js';
import { readBackupFiles, saveBackupFiles, type BackupFilesSaved, type StandingFilesMatched } from './backup-files.js';
import { API_KEYS_TABLE } from './api-keys.js';
import { ALL_PAGES, snapshotInto } from './snapshot-copy.js';
import { BACKUP_NAME, type BackupKind, kindOf, linkToFreeName, seqOf, stamp, timeOfName } from './backup-names.js';
import { finishRestore, readPendingRestore, RESTORE_RESTART_MARGIN, stageRestore, stampStagedSafety, stampStagedTop, type RestoreFinished } from './restore.js';
import type { Breaker } from './breakers.js';

/** The folder of the backups, under the data dir. */
export const BACKUP_DIR = 'backups';

/**
 * A temp file (a backup's copy, an export, a replica) whose writer's pid still runs is taken as left
 * by a killed process once it has not been written for this long (pids are reused; a copy being
 * taken is written to at every step).
 */
export const STALE_TEMP_IDLE_MS = 5 * 60_000;

/** How long a restore waits between tries to take the live database's write lock while another process holds it. */
export const RESTORE_LOCK_RETRY_MS = 25;

export { BACKUP_KINDS, BACKUP_NAME, type BackupKind } from './backup-names.js';

/** The longest delay a Node timer holds (2^31 - 1 ms); a longer one is run after 1 ms. */
export const MAX_TIMER_MS = 2_147_483_647;

export interface BackupInfo {
  name: string;
  kind: BackupKind | 'other';
  size_bytes: number;
  /** When it was taken, by the clock (from its name); its file time when the name holds none. */
  created: string;
  /** Only in the answer of the call that took it: the standing query files it holds and those it left out. */
  standing_files?: BackupFilesSaved;
}

/** What restore answers: the backup restored, the pre-restore copy, what was done to the wiki page files and the standing query files. */
export interface RestoreResult {
  restored: BackupInfo;
  safety_backup: BackupInfo;
  wiki_files: WikiFilesMatched;
  standing_files: StandingFilesMatched;
}

export interface SchedulerState {
  enabled: boolean;
  /** 0 when the scheduler is off. */
  interval_hours: number;
  /** ISO time of the next scheduled backup by the clock; null when off. */
  next_run: string | null;
  last_error: string | null;
}

export interface BackupStatus {
  scheduler: SchedulerState;
  last_backup: BackupInfo | null;
  count: number;
  total_bytes: number;
}

/** What Stores does around a backup: write what is pending first, and bring its in-memory state in line after a restore. */
export interface BackupHooks {
  /**
   * Before a copy is taken: write the queued bookkeeping, so the copy holds it, waiting for another
   * process's write lock without blocking the event loop (in the kernel's write queue, within the
   * busy timeout counted from `wait.since`). A failure is logged and the copy taken without it (the
   * bookkeeping stays queued).
   */
  beforeCopy(wait?: WriteWait): void | Promise<void>;
  /**
   * The highest seq the retrieval change log ever handed out (Retrieval.changeSeqTop), read just
   * before the copy replaces the log, under its write lock.
   */
  changeSeqTop(): number;
  /**
   * Right after the copy: restart the retrieval change log above `top`, so the indexes of every
   * process are rebuilt, and forget the saved ones (Retrieval.restarted). False when the restored
   * database has no such tables yet (older than their migrations): called again after `migrate`.
   */
  restartIndexes(top: number): boolean;
  /** After a restore: drop in-memory state built from the old content (retrieval indexes) and rewrite derived files (L1). */
  afterRestore(): void;
  /**
   * After a restore and its migrations: make the wiki page files match the restored rows (the rows
   * are canonical, the files mirror them; WikiFilesBehind.matchRows). Answers what it did.
   */
  matchFiles(): WikiFilesMatched;
}

/** The failures of reading a backup that are the environment's, not the backup's (fileFailureError). */
const READ_FAILURES = ['descriptors', 'cantopen', 'io'] as const;

/**
 * A backup file opened read-only; one SQLite cannot open (no file descriptors left, a folder gone)
 * is a KERNEL_ERR_STORAGE naming it, not SQLite's bare "unable to open database file".
 */
function openBackup(file: string): Database {
  try {
    return openSqlite(file, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw fileFailureError(file, err, 'reading the backup', READ_FAILURES) ?? err;
  }
}

/**
 * Online backups of memory.db into `<data_dir>/backups/` with SQLite's backup API
 * (better-sqlite3's db.backup()), which copies a consistent snapshot (one read transaction held on
 * a connection of its own, so other processes' writes neither restart nor wait for it) while the
 * service keeps serving. Files are named `<kind>-<clock time>.db` (`-2`, `-3` for the same clock
 * time), taken into a temp name and hard-linked to a free name once finished, never replacing
 * another backup (publish). A restore never swaps the file under the open connection: it copies a staged copy of the
 * backup (ops/restore.ts) into the live database through the same backup API, backing the current
 * database up (`pre-restore-...`) once that copy holds the write lock, so the connection, its prepared statements
 * and every other process see the restored content; the retrieval change log is restarted above
 * every seq it held before, so the in-memory retrieval indexes of every process sharing the
 * database are rebuilt at their next search and no saved index from before is read
 * (BackupHooks.restartIndexes), this process's indexes are dropped and the L1 files rewritten
 * (BackupHooks.afterRestore). memory.db holds every wiki page's text in its
 * row (canonical; the Markdown files under `<data_dir>/wiki/` mirror the rows), so once the restored
 * database is migrated the page files are brought in line with its rows (BackupHooks.matchFiles):
 * each page's file is written from its row, and the page files no restored row names are removed.
 * Standing queries live only as files, so a backup also holds them: they are written into a table
 * of the copy (backup-files.ts; the backup stays one file), and a restore makes the standing folder
 * match that table (a backup taken before backups held them leaves the folder as it is). The other
 * files of the data dir (rules.yaml, schemas, CONTEXT.md) are not part of a backup and stay as they are.
 *
 * The scheduler (off unless an interval is configured) takes a `scheduled-` backup every
 * interval; its breaker (backup_scheduler) skips runs after failures in a row until its cooldown.
 */
export class BackupStore {
  private timer: NodeJS.Timeout | null = null;
  private intervalMs = 0;
  private nextRun: number | null = null;
  private lastError: string | null = null;
  /** Set while a backup or a restore runs: a second one at once is refused (ConflictError). */
  private busy = false;

  constructor(
    private readonly ctx: StoreContext,
    private readonly breaker: Breaker,
    private readonly hooks: BackupHooks,
  ) {}

  get dir(): string {
    return safeJoin(this.ctx.dataDir, BACKUP_DIR);
  }

  /**
   * Take a backup now; answers it as list does. `wait` (a tool call) bounds the wait for another
   * process's write lock of the bookkeeping written first (BackupHooks.beforeCopy).
   */
  async create(kind: BackupKind = 'manual', wait?: WriteWait): Promise<BackupInfo> {
    return this.exclusive(() => this.copy(kind, wait));
  }

  /**
   * Copy the live database into a new backup file of this kind. A failure of the environment (the
   * disk full, a read-only file system, no file descriptors left) is a KERNEL_ERR_STORAGE naming the
   * backup file (fileFailureError); the partial file is removed.
   *
   * The copy reads one snapshot of memory.db on a connection of its own that holds a read
   * transaction for the whole copy (snapshot-copy.ts), in steps with turns of the event loop between
   * them: SQLite's backup API restarts from the first page whenever another connection writes the
   * source between two steps, unless the source's read transaction stays open, so a backup of a
   * large database never finished while another process wrote every 200 ms. In WAL mode the held
   * read transaction blocks no writer.
   */
  private async copy(kind: BackupKind, wait?: WriteWait): Promise<BackupInfo> {
    const base = this.beforeCopy(kind);
    await this.flushBookkeeping(wait);
    // Copied and finished under a temp name, then linked to a free name (publish): a process killed
    // midway leaves a temp (list never shows one, the start repair removes it), never a broken backup under a backup's name.
    const tmp = tempNameFor(path.join(this.dir, `${base}.db`));
    try {
      await snapshotInto(this.ctx, tmp);
      return this.publish(tmp, base);
    } catch (err) {
      throw this.copyFailure(tmp, base, kind, err);
    }
  }

  /**
   * The same copy taken at once, without a turn of the event loop: VACUUM INTO on a read-only
   * connection of its own (one read transaction). The restore takes its safety backup so while it
   * holds the live database's write lock: the copy then holds every write committed before the
   * restore, and none can be committed between it and the restore's copy. The queued bookkeeping is
   * the caller's to write first (flushBookkeeping): under that lock this process cannot write.
   */
  private copyNow(kind: BackupKind): BackupInfo {
    const base = this.beforeCopy(kind);
    const tmp = tempNameFor(path.join(this.dir, `${base}.db`));
    try {
      const reader = openSqlite(this.ctx.db.name, { readonly: true, fileMustExist: true });
      try {
        // Index builds spill to memory, not to temp files holding the text (as the live connection's temp_store).
        reader.pragma('temp_store = MEMORY');
        reader.prepare('VACUUM INTO ?').run(tmp);
      } finally {
        reader.close();
      }
      return this.publish(tmp, base);
    } catch (err) {
      throw this.copyFailure(tmp, base, kind, err);
    }
  }

  /**
   * Before a copy: the database open, the backups folder made; answers the name's base,
   * `<kind>-<clock time>`.
   */
  private beforeCopy(kind: BackupKind): string {
    if (!this.ctx.db.open) throw new StoreError('STORES_ERR_CONFLICT', 'the database is closed: no backup can be taken');
    try {
      // Not Node's recursive mkdirSync: on a file system turned read-only it answers ENOENT, not EROFS.
      makeDirs(this.dir);
    } catch (err) {
      throw fileFailureError(this.dir, err, 'creating the backups folder') ?? err;
    }
    return `${kind}-${stamp(this.ctx.clock.now())}`;
  }

  /**
   * Write the queued bookkeeping (access counts, recall telemetry) so the copy holds it, waiting for
   * another process's write lock in the write queue; a failure (that wait's end included) is logged, not thrown.
   */
  private async flushBookkeeping(wait?: WriteWait): Promise<void> {
    try {
      await this.hooks.beforeCopy(wait);
    } catch (err) {
      // Access counts and telemetry are not worth a backup: with memory.db moved or deleted while the
      // server runs, a write is refused, and a backup of the open database is what keeps its content.
      this.ctx.logger.warn(`backup: the queued bookkeeping (access counts, recall telemetry) could not be written first, so the backup is taken without it: ${(err as Error).message}`);
    }
  }

  /** A copy that failed: its temp removed, and the error its caller gets (a failure of the environment named by fileFailureError). */
  private copyFailure(tmp: string, base: string, kind: BackupKind, err: unknown): unknown {
    this.removeFiles(tmp);
    const doing = kind === 'pre-restore' ? 'taking the safety backup before the restore (nothing is restored) into' : 'taking a backup into';
    return fileFailureError(path.join(this.dir, `${base}.db`), err, doing) ?? err;
  }

  /**
   * Finish a copy taken into `tmp` and give it its name: made a rollback-journal database (one
   * self-contained file; opening it, to verify or restore, leaves no -wal and -shm beside it), the
   * standing query files written into it (its own connection: the live database never holds them),
   * then hard-linked to `<base>.db`, or `<base>-2.db`, `-3`... when that name is taken, and the temp
   * removed. A link never replaces a file (EEXIST), where the rename did: two processes taking a
   * backup at the same clock time both found the name free, both renamed onto it, and one backup was
   * lost. On a file system without hard links the name is taken by creating it exclusively, and the
   * copy renamed over it.
   */
  private publish(tmp: string, base: string): BackupInfo {
    let standing: BackupFilesSaved;
    const copy = openSqlite(tmp, { readonly: false, fileMustExist: true });
    try {
      copy.pragma('journal_mode = DELETE');
      standing = saveBackupFiles(copy, this.ctx.dataDir, this.ctx.logger);
    } finally {
      copy.close();
    }
    return { ...this.info(linkToFreeName(tmp, this.dir, base)), standing_files: standing };
  }

  /** The backups, newest first. */
  list(): BackupInfo[] {
    if (!fs.existsSync(this.dir)) return [];
    return fs
      .readdirSync(this.dir, { withFileTypes: true })
      .filter((e) => e.isFile() && BACKUP_NAME.test(e.name))
      .map((e) => this.info(e.name))
      .sort((a, b) => (a.created === b.created ? seqOf(b.name) - seqOf(a.name) || b.name.localeCompare(a.name) : b.created.localeCompare(a.created)));
  }

  /** Remove a backup file (the backup saga's compensation). */
  remove(name: string): boolean {
    const file = this.fileOf(name);
    if (!fs.existsSync(file)) return false;
    this.removeFiles(file);
    return true;
  }

  /**
   * Remove the temp copies of backups that killed processes left in the backups folder (their pid
   * gone, or no write for STALE_TEMP_IDLE_MS); a copy another running process is taking is kept.
   * The start repair and the backup saga's rollback call it. Answers how many files it removed.
   */
  removeStaleCopies(): number {
    return removeStaleTemps(this.dir, { idleMs: STALE_TEMP_IDLE_MS });
  }

  private removeFiles(file: string): void {
    for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) fs.rmSync(f, { force: true });
  }

  /**
   * Check that a backup is a whole SQLite database of this service (quick_check ok, the memory
   * tables present) and that the files it holds, if any, are standing query files (readBackupFiles).
   */
  verify(name: string): void {
    const file = this.fileOf(name);
    let db: Database | undefined;
    try {
      // Only an older version wrote a backup under its own name while copying: a kill left it with its journal.
      if (fs.existsSync(`${file}-journal`)) throw new Error(`it is a copy that was not finished (its process stopped midway: ${name}-journal lies beside it); remove both files and take or pick another backup`);
      db = openBackup(file);
      const check = db.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new Error(`quick_check answered ${String(check)}`);
      if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'facts'").get()) throw new Error('it holds no memory tables');
      readBackupFiles(db);
    } catch (err) {
      // A backup that cannot be opened or read for a reason of the environment (no file descriptors
      // left, an I/O error) is not a bad backup: say what failed instead.
      const storage = fileFailureError(file, err, 'reading the backup', READ_FAILURES);
      if (storage) throw storage;
      throw validationError('name', `backup ${name} is not a usable memory database: ${(err as Error).message}`, 'a backup name from memory_backup list');
    } finally {
      db?.close();
    }
  }

  /**
   * Restore the backup `name` into the live database: check it, read the standing query files it
   * holds, stage a copy of the backup with the live API keys, no files' table, a new restore token
   * and a restore-pending marker (restore.ts stageRestore), take the live database's write lock (the
   * backup API's first, empty step; while another process holds it, tried again up to the busy
   * timeout, then KERNEL_ERR_BUSY with nothing changed), back the current database and standing
   * files up under that lock (`pre-restore-...`, copyNow: every write committed before the lock is
   * in it, and none can come after), copy the staged copy in (the one step that changes the live
   * database), restart the retrieval change log (restartIndexes), afterRestore, `migrate` (a
   * backup older than the schema is brought to the head), then finishRestore: the keys the staged
   * copy could not take (an older schema), matchFiles (the wiki page files made equal to the
   * restored rows), the standing folder made equal to the backup's files, and the marker dropped. A
   * process killed after the copy leaves the marker: the next start finishes it (finishPending).
   * Answers the backup restored, the pre-restore copy and what was done to the files.
   */
  async restore(name: unknown, migrate?: () => void, wait?: WriteWait): Promise<RestoreResult> {
    const clean = this.checkName(name);
    const file = this.fileOf(clean);
    if (!fs.existsSync(file) || !fs.statSync(file).isFile()) throw notFound('backup', clean, 'name');
    return this.exclusive(async () => {
      if (this.ctx.db.inTransaction) throw new StoreError('STORES_ERR_CONFLICT', 'a restore cannot run inside a transaction');
      // The copy goes to memory.db's path, the connection's writes after it to the file it has open:
      // with memory.db moved or deleted those are two files, so the restore is refused before anything changes.
      this.ctx.checkFileInPlace();
      this.verify(clean);
      const restored = this.info(clean);
      // Read (and checked, by verify) before anything changes: a bad table refuses the restore with nothing done.
      const files = this.readFiles(file);
      const keys = this.ctx.stmt(`SELECT * FROM ${API_KEYS_TABLE} ORDER BY id`).all() as Record<string, unknown>[];
      const liveKeyColumns = (this.ctx.db.prepare(`PRAGMA table_info(${API_KEYS_TABLE})`).all() as { name: string }[]).map((c) => c.name);
      // In WAL mode the safety backup is taken under the copy's write lock (below), so it holds every
      // write committed before the restore, and none can be committed between it and the copy. In
      // rollback-journal mode that lock is exclusive (nothing can read under it): taken first, as before.
      const wal = this.ctx.db.pragma('journal_mode', { simple: true }) === 'wal';
      let safety: BackupInfo | undefined = wal ? undefined : await this.copy('pre-restore', wait);
      if (wal) await this.flushBookkeeping(wait);
      // Everything that can be done before the copy is done on a staged copy of the backup, marker
      // included: the copy into the live database is then the one step that changes it, and a
      // process killed after it leaves the marker for the next start (finishPending).
      const stageFile = tempNameFor(file);
      let src: Database;
      try {
        src = stageRestore(file, stageFile, { backup: clean, safety: safety?.name ?? '', keys, liveKeyColumns, files });
      } catch (err) {
        this.removeFiles(stageFile);
        throw err;
      }
      // The change log's highest seq before the copy replaces it: what the indexes of every process
      // may hold at most. Read again after the API's first (empty) step, which took the write lock:
      // no process can commit from then on, and in WAL mode this connection still reads the last
      // commit (in rollback-journal mode that lock is exclusive: the read before the copy stands).
      let top = this.hooks.changeSeqTop();
      let locked = false;
      try {
        stampStagedTop(src, top);
        const waitMs = Number(this.ctx.db.pragma('busy_timeout', { simple: true })) || 0;
        const asked = performance.now();
        for (;;) {
          // One step after the first: the destination's write lock is held across as few turns of the event loop as the API allows.
          const done = await src.backup(this.ctx.db.name, {
            progress: () => {
              if (!locked && wal) {
                top = Math.max(top, this.hooks.changeSeqTop());
                // Under the lock and in this same turn: the safety backup, then its name into the staged marker.
                safety = this.copyNow('pre-restore');
                stampStagedSafety(src, safety.name);
              }
              locked = true;
              return ALL_PAGES;
            },
          });
          // A source has at least one page: none counted means the first step could not take the live
          // database's write lock (another process holds it; better-sqlite3 answers that as done), and
          // nothing was copied. Tried again until the busy timeout, as a write waits.
          if (done.totalPages > 0) break;
          const waited = performance.now() - asked;
          if (waited >= waitMs) {
            throw lockWaitError(this.ctx.db.name, waited, {
              what: 'The restore',
              written: wal ? 'nothing was restored, and no safety backup taken' : `nothing was restored (the safety backup ${safety?.name} was taken)`,
            });
          }
          await new Promise((resolve) => setTimeout(resolve, RESTORE_LOCK_RETRY_MS));
        }
      } finally {
        src.close();
        this.removeFiles(stageFile);
      }
      if (!safety) throw new Error('restore: the copy ended without its safety backup');
      const restarted = this.restart(top);
      this.hooks.afterRestore();
      migrate?.();
      if (!restarted) this.restart(top);
      // A process starting on the data dir right now may have finished it already: the steps are safe to run again.
      const pending = readPendingRestore(this.ctx.db) ?? { backup: clean, safety: safety.name, top, keys: null, files };
      const done = finishRestore(this.ctx, pending, () => this.hooks.matchFiles());
      return { restored, safety_backup: safety, ...done };
    });
  }

  /**
   * Finish a restore whose process was killed after its copy into the live database (the marker the
   * copy carried in is still there): restart the retrieval change log above every seq it may have
   * held, rewrite the L1 files, then finishRestore (API keys, restore token, wiki page and standing
   * query files, marker dropped). Run at start, once the stores' migrations are applied, before
   * anything is served. Answers what it did, or null when no restore was pending.
   */
  finishPending(): (RestoreFinished & { backup: string }) | null {
    const pending = readPendingRestore(this.ctx.db);
    if (!pending) return null;
    this.restart(Math.max(pending.top, this.hooks.changeSeqTop()) + RESTORE_RESTART_MARGIN);
    this.hooks.afterRestore();
    const done = finishRestore(this.ctx, pending, () => this.hooks.matchFiles());
    this.ctx.logger.warn(
      `memory_backup restore of ${pending.backup} was stopped after its copy into the database; finished now (API keys kept, page and standing query files matched; the database before it is ${pending.safety})`,
    );
    return { backup: pending.backup, ...done };
  }

  /**
   * Restart the retrieval change log above `top` (BackupHooks.restartIndexes): first of all after a
   * copy, so other processes search at their old cursors for as short a time as may be; tried again
   * after the migrations when the restored database had no such tables or it failed.
   */
  private restart(top: number): boolean {
    try {
      return this.hooks.restartIndexes(top);
    } catch (err) {
      this.ctx.logger.error(
        `restore: the retrieval change log could not be restarted (indexes of other processes may answer from before the restore until they are rebuilt): ${(err as Error).message}`,
      );
      return false;
    }
  }

  /** The standing query files the backup file holds (null: it has no table), on a read-only connection of its own. */
  private readFiles(file: string): Map<string, string> | null {
    const db = openBackup(file);
    try {
      return readBackupFiles(db);
    } finally {
      db.close();
    }
  }

  status(): BackupStatus {
    const all = this.list();
    return {
      scheduler: {
        enabled: this.timer !== null,
        interval_hours: this.intervalMs / 3_600_000,
        next_run: this.nextRun === null ? null : isoOf(this.nextRun),
        last_error: this.lastError,
      },
      last_backup: all[0] ?? null,
      count: all.length,
      total_bytes: all.reduce((n, b) => n + b.size_bytes, 0),
    };
  }

  /**
   * Start the scheduler: a `scheduled-` backup every `intervalMs` (0 leaves it off). Its timer never
   * keeps the process alive. An interval longer than a Node timer can hold (MAX_TIMER_MS, about
   * 24.8 days; `backup.interval_hours` goes to 8760) is waited out in several timers: Node runs a
   * longer delay after 1 ms, which took a backup every millisecond.
   */
  startScheduler(intervalMs: number): void {
    this.stopScheduler();
    if (!(intervalMs > 0)) return;
    this.intervalMs = intervalMs;
    this.nextRun = this.ctx.clock.now() + intervalMs;
    this.arm(intervalMs);
  }

  /** Set the scheduler's timer for the `leftMs` still to wait before its next run. */
  private arm(leftMs: number): void {
    const wait = Math.min(leftMs, MAX_TIMER_MS);
    this.timer = setTimeout(() => {
      if (leftMs > wait) return this.arm(leftMs - wait);
      this.arm(this.intervalMs);
      void this.tick();
    }, wait);
    this.timer.unref();
  }

  /** Stop the scheduler (the server's close hook on SIGTERM and SIGINT). */
  stopScheduler(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.intervalMs = 0;
    this.nextRun = null;
  }

  /**
   * One scheduled run: skipped while the breaker is open or another backup runs; a failure is
   * counted on the breaker and reported on the logger, never thrown. Answers the backup taken.
   */
  async tick(): Promise<BackupInfo | null> {
    if (this.intervalMs > 0) this.nextRun = this.ctx.clock.now() + this.intervalMs;
    if (this.busy || !this.ctx.db.open || !this.breaker.allow()) return null;
    try {
      const made = await this.create('scheduled');
      this.breaker.success();
      this.lastError = null;
      return made;
    } catch (err) {
      this.breaker.failure(err);
      this.lastError = (err as Error).message;
      this.ctx.logger.error(`scheduled backup failed: ${this.lastError}`);
      return null;
    }
  }

  private async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (this.busy) throw new StoreError('STORES_ERR_CONFLICT', 'another backup or restore is running; try again when it is done');
    this.busy = true;
    try {
      return await fn();
    } finally {
      this.busy = false;
    }
  }

  private checkName(name: unknown): string {
    if (typeof name !== 'string' || !BACKUP_NAME.test(name.trim())) {
      throw validationError('name', 'name must be the name of a backup file as memory_backup list answers it (letters, digits, ".", "_", "-", ending in .db)', 'a backup name from memory_backup list');
    }
    return name.trim();
  }

  private fileOf(name: string): string {
    return safeJoin(this.dir, this.checkName(name));
  }

  private info(name: string): BackupInfo {
    const st = fs.statSync(path.join(this.dir, name));
    return { name, kind: kindOf(name), size_bytes: st.size, created: timeOfName(name) ?? st.mtime.toISOString() };
  }
}
