import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { MemoryError } from './errors.js';
import { makeDirs } from './paths.js';
import { busyTimeoutStatements, isBusyError, LockTaken, runTransaction, runTransactionIfFree } from './sql-transaction.js';
import { stderrLogger, type Logger } from './logger.js';
import { movedError, readOnlyAdvice } from './storage-failures.js';
import { openSqlite } from './sqlite-driver.js';
import { ensureOwnerTables } from './schema-owners.js';
import { MigrationRunner, type Migration, type MigrationStatus, type SchemaScope } from './migrations.js';
import { closedStorageError, waitEndError, WriteQueue } from './write-queue.js';

export { betterSqliteAddon, loadSqliteDriver, openSqlite, SQLITE_DRIVERS, sqliteDriver, sqliteDriverFor, type SqliteDriver } from './sqlite-driver.js';

export type { Migration, MigrationStatus, SchemaScope } from './migrations.js';

export type Db = Database.Database;

/**
 * A write transaction checks that memory.db's path still leads to the file the connection has open
 * (one stat, Storage.checkFileInPlace) when it was last looked at this long ago or more. The idle
 * time after a write looks too (with the checkpoint it asks for, CHECKPOINT_DELAY_MS later), so
 * under a stream of writes a file gone is found within about that long, and the request path stats
 * at most once a second: a stat right after 30 ms of idle took about 70 us here (6 us back to back),
 * which at every 100 ms made think about 3-9% slower in paired rounds against the reference. A
 * write after a longer pause (an agent's pace) is checked itself. A file found moved is checked
 * again at every write, so one put back is written again at once.
 */
export const DB_FILE_CHECK_MS = 1000;

/** A write's WAL frames are copied into the database file this long after its commit, off the request path. */
export const CHECKPOINT_DELAY_MS = 100;
/**
 * SQLite's own checkpoint inside the commit that takes the WAL past this many pages (its default,
 * kept explicit): the backstop for more writes within one CHECKPOINT_DELAY_MS than that, and for
 * writes that never call checkpointSoon().
 */
export const WAL_BACKSTOP_PAGES = 1000;
/**
 * SQLite's page cache per connection, in KiB (its default is 2,000). A search reads its candidates'
 * rows by primary key, scattered over the tables: with the default, most of them came from the
 * operating system again (a read call per page). The cache only grows as pages are read.
 */
export const PAGE_CACHE_KIB = 16 * 1024;

/**
 * Run fn, which writes, without waiting for another connection's write lock: the connection's
 * busy_timeout is 0 for the call and restored after it. Returns false when the lock was taken
 * (SQLITE_BUSY; fn's own transaction rolled back), so a caller on a timer can try again later
 * instead of blocking the event loop for the whole busy timeout. Other errors are thrown.
 */
export function writeIfFree(db: Db, fn: () => void): boolean {
  const busy = busyTimeoutStatements(db);
  const timeout = busy.read.get() as number;
  busy.zero.get();
  try {
    fn();
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return false;
    throw err;
  } finally {
    busy.restore(timeout).get();
  }
}

/**
 * Code outside the kernel that keeps work for the end of a transaction Storage.transaction opened
 * (a tool call's): the stores keep their after-commit work (in-memory copies, wiki page files,
 * index catch-up) this way when a tool call's transaction, not their own, is the outermost one.
 */
export interface TransactionFollower {
  /** The transaction committed. */
  committed(): void;
  /** The transaction rolled back. */
  rolledBack(): void;
  /** A savepoint opens inside it: what to hand to savepointRolledBack if it rolls back. */
  mark(): number;
  /** The savepoint opened at `mark` rolled back (the transaction goes on): drop the work kept since. */
  savepointRolledBack(mark: number): void;
}

/** How a write that waits for another process's write lock (Storage.transactionWhenFree) counts its wait, and what ends it early. */
export interface WriteWait {
  /**
   * performance.now() when the work began: the wait's budget, the connection's busy timeout, counts
   * from it. A tool call's context carries its start (ToolCallContext.since), so a `transaction:
   * false` handler passes its `call` and waits no longer in all than a call in the kernel's
   * transaction. Now when absent.
   */
  since?: number;
  /** Aborted (the client cancelled the call): the write leaves the queue, nothing of it written (KERNEL_ERR_TOOL_FAILED). */
  signal?: AbortSignal;
}

