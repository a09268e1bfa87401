import type BetterSqlite3 from 'better-sqlite3';
import { runTransaction, type Logger, type TransactionFollower, type TransactionHost, type WriteWait } from '@memory-service/kernel';
import type { Clock, Database, Scope, StoresConfig } from './types.js';
import { checkScope, nowIso, parseId, toIso } from './util.js';
import { windowUntilNow, type TimeWindow } from './iso-time.js';

/** The tables whose rows count retrieval accesses (access_count, last_access). */
export type AccessTable = 'episodes' | 'facts' | 'graph_nodes';
/** Per-scope tables (layer, user_id, created) whose rows deleteScoped removes. */
export type ScopedTable = 'counterfactuals' | 'disclosure_rules' | 'fact_branches' | 'procedures' | 'reflections' | 'scratchpad_stashes' | 'watch_rules';

/** What every store shares: the connection with a statement cache, the data dir, the clock, the config. */
export class StoreContext {
  private readonly cache = new Map<string, BetterSqlite3.Statement>();
  /** Work waiting for the commit of the transaction open now (see onCommit). */
  private readonly commitHooks: (() => void)[] = [];
  /** True while the transaction open now is one tx() opened or follows (its commit runs commitHooks). */
  private owning = false;
  /** Counts the transactions tx() opened: names the one open now (see openTransaction). */
  private generation = 0;

  constructor(
    readonly db: Database,
    readonly dataDir: string,
    readonly clock: Clock,
    readonly config: StoresConfig,
    readonly logger: Logger,
    private readonly afterCommit: () => void = () => undefined,
    /** The kernel's storage: a transaction it opened (a tool call's) is followed like one of tx()'s (see follow). */
    private readonly host?: TransactionHost,
  ) {}

