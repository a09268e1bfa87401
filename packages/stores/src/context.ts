import type BetterSqlite3 from 'better-sqlite3';
import type { Clock, Database, StoresConfig } from './types.js';
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
  bumpAccess(table: 'episodes' | 'facts' | 'graph_nodes', prefix: string, ids: readonly string[]): void {
    const now = this.iso();
    this.tx(() => {
      const st = this.stmt(`UPDATE ${table} SET access_count = access_count + 1, last_access = ? WHERE id = ?`);
      for (const id of ids) {
        const n = parseId(prefix, id);
        if (n !== null) st.run(now, n);
      }
    });
  }

  /** The clock's time as an ISO string. */
  iso(): string {
    return nowIso(this.clock);
  }
}