export interface TransactionHost {
  /**
   * While the outermost transaction open on the connection is one Storage.transaction opened:
   * have the follower told how it ends (and of its savepoints that roll back), and answer true.
   * Otherwise (no transaction, or one opened elsewhere) do nothing and answer false.
   */
  afterTransaction(follower: TransactionFollower): boolean;
  /**
   * Before a write transaction that is not nested in another: throw KERNEL_ERR_STORAGE when the
   * database file is no longer at its path (moved, deleted or replaced while the server runs), where
   * what the transaction wrote would be lost at the next start.
   */
  checkFileInPlace(): void;
  /**
   * Run fn in a transaction once this process may take the write lock, waiting for another
   * process's without blocking the event loop (Storage.transactionWhenFree).
   */
  transactionWhenFree<T>(fn: () => T, wait?: WriteWait): Promise<T>;
  /**
   * Run fn, which writes outside the kernel's transaction (VACUUM, or a transaction of its own),
   * once this process may take the write lock, waiting for another process's without blocking the
   * event loop (Storage.writeWhenFree).
   */
  writeWhenFree<T>(fn: () => T, wait?: WriteWait): Promise<T>;
}

/** What to do about a database file SQLite refused, by its error code. */
const OPEN_ADVICE: Record<string, string> = {
  SQLITE_NOTADB: 'it is not a SQLite database; move it away to start with an empty memory, or restore it from a backup',
  SQLITE_CORRUPT: 'the file is damaged (truncated or overwritten); move it away with its -wal and -shm files to start with an empty memory, or restore it from a backup',
  SQLITE_READONLY: 'the data dir and memory.db must be writable by this user (or point MCP_MEMORY_DATA_DIR at a writable directory)',
  SQLITE_CANTOPEN: 'the data dir (MCP_MEMORY_DATA_DIR) must be a directory this user can read and write, and memory.db in it a file',
  SQLITE_PERM: 'the data dir and memory.db must be readable and writable by this user',
  SQLITE_FULL: 'the disk holding the data dir is full; free space on it (or point MCP_MEMORY_DATA_DIR at a disk with room)',
  SQLITE_IOERR: 'the file system holding the data dir reported an I/O error (turned read-only after an error, unmounted or failing); check it (mount, dmesg)',
};

/**
 * A KERNEL_ERR_STORAGE for a database that could not be opened, naming the file, SQLite's reason and
 * what to do: SQLite's own message ("file is not a database", "attempt to write a readonly
 * database") names neither the file nor a way out.
 */
function openError(file: string, err: unknown): MemoryError {
  const code = String((err as { code?: unknown }).code ?? '');
  const base = Object.keys(OPEN_ADVICE).find((c) => code === c || code.startsWith(`${c}_`));
  const advice = base ? `: ${OPEN_ADVICE[base]}` : '';
  return new MemoryError('KERNEL_ERR_STORAGE', `cannot open the database ${file} (${(err as Error).message})${advice}`, { cause: err });
}

/**
 * The first of the database's files (the database, then its -wal and -shm when they exist) that
 * this user cannot write, or undefined. SQLite opens such a database read-only without a word, and
 * the first write then fails with "attempt to write a readonly database", naming no file.
 */
function readOnlyFile(file: string): string | undefined {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      fs.accessSync(f, fs.constants.W_OK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return f;
    }
  }
  return undefined;
}

/** The size of a file in bytes; 0 when there is none. */
function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

/**
 * The storage context: one SQLite file under the data dir in WAL mode, a statement cache and
 * per-package migrations recorded in `kernel_migrations`.
 *
 * Checkpoints run off the request path: by default SQLite checkpoints inside the commit that
 * takes the WAL past 1,000 pages, a stall of several milliseconds on about one write in thirty.
 * Here each commit also asks for a passive checkpoint CHECKPOINT_DELAY_MS later
 * (checkpointSoon), which the idle time between requests absorbs, so at an agent's pace the WAL
 * stays short and the inline checkpoint does not come; under a steady stream of writes it still
 * bounds the WAL as before. A checkpoint that copied every frame is followed by a one-row write
 * that starts the WAL over (restartWal), so the header sync of a restart is also off the path.
 */
