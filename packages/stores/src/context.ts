import type BetterSqlite3 from 'better-sqlite3';
import type { Clock, Database, StoresConfig } from './types.js';

/** The tables whose rows count retrieval accesses (access_count, last_access). */
export type AccessTable = 'episodes' | 'facts' | 'graph_nodes';
import { nowIso, parseId } from './util.js';

/** What every store shares: the connection with a statement cache, the data dir, the clock, the config. */
export class StoreContext {
  private readonly cache = new Map<string, BetterSqlite3.Statement>();

  constructor(
    readonly db: Database,
    readonly dataDir: string,
    readonly clock: Clock,
    readonly config: StoresConfig,
    private readonly afterCommit: () => void = () => undefined,
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

  /**
   * Run fn in a BEGIN IMMEDIATE transaction so writers in other processes wait their turn.
   * Inside an open transaction fn simply joins it: an error still rolls the whole transaction back.
   * After a commit, afterCommit runs (not after a rollback, nor for a joined call).
   */
  tx<T>(fn: () => T): T {
    if (this.db.inTransaction) return fn();
    const result = this.db.transaction(fn).immediate();
    this.afterCommit();
    return result;
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

  /** The clock's time as an ISO string. */
  iso(): string {
    return nowIso(this.clock);
  }
}
