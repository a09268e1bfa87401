import crypto from 'node:crypto';
import fs from 'node:fs';
import { fileFailureError, openSqlite } from '@memory-service/kernel';
import type { StoreContext } from './context.js';
import { safeJoin } from './paths.js';
import type { Scope } from './types.js';
import { checkScope } from './util.js';
import { snapshotInto } from './ops/snapshot-copy.js';

/** The replica's file in the data dir. */
export const REPLICA_FILE = 'replica.db';
/** A replica synced at most this many seconds ago is fresh (memory_sync_replica status). */
export const REPLICA_FRESH_SECONDS = 300;
/** The tables a replica reports row counts of: the memory stores a dashboard or metrics reads. */
export const REPLICA_COUNTED_TABLES = [
  'facts',
  'episodes',
  'wiki_pages',
  'wiki_links',
  'graph_nodes',
  'graph_edges',
  'timeline_events',
  'sessions',
  'scratchpad',
  'l1_items',
  'recall_events',
  'shadow_bin',
  'audit_log',
] as const;
/** Rows per counted table (every one carries layer and user_id). */
type Counts = Record<(typeof REPLICA_COUNTED_TABLES)[number], number>;

export interface ReplicaSync {
  path: string;
  size_bytes: number;
  synced_at: string;
  /** Milliseconds the copy took (wall time, not the injected clock). */
  duration_ms: number;
  rows: Counts;
  scope_rows: Counts;
}

export interface ReplicaStatus {
  exists: boolean;
  path: string;
  size_bytes: number | null;
  synced_at: string | null;
  age_seconds: number | null;
  fresh: boolean;
  fresh_seconds: number;
}

/**
 * The read-only replica of memory.db at `<data_dir>/replica.db`: a whole copy taken with SQLite's
 * online backup (pages copied in steps, writes of this connection carried over), switched to a
 * rollback journal so it is one self-contained file, stamped with its sync time (from the injected
 * clock) in a `replica_meta` table, and moved into place by rename, so a reader sees the previous
 * copy or the new one, never half of one.
 */
export class Replica {
  constructor(private readonly ctx: StoreContext) {}

  get file(): string {
    return safeJoin(this.ctx.dataDir, REPLICA_FILE);
  }

  async sync(scope: Scope): Promise<ReplicaSync> {
    checkScope(scope);
    const file = this.file;
    const tmp = `${file}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`;
    const started = performance.now();
    const syncedAt = this.ctx.iso();
    try {
      // One snapshot held for the whole copy: under a steady writer in another process the backup API restarted it without end.
      await snapshotInto(this.ctx, tmp);
      const copy = openSqlite(tmp);
      let rows: Counts;
      let scopeRows: Counts;
      try {
        copy.pragma('journal_mode = DELETE');
        copy.exec('CREATE TABLE IF NOT EXISTS replica_meta (id INTEGER PRIMARY KEY CHECK (id = 1), synced_at TEXT NOT NULL)');
        copy.prepare('INSERT INTO replica_meta (id, synced_at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET synced_at = excluded.synced_at').run(syncedAt);
        rows = countRows(copy, null);
        scopeRows = countRows(copy, scope);
      } finally {
        copy.close();
      }
      fs.renameSync(tmp, file);
      return { path: REPLICA_FILE, size_bytes: fs.statSync(file).size, synced_at: syncedAt, duration_ms: Math.round(performance.now() - started), rows, scope_rows: scopeRows };
    } catch (err) {
      for (const f of [tmp, `${tmp}-journal`, `${tmp}-wal`, `${tmp}-shm`]) fs.rmSync(f, { force: true });
      // The disk full, no file descriptors left ("unable to open database file"): named with the file and what to do.
      throw fileFailureError(file, err, 'syncing the replica') ?? err;
    }
  }

  /** Whether the replica exists, when it was synced (its stamp), its age by the clock and size. */
  status(): ReplicaStatus {
    const file = this.file;
    const none: ReplicaStatus = { exists: false, path: REPLICA_FILE, size_bytes: null, synced_at: null, age_seconds: null, fresh: false, fresh_seconds: REPLICA_FRESH_SECONDS };
    let size: number;
    try {
      size = fs.statSync(file).size;
    } catch {
      return none;
    }
    let syncedAt: string | null = null;
    try {
      const db = openSqlite(file, { readonly: true, fileMustExist: true });
      try {
        syncedAt = (db.prepare('SELECT synced_at FROM replica_meta WHERE id = 1').pluck(true).get() as string | undefined) ?? null;
      } finally {
        db.close();
      }
    } catch {
      // Not a replica this service wrote (or damaged): it exists, with no known age.
    }
    const age = syncedAt === null ? null : Math.max(0, Math.round((this.ctx.clock.now() - Date.parse(syncedAt)) / 1000));
    return { exists: true, path: REPLICA_FILE, size_bytes: size, synced_at: syncedAt, age_seconds: age, fresh: age !== null && age <= REPLICA_FRESH_SECONDS, fresh_seconds: REPLICA_FRESH_SECONDS };
  }
}

function countRows(db: { prepare(sql: string): { pluck(on: boolean): { get(...args: unknown[]): unknown } } }, scope: Scope | null): Counts {
  const out = {} as Counts;
  for (const t of REPLICA_COUNTED_TABLES) {
    out[t] = scope
      ? (db.prepare(`SELECT COUNT(*) FROM ${t} WHERE layer = ? AND user_id = ?`).pluck(true).get(scope.layer, scope.user_id) as number)
      : (db.prepare(`SELECT COUNT(*) FROM ${t}`).pluck(true).get() as number);
  }
  return out;
}
