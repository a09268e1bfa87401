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
      if (err && typeof err === 'object') lockWaits.set(err, performance.now() - asked);
      throw err;
    }
  }
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
