import { openSqlite } from '@memory-service/kernel';
import type { StoreContext } from './context.js';
import type { Replica } from './replica.js';
import { LAYERS, type Layer } from './types.js';

/**
 * The kinds of memory records counted for metrics, each with the table that holds them: the
 * spec's memory levels (L1 buffer, L2 sessions, scratchpad, L3 episodes, L4 facts, the wiki's
 * pages and links, the graph's nodes and edges, the timeline) and the Shadow Bin, named `archive`
 * as the spec calls it. Telemetry and trails (recall_events, audit_log) are not memories.
 */
export const RECORD_KIND_TABLES = {
  l1_items: 'l1_items',
  sessions: 'sessions',
  scratchpad: 'scratchpad',
  episodes: 'episodes',
  facts: 'facts',
  wiki_pages: 'wiki_pages',
  wiki_links: 'wiki_links',
  graph_nodes: 'graph_nodes',
  graph_edges: 'graph_edges',
  timeline_events: 'timeline_events',
  archive: 'shadow_bin',
} as const;
export type RecordKind = keyof typeof RECORD_KIND_TABLES;
export const RECORD_KINDS = Object.keys(RECORD_KIND_TABLES) as RecordKind[];

/** One kind's records in one layer, all user_ids. */
export interface RecordCount {
  kind: RecordKind;
  layer: Layer;
  count: number;
}

export interface RecordCounts {
  /** Where the counts were read: the replica when it is fresh (memory_sync_replica status), else the live database. */
  source: 'replica' | 'live';
  /** The replica's age by the clock, in seconds, when one exists with a known sync time; null otherwise. */
  replica_age_seconds: number | null;
  /** Every kind in every layer (0 when it has none), in RECORD_KINDS then LAYERS order. */
  counts: RecordCount[];
}

/** The query counting one table's rows per layer: a scan of an index that starts with layer (every counted table has one). */
export function countSql(kind: RecordKind): string {
  return `SELECT layer, COUNT(*) AS n FROM ${RECORD_KIND_TABLES[kind]} GROUP BY layer`;
}

interface Prepared {
  all(): unknown[];
}

/** Every kind in every layer through `prepare`, one COUNT query per table. */
function countWith(prepare: (sql: string) => Prepared): RecordCount[] {
  const out: RecordCount[] = [];
  for (const kind of RECORD_KINDS) {
    const byLayer = new Map<string, number>();
    for (const row of prepare(countSql(kind)).all() as { layer: string; n: number }[]) byLayer.set(row.layer, row.n);
    for (const layer of LAYERS) out.push({ kind, layer, count: byLayer.get(layer) ?? 0 });
  }
  return out;
}

/**
 * Record counts per kind and layer, summed over user_ids, for the server's /metrics: read from the
 * replica (<data_dir>/replica.db, on a read-only connection opened for the read) while
 * memory_sync_replica's status calls it fresh, so a scrape does not read the live database; else,
 * or when the replica cannot be read, from the live database with cached statements.
 */
export class RecordCounter {
  constructor(
    private readonly ctx: StoreContext,
    private readonly replica: Replica,
  ) {}

  read(): RecordCounts {
    const status = this.replica.status();
    if (status.fresh) {
      try {
        return { source: 'replica', replica_age_seconds: status.age_seconds, counts: this.fromReplica() };
      } catch (err) {
        // A replica this service stamped but cannot read now (damaged, or replaced by a file of an older schema).
        this.ctx.logger.warn(`record counts: the replica cannot be read (${(err as Error).message}); counting the live database`);
      }
    }
    return { source: 'live', replica_age_seconds: status.age_seconds, counts: countWith((sql) => this.ctx.stmt(sql)) };
  }

  private fromReplica(): RecordCount[] {
    const db = openSqlite(this.replica.file, { readonly: true, fileMustExist: true });
    try {
      return countWith((sql) => db.prepare(sql));
    } finally {
      db.close();
    }
  }
}