export class Storage implements TransactionHost {
  readonly db: Db;
  readonly file: string;
  /**
   * Whether this open made the database: no file was there, or an empty one with no write-ahead
   * log. The stores then set aside files an earlier database left in the data dir (L1 files, wiki
   * page files, saved indexes) rather than rewrite them from the new, empty tables.
   */
  readonly fresh: boolean;
  /**
   * The writes of this process that wait for another process's write lock, in the order they came
   * (write-queue.ts): the kernel's write calls and transactionWhenFree's transactions.
   */
  readonly writes: WriteQueue = new WriteQueue((end) => waitEndError(this.file, end));
  private readonly statements = new Map<string, Database.Statement>();
  /** The migrations of every owner known in this process, and what they applied (migrations.ts). */
  private readonly migrations: MigrationRunner;
  private checkpointTimer: NodeJS.Timeout | null = null;
  /** Set while the outermost transaction is one transaction() opened: who follows it (see afterTransaction). */
  private followers: TransactionFollower[] | null = null;
  private readonly logger: Logger;
  /** The database file as opened (its absolute path, its device and inode); undefined for a database with no file of its own. */
  private readonly identity: { path: string; dev: number; ino: number } | undefined;
  /** When checkFileInPlace last looked (performance.now()), and whether it found the file in place. */
  private checkedAt = -Infinity;
  private inPlace = true;

