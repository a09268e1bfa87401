import type Database from 'better-sqlite3';
import { isPromiseLike } from './promise-like.js';

/** How a transaction that is not nested begins (a nested one is a savepoint whatever is asked). */
export type TransactionBegin = 'immediate' | 'deferred';

interface TransactionStatements {
  immediate: Database.Statement;
  deferred: Database.Statement;
  commit: Database.Statement;
  rollback: Database.Statement;
  savepoint: Database.Statement;
  release: Database.Statement;
  rollbackTo: Database.Statement;
}

/** Per connection, prepared once. */
const prepared = new WeakMap<Database.Database, TransactionStatements>();

/**
 * How long a BEGIN that failed on SQLITE_BUSY waited for the write lock (the busy timeout, spent
 * while another connection held it), by its error: the kernel's KERNEL_ERR_BUSY says how long the
 * call waited (lockWaitError).
 */
const lockWaits = new WeakMap<object, number>();

/** How long the transaction that threw `err` waited for the write lock before giving up, when runTransaction measured it. */
export function lockWaitOf(err: unknown): number | undefined {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const ms = lockWaits.get(e);
    if (ms !== undefined) return ms;
  }
  return undefined;
}

/** A name of our own: savepoints of better-sqlite3's db.transaction() on the same connection nest with these. */
const SAVEPOINT = '"memory_service_sp"';

function statements(db: Database.Database): TransactionStatements {
  let s = prepared.get(db);
  if (!s) {
    s = {
      immediate: db.prepare('BEGIN IMMEDIATE'),
      deferred: db.prepare('BEGIN DEFERRED'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      savepoint: db.prepare(`SAVEPOINT ${SAVEPOINT}`),
      release: db.prepare(`RELEASE ${SAVEPOINT}`),
      rollbackTo: db.prepare(`ROLLBACK TO ${SAVEPOINT}`),
    };
    prepared.set(db, s);
  }
  return s;
}

/**
 * Run fn in a transaction on db (BEGIN IMMEDIATE or DEFERRED), or, inside an open one, in a
 * savepoint; commit (release) when it returns, roll back (to the savepoint) when it throws, and
 * throw on. What better-sqlite3's `db.transaction(fn).immediate()` does, without building four
 * wrapper functions and their properties on every call: that was about a tenth of the server's
 * time in a think (a CPU profile of back-to-back thinks). fn must be synchronous.
 */
export function runTransaction<T>(db: Database.Database, fn: () => T, begin: TransactionBegin = 'immediate'): T {
  const s = statements(db);
  const nested = db.inTransaction;
  if (nested) {
    s.savepoint.run();
  } else {
    const asked = performance.now();
    try {
      s[begin].run();
    } catch (err) {
      // SQLITE_BUSY after the busy timeout: note how long it waited, for the error the caller gets.
      noteLockWait(err, performance.now() - asked);
      throw err;
    }
  }
  return finish(db, s, fn, nested);
}

/** Note how long the write that failed with `err` (SQLITE_BUSY) waited for the write lock in all (lockWaitOf answers it). */
export function noteLockWait(err: unknown, ms: number): void {
  if (err && typeof err === 'object') lockWaits.set(err, ms);
}

/**
 * What runTransactionIfFree answers when another connection holds the write lock: nothing was
 * begun, fn did not run. `error` is SQLite's SQLITE_BUSY, `budgetMs` the connection's busy timeout
 * (how long a caller that waits for the lock itself may wait in all).
 */
export class LockTaken {
  constructor(
    readonly error: unknown,
    readonly budgetMs: number,
  ) {}
}

/** Whether err is SQLITE_BUSY or one of its extended codes. */
export function isBusyError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

interface BusyTimeoutStatements {
  read: Database.Statement;
  zero: Database.Statement;
  restore(ms: number): Database.Statement;
}

const busyTimeouts = new WeakMap<Database.Database, BusyTimeoutStatements>();

/**
 * The pragmas that read the connection's busy_timeout, set it to 0 and give it back, prepared once
 * per connection: db.pragma() compiles its statement on every call (about 0.1 ms for three).
 */
export function busyTimeoutStatements(db: Database.Database): BusyTimeoutStatements {
  let s = busyTimeouts.get(db);
  if (!s) {
    const restores = new Map<number, Database.Statement>();
    s = {
      read: db.prepare('PRAGMA busy_timeout').pluck(),
      zero: db.prepare('PRAGMA busy_timeout = 0'),
      restore: (ms) => {
        let st = restores.get(ms);
        if (!st) restores.set(ms, (st = db.prepare(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(ms))}`)));
        return st;
      },
    };
    busyTimeouts.set(db, s);
  }
  return s;
}

/**
 * runTransaction(db, fn) (BEGIN IMMEDIATE), except that a BEGIN that finds another connection
 * holding the write lock does not wait for it: the busy_timeout is 0 for the BEGIN alone (and given
 * back at once, so the statements inside wait as before), and SQLITE_BUSY there answers a LockTaken
 * with nothing begun and fn not run, so the caller can wait for the lock without blocking the event
 * loop. Inside an open transaction, a savepoint, as runTransaction. A BUSY later (inside fn, at the
 * COMMIT) is thrown as runTransaction throws it.
 */
export function runTransactionIfFree<T>(db: Database.Database, fn: () => T): T | LockTaken {
  const s = statements(db);
  if (db.inTransaction) {
    s.savepoint.run();
    return finish(db, s, fn, true);
  }
  const busy = busyTimeoutStatements(db);
  const timeout = busy.read.get() as number;
  busy.zero.run();
  try {
    s.immediate.run();
  } catch (err) {
    if (isBusyError(err)) return new LockTaken(err, timeout);
    throw err;
  } finally {
    busy.restore(timeout).run();
  }
  return finish(db, s, fn, false);
}

/** fn in the transaction (or savepoint) just opened: commit (release) when it returns, roll back when it throws. */
function finish<T>(db: Database.Database, s: TransactionStatements, fn: () => T, nested: boolean): T {
  try {
    const result = fn();
    if (isPromiseLike(result)) {
      throw new TypeError('a transaction function cannot return a promise');
    }
    (nested ? s.release : s.commit).run();
    return result;
  } catch (err) {
    // A failed COMMIT can leave the transaction open (SQLITE_BUSY): rolled back here, as a throw from fn is.
    if (db.inTransaction) {
      if (nested) {
        s.rollbackTo.run();
        s.release.run();
      } else {
        s.rollback.run();
      }
    }
    throw err;
  }
}
