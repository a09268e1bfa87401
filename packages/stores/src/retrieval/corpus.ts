import type { StoreContext } from '../context.js';
import { ftsQuote } from './query.js';

/** Corpus statistics of one FTS5 index: document count and mean tokens per column. */
export interface CorpusStats {
  docs: number;
  avgLen: number[];
}

/** Decode one SQLite varint (big-endian base-128, the ninth byte carries 8 bits). */
export function readVarint(buf: Uint8Array, at: number): [value: number, next: number] {
  let v = 0;
  for (let i = 0; i < 8; i++) {
    const b = buf[at + i];
    if (b === undefined) return [v, at + i];
    v = v * 128 + (b & 0x7f);
    if ((b & 0x80) === 0) return [v, at + i + 1];
  }
  const last = buf[at + 8] ?? 0;
  return [v * 256 + last, at + 9];
}

/**
 * Decode the FTS5 "averages" record (rowid 1 of `<fts>_data`: varint row count, then one varint
 * token total per column). O(1), no table scan.
 */
function decodeAverages(block: Uint8Array | null, columns: number): CorpusStats {
  if (!block || block.length === 0) return { docs: 0, avgLen: new Array(columns).fill(0) };
  const buf = block;
  let [docs, at] = readVarint(buf, 0);
  const avgLen: number[] = [];
  for (let c = 0; c < columns; c++) {
    let total = 0;
    if (at < buf.length) [total, at] = readVarint(buf, at);
    avgLen.push(docs > 0 ? total / docs : 0);
  }
  if (docs < 0 || !Number.isFinite(docs)) docs = 0;
  return { docs, avgLen };
}

/**
 * Number of documents of an FTS5 index holding a query word (FTS5 stems it), counted up to
 * `cap`: the walk of the word's doclist stops there, so a very common word costs no more than a
 * rare one. Exact below the cap.
 */
export function docFreq(ctx: StoreContext, fts: string, word: string, cap: number): number {
  const r = ctx
    .stmt(`SELECT count(*) AS n FROM (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ? LIMIT ?)`)
    .get(ftsQuote(word), cap) as { n: number };
  return r.n;
}

/** Largest number of words whose document frequency is kept per index. */
export const DF_MEMO_MAX = 10_000;

interface IndexEntry {
  averages: Uint8Array | null;
  structure: Uint8Array | null;
  stats: CorpusStats;
  df: Map<string, number>;
}

const sameBytes = (a: Uint8Array | null, b: Uint8Array | null): boolean => (a === null || b === null ? a === b : Buffer.compare(a, b) === 0);

/**
 * Corpus statistics and document frequencies of the FTS5 indexes, kept between searches while an
 * index is unchanged. FTS5 rewrites its structure record (rowid 10 of `<fts>_data`, which counts
 * every segment written) on each transaction that changes the index, in this process or another,
 * and its averages record (rowid 1) on each insert or delete; both are read on every search (one
 * small query per index) and the kept figures are dropped as soon as either differs. Inside an
 * open transaction nothing is kept, since FTS5 answers from pending changes a rollback may undo.
 */
export class IndexStatsCache {
  private readonly entries = new Map<string, IndexEntry>();

  constructor(private readonly ctx: StoreContext) {}

  /** The current statistics of an index; remembers them for docFreq when outside a transaction. */
  stats(fts: string, columns: number): CorpusStats {
    const rows = this.ctx.stmt(`SELECT id, block FROM ${fts}_data WHERE id IN (1, 10)`).all() as { id: number; block: Uint8Array | null }[];
    let averages: Uint8Array | null = null;
    let structure: Uint8Array | null = null;
    for (const r of rows) {
      if (r.id === 1) averages = r.block;
      else structure = r.block;
    }
    const kept = this.entries.get(fts);
    if (kept && sameBytes(kept.averages, averages) && sameBytes(kept.structure, structure)) return kept.stats;
    const stats = decodeAverages(averages, columns);
    if (this.ctx.db.inTransaction) this.entries.delete(fts);
    else this.entries.set(fts, { averages, structure, stats, df: new Map() });
    return stats;
  }

  /** docFreq, remembered for the index as last seen by stats(). */
  docFreq(fts: string, word: string, cap: number): number {
    const entry = this.ctx.db.inTransaction ? undefined : this.entries.get(fts);
    const key = `${cap}\u0000${word}`;
    const kept = entry?.df.get(key);
    if (kept !== undefined) return kept;
    const n = docFreq(this.ctx, fts, word, cap);
    if (entry) {
      if (entry.df.size >= DF_MEMO_MAX) entry.df.clear();
      entry.df.set(key, n);
    }
    return n;
  }
}