  constructor(dataDir: string, opts: { busyTimeoutMs?: number; file?: string; logger?: Logger } = {}) {
    this.logger = opts.logger ?? stderrLogger();
    try {
      makeDirs(dataDir);
    } catch (err) {
      // mkdir's own message (ENOTDIR, EACCES) names neither the setting nor a way out.
      throw new MemoryError(
        'KERNEL_ERR_STORAGE',
        `cannot create the data dir ${path.resolve(dataDir)} (${(err as Error).message}): the data dir (MCP_MEMORY_DATA_DIR) must be a directory this user can read and write, or a path where this user can create one`,
        { cause: err },
      );
    }
    this.file = opts.file ?? path.join(dataDir, 'memory.db');
    // A database this user cannot write is refused here, naming the file, rather than at its first write.
    const readOnly = readOnlyFile(this.file);
    if (readOnly) {
      throw new MemoryError('KERNEL_ERR_STORAGE', `cannot open the database ${this.file}: ${readOnly} is read-only for this user; ${readOnlyAdvice(readOnly)}`);
    }
    this.fresh = fileSize(this.file) === 0 && fileSize(`${this.file}-wal`) === 0;
    let db: Db | undefined;
    try {
      db = openSqlite(this.file);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      // A deleted row's bytes are overwritten in the pages a change writes anyway (FAST: no extra I/O),
      // so forgotten text does not stay readable in memory.db.
      db.pragma('secure_delete = FAST');
      // Statement journals and the savepoints of a tool call's transaction (Kernel.callToolNow) stay
      // in memory: as temp files they cost a think about 0.1 ms more, and held page images (the
      // text being changed or forgotten) in files on disk.
      db.pragma('temp_store = MEMORY');
      db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 10_000}`);
      db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
      db.pragma(`wal_autocheckpoint = ${WAL_BACKSTOP_PAGES}`);
      db.exec(`CREATE TABLE IF NOT EXISTS kernel_migrations (
        owner TEXT NOT NULL, id INTEGER NOT NULL, name TEXT NOT NULL, applied_at TEXT NOT NULL,
        PRIMARY KEY (owner, id))`);
      // One row, rewritten to start the WAL over while idle (see checkpointNow).
      db.exec('CREATE TABLE IF NOT EXISTS kernel_wal_restarts (id INTEGER PRIMARY KEY CHECK (id = 1), restarts INTEGER NOT NULL)');
      // Which owner's migrations made each schema object (schema-owners.ts).
      ensureOwnerTables(db);
    } catch (err) {
      if (db?.open) db.close();
      throw openError(this.file, err);
    }
    this.db = db;
    // Taken once the file is open and written (journal_mode, the tables above): a path that is not a
    // file (":memory:", "" for a temporary database) has nothing to check. Absolute, as SQLite opened
    // it: a relative data dir must not seem moved after a change of the working directory.
    const abs = path.resolve(this.file);
    const st = fs.statSync(abs, { throwIfNoEntry: false });
    this.identity = st?.isFile() ? { path: abs, dev: st.dev, ino: st.ino } : undefined;
    this.migrations = new MigrationRunner(this.db, (fn) => this.transaction(fn), this.logger);
  }

  /**
   * Throw KERNEL_ERR_STORAGE when the database's path no longer leads to the file this connection
   * has open: moved, deleted (an `rm -rf` of the data dir) or replaced while the server runs. SQLite
   * keeps writing to the open file without a word (its own check, SQLITE_READONLY_DBMOVED, is made
   * with a rollback journal only, not in WAL mode), and the next start opens what is at the path:
   * every write acknowledged meanwhile would be lost. Reads go on from the open file.
   * One stat of the path when it was last looked at DB_FILE_CHECK_MS ago or more (here or in the
   * idle time after a write), at every call once the file is found away. A stat that fails for another reason than a missing path (EACCES on the
   * data dir, say) does not refuse: the file is not known to be gone.
   */
  checkFileInPlace(): void {
    if (!this.identity) return;
    if (this.inPlace && performance.now() - this.checkedAt < DB_FILE_CHECK_MS) return;
    const st = this.lookAtFile();
    if (!this.inPlace) throw movedError(this.file, st ? 'another file is at its path now' : 'no file is at its path now');
  }

  /**
   * Stat the database's path and note whether it still leads to the open file (inPlace); answers
   * what is at the path. Called by checkFileInPlace, and off the request path after each write
   * (checkpointSoon's timer), so the next write is refused without a stat of its own.
   */
  private lookAtFile(): fs.Stats | undefined {
    if (!this.identity) return undefined;
    this.checkedAt = performance.now();
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(this.identity.path, { throwIfNoEntry: false });
    } catch (err) {
      // ENOTDIR: a folder of the path is a file now. Anything else tells nothing about the file.
      if ((err as NodeJS.ErrnoException).code !== 'ENOTDIR') {
        this.inPlace = true;
        return undefined;
      }
    }
    this.inPlace = st !== undefined && st.dev === this.identity.dev && st.ino === this.identity.ino;
    return st;
  }

  /** A cached prepared statement. */
  prepare(sql: string): Database.Statement {
    let st = this.statements.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.statements.set(sql, st);
    }
    return st;
  }

  /**
   * Run fn in a BEGIN IMMEDIATE transaction, so writers in other processes wait their turn; inside
   * an open transaction, in a savepoint. Either way a throw undoes every write fn made and is thrown
   * on. fn must be synchronous (a transaction cannot be held across an await). The kernel runs each
   * call of a tool that is not read-only in one (Kernel.callToolNow); a plugin's async handler
   * groups its writes with it. A transaction that is not nested first checks the database file is
   * still at its path (checkFileInPlace), and is refused, with nothing written, when it is not.
   */
  transaction<T>(fn: () => T): T {
    if (this.db.inTransaction) return this.savepoint(fn);
    this.checkFileInPlace();
    return this.outermost(() => runTransaction(this.db, fn));
  }

  /**
   * transaction(fn), except that when another connection holds the write lock at the BEGIN it
   * answers a LockTaken at once (nothing begun, fn not run, the database file checked only)
   * instead of waiting up to the busy timeout with the event loop blocked: the kernel's tool calls
   * wait for the lock themselves (write-queue.ts). Inside an open transaction, a savepoint.
   */
  transactionIfFree<T>(fn: () => T): T | LockTaken {
    if (this.db.inTransaction) return this.savepoint(fn);
    this.checkFileInPlace();
    return this.outermost(() => runTransactionIfFree(this.db, fn));
  }

  /**
   * transaction(fn) for code that can wait (a `transaction: false` tool's handler, an event
   * handler, a timer): it answers a promise, and when another process holds the write lock it waits
   * for it without blocking the event loop, in the kernel's WriteQueue (`writes`, with the write
   * calls of this process, in order), tried again on SQLite's own busy schedule until the
   * connection's busy timeout has passed since `wait.since` (now when absent); then it fails with
   * the SQLITE_BUSY a BEGIN that waited in SQLite's busy handler got, its wait noted (a tool's
   * failure is KERNEL_ERR_BUSY, storageFailureError). While other writes of this process wait, it
   * waits behind them. An abort of `wait.signal` while it waits fails it (KERNEL_ERR_TOOL_FAILED),
   * close() too (KERNEL_ERR_CLOSED), and one asked after close() fails with it at once; either way fn never ran. Inside an open transaction fn runs at
   * once in a savepoint (no BEGIN of its own). fn must be synchronous, as for transaction().
   */
  transactionWhenFree<T>(fn: () => T, wait: WriteWait = {}): Promise<T> {
    return this.whenFree(() => this.transactionIfFree(fn), () => this.savepoint(fn), wait);
  }

  /**
   * transactionWhenFree for work that cannot run in the kernel's transaction: a statement that
   * refuses one (VACUUM), or code that opens its own transaction. fn runs outside any transaction
   * with the connection's busy_timeout at 0 (given back after it): a SQLITE_BUSY it throws (another
   * process holds the write lock) means it waits in the WriteQueue, as transactionWhenFree, and is
   * run again. So fn must have written nothing when it throws SQLITE_BUSY (one transaction of its
   * own, or one statement), or be safe to run again (the migrations: only what is pending). Out of budget it fails with that SQLITE_BUSY, its wait noted. Inside an
   * open transaction fn runs at once (as it would have: a VACUUM there fails as before).
   */
  writeWhenFree<T>(fn: () => T, wait: WriteWait = {}): Promise<T> {
    const attempt = (): T | LockTaken => {
      const busy = busyTimeoutStatements(this.db);
      const timeout = busy.read.get() as number;
      busy.zero.run();
      try {
        return fn();
      } catch (err) {
        if (isBusyError(err) && !this.db.inTransaction) return new LockTaken(err, timeout);
        throw err;
      } finally {
        busy.restore(timeout).run();
      }
    };
    return this.whenFree(attempt, fn, wait);
  }

  /**
   * `attempt` now when no write of this process waits and it gets the lock, else in the WriteQueue
   * until it does (or the wait ends); `nested` instead inside an open transaction.
   */
  private whenFree<T>(attempt: () => T | LockTaken, nested: () => T, wait: WriteWait): Promise<T> {
    const since = wait.since ?? performance.now();
    let first: LockTaken | undefined;
    // After close(): the driver's "database connection is not open" named no cause the caller could act on.
    if (!this.db.open || this.writes.closed) return Promise.reject(closedStorageError(this.file));
    try {
      if (this.db.inTransaction) return Promise.resolve(nested());
      if (this.writes.length === 0) {
        const got = attempt();
        if (!(got instanceof LockTaken)) return Promise.resolve(got);
        first = got;
      }
    } catch (err) {
      return Promise.reject(err);
    }
    const budgetMs = first ? first.budgetMs : this.busyTimeoutMs();
    return this.writes.wait(attempt, { since, budgetMs, first, signal: wait.signal }) as Promise<T>;
  }

  /** The connection's busy timeout in ms: how long a write waits for another connection's write lock. */
  busyTimeoutMs(): number {
    return busyTimeoutStatements(this.db).read.get() as number;
  }

  /** run, the outermost transaction: its followers are told how it ended; a LockTaken began nothing. */
  private outermost<T>(run: () => T): T {
    const followers: TransactionFollower[] = [];
    this.followers = followers;
    let result: T;
    try {
      result = run();
    } catch (err) {
      this.followers = null;
      this.tell(followers, (f) => f.rolledBack());
      throw err;
    }
    this.followers = null;
    if (result instanceof LockTaken) return result;
    this.checkpointSoon();
    this.tell(followers, (f) => f.committed());
    return result;
  }

  /** fn in a savepoint of the open transaction; its followers drop what they kept inside it when it rolls back. */
  private savepoint<T>(fn: () => T): T {
    const followers = this.followers;
    if (!followers) return runTransaction(this.db, fn);
    const marks = followers.map((f) => f.mark());
    try {
      return runTransaction(this.db, fn);
    } catch (err) {
      // A follower that joined inside the savepoint kept nothing from before it.
      if (this.db.inTransaction) this.tell(followers, (f, i) => f.savepointRolledBack(marks[i] ?? 0));
      throw err;
    }
  }

  afterTransaction(follower: TransactionFollower): boolean {
    if (!this.followers || !this.db.inTransaction) return false;
    this.followers.push(follower);
    return true;
  }

  /** Tell each follower how the transaction ended: one that throws is logged, not thrown (the outcome is settled). */
  private tell(followers: readonly TransactionFollower[], what: (f: TransactionFollower, i: number) => void): void {
    followers.forEach((f, i) => {
      try {
        what(f, i);
      } catch (err) {
        this.logger.error(`work after a transaction failed: ${(err as Error).message}`);
      }
    });
  }

  /**
   * Ask for a passive checkpoint CHECKPOINT_DELAY_MS from now (one pending at a time): call after
   * committing a write. Passive: it copies what no reader still needs and never waits for a lock.
   */
  checkpointSoon(): void {
    if (this.checkpointTimer || !this.db.open) return;
    this.checkpointTimer = setTimeout(() => {
      this.checkpointTimer = null;
      // In the idle time after a write: is the file still there (the next write need not stat)?
      this.lookAtFile();
      this.checkpointNow();
    }, CHECKPOINT_DELAY_MS);
    // A pending checkpoint never keeps the process alive; SQLite checkpoints on close.
    this.checkpointTimer.unref();
  }

  /** Run a passive checkpoint now, or later when a transaction is open on this connection. */
  checkpointNow(): void {
    if (!this.db.open) return;
    if (this.db.inTransaction) {
      this.checkpointSoon();
      return;
    }
    try {
      const done = this.prepare('PRAGMA wal_checkpoint(PASSIVE)').get() as { busy: number; log: number; checkpointed: number } | undefined;
      if (done && done.busy === 0 && done.log > 0 && done.checkpointed === done.log) this.restartWal();
    } catch {
      // Nothing is lost: the frames stay in the WAL for the next checkpoint (or the backstop, or close).
    }
  }

  /**
   * Every frame of the WAL is in the database file, so the next write starts the WAL over, and
   * first syncs its new header to disk: a sync of 0.3-1 ms that would land in the next request.
   * One small write now, while idle, takes it instead. It does not ask for another checkpoint, so
   * an idle server stays idle; where another connection still reads the old frames, SQLite only
   * appends, as it would have for the next request. It never waits for a lock: while another
   * connection writes, it is skipped (SQLITE_BUSY), and the next write restarts the WAL as before.
   */
  private restartWal(): void {
    writeIfFree(this.db, () => {
      this.prepare('INSERT INTO kernel_wal_restarts (id, restarts) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET restarts = restarts + 1').run();
    });
  }

  /**
   * Apply the owner's pending migrations, each in its own transaction; answers the ids applied.
   * Idempotent. See MigrationRunner.migrate (migrations.ts) for what is refused.
   */
  migrate(owner: string, migrations: readonly Migration[], scope?: SchemaScope): number[] {
    return this.migrations.migrate(owner, migrations, scope);
  }

  /** Re-run migrate for every owner known in this process (memory_heal remigrate). */
  remigrate(): Record<string, number[]> {
    return this.migrations.remigrate();
  }

  /** The migration head per owner: what is applied against what this process knows. */
  status(): MigrationStatus[] {
    return this.migrations.status();
  }

  /** True when the database answers a trivial query. */
  ping(): boolean {
    try {
      return (this.db.prepare('SELECT 1 AS ok').get() as { ok: number }).ok === 1;
    } catch {
      return false;
    }
  }

  close(): void {
    if (this.checkpointTimer) clearTimeout(this.checkpointTimer);
    this.checkpointTimer = null;
    this.statements.clear();
    // Writes still waiting for another process's lock fail KERNEL_ERR_CLOSED, not on a closed connection.
    this.writes.close();
    if (this.db.open) this.db.close();
  }
}
