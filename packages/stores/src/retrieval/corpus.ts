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
 * Read the FTS5 "averages" record (rowid 1 of `<fts>_data`: varint row count, then one varint
 * token total per column). O(1), no table scan.
 */
export function corpusStats(ctx: StoreContext, fts: string, columns: number): CorpusStats {
  const row = ctx.stmt(`SELECT block FROM ${fts}_data WHERE id = 1`).get() as { block: Uint8Array } | undefined;
  if (!row || !row.block || row.block.length === 0) return { docs: 0, avgLen: new Array(columns).fill(0) };
  const buf = row.block;
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