  /** A prepared statement, cached by its SQL text. */
  stmt(sql: string): BetterSqlite3.Statement {
    let st = this.cache.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.cache.set(sql, st);
    }
    return st;
  }

  /** Depth of bulk() calls under way: while above 0, tx() inside the open transaction opens no savepoint. */
  private flatDepth = 0;

  /**
   * Run fn in one transaction (the open one, or one opened here) with the store writes it makes going
   * straight into it instead of each into a savepoint of its own: for a bulk writer that is all or
   * nothing anyway (memory_data import). A statement run inside a savepoint that is still open
   * costs more the more was written since it opened (SQLite keeps those pages in its sub-journal):
   * an import replace clearing 8,000 episodes inside a tool call took 2.1 s, growing with the square
   * of the records (10,000 memories: about 95 s through the server). A store call in fn that throws
   * leaves its writes to the transaction's rollback, so fn must not catch a store error and go on.
   */
  bulk<T>(fn: () => T): T {
    if (!this.db.inTransaction) return this.tx(() => this.bulk(fn));
    this.follow();
    this.flatDepth++;
    try {
      return fn();
    } finally {
      this.flatDepth--;
    }
  }

  /**
   * Run fn in a BEGIN IMMEDIATE transaction so writers in other processes wait their turn.
   * Inside an open transaction fn runs in a savepoint: a throw undoes fn's writes only (a caller
   * that catches it keeps its own), and the outer transaction's rollback undoes them all.
   * After the outermost commit, the commit hooks and afterCommit run (not after a rollback): for a
   * transaction this context opened, or one the kernel opened for a tool call (host), which it follows.
   * An outermost transaction is refused first, with nothing written, when the host finds the database
   * file moved or deleted (checkFileInPlace: a write would be lost at the next start).
   */
  tx<T>(fn: () => T): T {
    if (this.db.inTransaction) {
      this.follow();
      // Inside bulk(): the transaction is the unit, and its rollback undoes fn's writes.
      if (this.flatDepth > 0) return fn();
      const mark = this.commitHooks.length;
      try {
        return runTransaction(this.db, fn);
      } catch (err) {
        // The savepoint rolled back: so does the work its writes kept for the commit.
        this.commitHooks.length = Math.min(mark, this.commitHooks.length);
        throw err;
      }
    }
    this.checkFileInPlace();
    // Left by a transaction this context did not open: its outcome is unknown, so they never run.
    this.commitHooks.length = 0;
    let result: T;
    this.owning = true;
    this.generation++;
    try {
      result = runTransaction(this.db, fn);
    } catch (err) {
      this.commitHooks.length = 0;
      throw err;
    } finally {
      this.owning = false;
    }
    this.committed();
    return result;
  }

  /**
   * tx(fn) for a caller that can wait (a `transaction: false` tool, an event handler): when another
   * process holds the write lock, it waits for it without blocking the event loop, in the kernel's
   * write queue (TransactionHost.transactionWhenFree: within the busy timeout counted from
   * `wait.since`, ended by `wait.signal` or close), instead of in SQLite's busy handler, which
   * stops the whole server. fn runs in the kernel's transaction as if tx() had opened it (its
   * commit hooks run when it commits, with no savepoint of its own). Inside an open transaction,
   * and without a kernel (a Stores on a bare connection), it is tx(fn).
   */
  txWhenFree<T>(fn: () => T, wait?: WriteWait): Promise<T> {
    const host = this.host;
    if (!host || this.db.inTransaction) {
      try {
        return Promise.resolve(this.tx(fn));
      } catch (err) {
        return Promise.reject(err);
      }
    }
    return host.transactionWhenFree(() => {
      this.follow();
      return fn();
    }, wait);
  }

  /**
   * Run fn, which writes outside any transaction this context follows (VACUUM, or a transaction of
   * its own through tx()), once this process may take the write lock: while another process holds
   * it, fn waits in the kernel's write queue (TransactionHost.writeWhenFree) instead of in SQLite's
   * busy handler, and a SQLITE_BUSY it throws means it is run again, so it must have written nothing
   * then (one transaction or one statement), or be safe to run again. Inside an open transaction, and without a kernel, fn
   * runs at once.
   */
  writeWhenFree<T>(fn: () => T, wait?: WriteWait): Promise<T> {
    const host = this.host;
    if (!host || this.db.inTransaction) {
      try {
        return Promise.resolve(fn());
      } catch (err) {
        return Promise.reject(err);
      }
    }
    return host.writeWhenFree(fn, wait);
  }

  /**
   * Run fn as one read: a deferred transaction (BEGIN DEFERRED), one snapshot of the database for
   * all fn's statements, taking no write lock (under WAL a reader neither waits for a writer of
   * another process nor holds one up); inside an open transaction fn runs in it. For reads only
   * (memory_data export): a write in fn would ask for the lock then. No commit hooks run after it.
   */
  read<T>(fn: () => T): T {
    if (this.db.inTransaction) return fn();
    return runTransaction(this.db, fn, 'deferred');
  }

  /**
   * Throw KERNEL_ERR_STORAGE when the database file is no longer at its path (moved, deleted or
   * replaced while the server runs: TransactionHost.checkFileInPlace); nothing to check without a host.
   */
  checkFileInPlace(): void {
    this.host?.checkFileInPlace();
  }

  /**
   * After the commit of a transaction this context owned: whatever a hook does, the call succeeded,
   * and a hook that fails (a file that cannot be written) neither skips the hooks after it nor
   * fails the call.
   */
  private committed(): void {
    this.owning = false;
    for (const hook of this.commitHooks.splice(0)) {
      try {
        hook();
      } catch (err) {
        this.logger.error(`work after a commit failed: ${(err as Error).message}`);
      }
    }
    this.afterCommit();
  }

  /**
   * Inside a transaction the kernel opened (a tool call's, see Kernel.callToolNow), own it as if
   * tx() had opened it: the commit hooks and afterCommit run when it commits, and are dropped
   * when it rolls back. True when the open transaction is one this context follows.
   */
  private readonly follower: TransactionFollower = {
    committed: () => this.committed(),
    rolledBack: () => {
      this.owning = false;
      this.commitHooks.length = 0;
    },
    mark: () => this.commitHooks.length,
    savepointRolledBack: (mark) => {
      this.commitHooks.length = Math.min(mark, this.commitHooks.length);
    },
  };

  private follow(): boolean {
    if (this.owning) return true;
    if (!this.db.inTransaction || !this.host) return false;
    const followed = this.host.afterTransaction(this.follower);
    if (!followed) return false;
    // Left by a transaction this context did not follow: its outcome is unknown, so they never run.
    this.commitHooks.length = 0;
    this.owning = true;
    this.generation++;
    return true;
  }

  /**
   * Run fn once the open transaction commits, or now when none is open. It never runs when the
   * transaction rolls back, nor when the transaction was not opened by tx(): an in-memory copy
   * kept this way only ever holds what the database holds.
   */
  onCommit(fn: () => void): void {
    this.follow();
    if (this.db.inTransaction) this.commitHooks.push(fn);
    else fn();
  }

  /**
   * Run fn once the open transaction commits when tx() opened it or follows it (a tool call's), and
   * at once otherwise (no transaction, or one opened elsewhere, whose outcome this context cannot see). For effects
   * outside the database that must not outlive a rollback, such as a wiki page's file.
   */
  whenCommitted(fn: () => void): void {
    if (this.openTransaction() !== null) this.commitHooks.push(fn);
    else fn();
  }

  /** A number naming the transaction tx() has open (or follows) now, or null when none is (see whenCommitted). */
  openTransaction(): number | null {
    return this.db.inTransaction && this.follow() ? this.generation : null;
  }

  /**
   * SQLite's data_version: it changes when another connection (another process, or another
   * Stores) commits, and only then. An in-memory copy of rows taken at one value is still the
   * database's own at the same value, as long as this connection's writes keep it up to date.
   */
  dataVersion(): number {
    return this.stmt('PRAGMA data_version').pluck(true).get() as number;
  }

  /**
   * Count one retrieval access on each row named by a `<prefix>_<rowid>` id (access_count and
   * last_access), in one transaction. Ids of another prefix are ignored.
   */
  bumpAccess(table: AccessTable, prefix: string, ids: readonly string[]): void {
    const now = this.iso();
    this.tx(() => {
      for (const id of ids) {
        const n = parseId(prefix, id);
        if (n !== null) this.addAccess(table, n, 1, now);
      }
    });
  }

  /** Add `count` retrieval accesses, the latest at `at` (ISO), to one row; a row that does not exist is left alone. */
  addAccess(table: AccessTable, rowid: number, count: number, at: string): void {
    this.stmt(`UPDATE ${table} SET access_count = access_count + ?, last_access = ? WHERE id = ?`).run(count, at, rowid);
  }

  /**
   * Delete a scope's rows of a per-scope table, all of them or those created at or after `sinceIso`
   * (memory_data import replace; forget recent and memory_lucidity_purge), in one transaction;
   * returns how many. `table` is a table of the stores' schema, never a caller's text.
   */
  deleteScoped(table: ScopedTable, scope: Scope, sinceIso?: string): number {
    checkScope(scope);
    const w = sinceIso === undefined ? null : this.window(sinceIso);
    return this.tx(() =>
      w === null
        ? this.stmt(`DELETE FROM ${table} WHERE layer = ? AND user_id = ?`).run(scope.layer, scope.user_id).changes
        : this.stmt(`DELETE FROM ${table} WHERE layer = ? AND user_id = ? AND created >= ? AND created <= ?`).run(scope.layer, scope.user_id, w.since, w.until).changes,
    );
  }

  /**
   * The window a store's deleteSince removes (forget recent, memory_lucidity_purge): from the ISO
   * time up to the clock's now, both included; a record dated after now is in no window (iso-time
   * windowUntilNow).
   */
  window(sinceIso: string): TimeWindow {
    return windowUntilNow(toIso(sinceIso), this.clock.now());
  }

  /** The clock's time as an ISO string. */
  iso(): string {
    return nowIso(this.clock);
  }
}
