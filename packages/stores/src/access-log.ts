import type { AccessTable, StoreContext } from './context.js';
import { EPISODE_PREFIX } from './episodes.js';
import { FACT_PREFIX } from './facts.js';
import { NODE_PREFIX } from './graph.js';
import { parseId } from './util.js';

export type { AccessTable };

/** Which table and id prefix a retrieval hit's source stands for; other sources keep no count. */
const ACCESS_SOURCES: Readonly<Record<string, readonly [AccessTable, string]>> = Object.freeze({
  l3: ['episodes', EPISODE_PREFIX],
  l4: ['facts', FACT_PREFIX],
  graph: ['graph_nodes', NODE_PREFIX],
});

interface Pending {
  /** Accesses not written yet. */
  n: number;
  /** The latest of them. */
  last: string;
}

/**
 * Retrieval accesses waiting to be written, coalesced per row: a memory that several recalls of
 * one batch return costs one UPDATE adding their number, and the batch's rows are written in id
 * order. Each access would otherwise rewrite its row's page on its own: under a steady stream of
 * recalls over a large store, those page writes (and the checkpoints that copy them into the
 * database file, with their fsyncs) were most of the server's own work after the answers.
 */
export class AccessLog {
  private readonly tables = new Map<AccessTable, Map<number, Pending>>();
  private pendingRows = 0;

  /** Distinct rows with accesses not written yet. */
  get rows(): number {
    return this.pendingRows;
  }

  /** Count one access at `at` (ISO) on each hit's row; hits of sources that keep no count, and malformed ids, are skipped. */
  add(hits: readonly { source: string; id: string }[], at: string): void {
    for (const h of hits) {
      const target = ACCESS_SOURCES[h.source];
      if (!target) continue;
      const id = parseId(target[1], h.id);
      if (id !== null) this.merge(target[0], id, 1, at);
    }
  }

  /** Accesses of a hit's row (by source and row id) not written yet: 0 for a source that keeps no count. */
  pending(source: string, id: number): number {
    const target = ACCESS_SOURCES[source];
    return target ? (this.tables.get(target[0])?.get(id)?.n ?? 0) : 0;
  }

  /**
   * Take every pending access out, or null when none is pending: `write` writes them (run it inside
   * the caller's transaction; rows deleted since are skipped by their UPDATE), `putBack` returns
   * them to the log when the write did not happen.
   */
  take(ctx: StoreContext): { write(): void; putBack(): void } | null {
    if (this.pendingRows === 0) return null;
    const taken = [...this.tables].map(([table, rows]) => [table, [...rows].sort((a, b) => a[0] - b[0])] as const);
    this.tables.clear();
    this.pendingRows = 0;
    return {
      write: () => {
        for (const [table, rows] of taken) for (const [id, p] of rows) ctx.addAccess(table, id, p.n, p.last);
      },
      putBack: () => {
        for (const [table, rows] of taken) for (const [id, p] of rows) this.merge(table, id, p.n, p.last);
      },
    };
  }

  private merge(table: AccessTable, id: number, n: number, last: string): void {
    let rows = this.tables.get(table);
    if (!rows) this.tables.set(table, (rows = new Map()));
    const p = rows.get(id);
    if (p) {
      p.n += n;
      if (last > p.last) p.last = last;
    } else {
      rows.set(id, { n, last });
      this.pendingRows++;
    }
  }
}
