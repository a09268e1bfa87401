import type { StoreContext } from '../context.js';
import type { Scope } from '../types.js';

/**
 * The sources retrieval searches: each one's table, the weights of its indexed columns, how many
 * of them are the record's own text, and how a search candidate is read from its row. Retrieval
 * (retrieval.ts) scores and fuses the candidates; the indexes (index-sync.ts) take the weights.
 */

export const RETRIEVAL_SOURCES = ['l3', 'l4', 'wiki', 'graph', 'timeline'] as const;
export type RetrievalSource = (typeof RETRIEVAL_SOURCES)[number];

/** A search candidate of one source, as SourceSpec.map reads it from its row. */
export interface Candidate {
  source: RetrievalSource;
  id: string;
  /** The record's row id (`id` without its prefix): the ranking's ties go to the higher (rankOrder, rank.ts). */
  row: number;
  text: string;
  title?: string;
  created: string;
  /** The texts the proximity bonus reads: the indexed columns in index order (an episode's without its context). */
  columns: string[];
  importance: number;
  access: number;
  /** BM25 over the searched sources' shared scale plus the proximity bonus; set once scored. */
  bm25Raw: number;
}

/** How a source is indexed and read. */
export interface SourceSpec {
  table: string;
  /** Column weights, in the order of the indexed text columns (migrations/retrieval-changes.ts). */
  weights: number[];
  /** How many of the first columns are the record's own text; the others are context. */
  own: number;
  /** Columns read for a candidate, from the content table aliased `c`; the first is `c.id`. */
  select: string;
  /** A candidate from its row, read as an array in the order of `select`. */
  map(r: unknown[]): Candidate;
}

/** Weight of an episode's neighbouring context against its own text. */
export const EPISODE_CONTEXT_WEIGHT = 0.5;

/** Every source's spec. */
export const SOURCES: Record<RetrievalSource, SourceSpec> = {
  l3: {
    table: 'episodes',
    weights: [1.0, 0.3, EPISODE_CONTEXT_WEIGHT],
    own: 2,
    // The neighbouring context counts in BM25 (the index) but not in the proximity bonus, which
    // reads the texts of `columns`: a phrase of the query said in a neighbouring turn is that
    // turn's, and its own record gets the bonus. Not read, the context (about twice an episode's
    // own text) costs neither the row read nor the scan. It is not the episode's own text (`own`:
    // the hit's mask marks the terms summary and tags hold, and those of a context that asks
    // something), and a match through a context that asks nothing, alone, keeps
    // CONTEXT_ONLY_SHARE (retrieval.ts) of its BM25.
    select: 'c.id, c.summary, c.tags, c.importance, c.created, c.access_count',
    map: (r) => ({
      source: 'l3',
      id: `ep_${r[0]}`,
      row: Number(r[0]),
      text: String(r[1]),
      // Present though empty: every source's candidates then share one hidden class in V8.
      title: undefined,
      created: String(r[4]),
      columns: [String(r[1]), String(r[2])],
      importance: Number(r[3]),
      access: Number(r[5]),
      bm25Raw: 0,
    }),
  },
  l4: {
    table: 'facts',
    weights: [0.5, 1.0],
    own: 2,
    select: 'c.id, c.key, c.value, c.importance, c.created, c.access_count',
    map: (r) => ({
      source: 'l4',
      id: `fact_${r[0]}`,
      row: Number(r[0]),
      text: `${String(r[1])}: ${String(r[2])}`,
      title: String(r[1]),
      created: String(r[4]),
      columns: [String(r[1]), String(r[2])],
      importance: Number(r[3]),
      access: Number(r[5]),
      bm25Raw: 0,
    }),
  },
  wiki: {
    table: 'wiki_pages',
    weights: [2.0, 1.0],
    own: 2,
    select: 'c.id, c.title, c.content, c.updated',
    map: (r) => ({
      source: 'wiki',
      id: `wiki_${r[0]}`,
      row: Number(r[0]),
      text: String(r[2]),
      title: String(r[1]),
      created: String(r[3]),
      columns: [String(r[1]), String(r[2])],
      importance: 0.5,
      access: 0,
      bm25Raw: 0,
    }),
  },
  graph: {
    table: 'graph_nodes',
    weights: [1.0, 0.3],
    own: 2,
    select: 'c.id, c.content, c.tags, c.node_type, c.confidence, c.created, c.access_count',
    map: (r) => ({
      source: 'graph',
      id: `node_${r[0]}`,
      row: Number(r[0]),
      text: String(r[1]),
      title: String(r[3]),
      created: String(r[5]),
      columns: [String(r[1]), String(r[2])],
      importance: Number(r[4]),
      access: Number(r[6]),
      bm25Raw: 0,
    }),
  },
  timeline: {
    table: 'timeline_events',
    weights: [0.3, 1.0],
    own: 2,
    select: 'c.id, c.type, c.summary, c.created',
    map: (r) => ({
      source: 'timeline',
      id: `evt_${r[0]}`,
      row: Number(r[0]),
      text: String(r[2]),
      title: String(r[1]),
      created: String(r[3]),
      columns: [String(r[1]), String(r[2])],
      importance: 0.5,
      access: 0,
      bm25Raw: 0,
    }),
  },
};

/**
 * The rows of the given ids that belong to the scope, each ending with the change log's newest
 * seq read in the same snapshot (a column after `spec.select`'s). The CROSS JOIN makes the id list
 * the outer loop, so each id is one primary-key lookup; the seq is one for the statement.
 */
export function sourceRows(ctx: StoreContext, spec: SourceSpec, ids: number[], scope: Scope): unknown[][] {
  if (ids.length === 0) return [];
  // Rows as arrays (better-sqlite3's raw mode): about a third cheaper than one object per row.
  return ctx
    .stmt(
      `SELECT ${spec.select}, (SELECT max(seq) FROM retrieval_changes) FROM json_each(?) j CROSS JOIN ${spec.table} c ON c.id = j.value WHERE c.layer = ? AND c.user_id = ?`,
    )
    .raw(true)
    .all(JSON.stringify(ids), scope.layer, scope.user_id) as unknown[][];
}
