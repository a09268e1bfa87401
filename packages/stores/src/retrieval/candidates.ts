import type { StoreContext } from '../context.js';
import { ftsAnd, ftsOr } from './query.js';

/**
 * Candidate generation for one FTS5 source with a bounded cost. FTS5's bm25() costs about a
 * microsecond per matching row, so ranking every row that matches a very common term would grow
 * with the corpus. Instead:
 *  - terms are taken rarest first while their summed document frequency stays within
 *    POSTINGS_BUDGET, and only those are OR-ed and ranked by bm25 (the common terms still count
 *    in the re-scoring of the candidates);
 *  - when every term is common (bm25() would have to read each term's whole doclist for its idf),
 *    the newest rows holding all the terms are taken, topped up with the newest rows holding the
 *    two rarest, then the rarest term; re-scoring ranks them;
 *  - ranking runs on the FTS index alone (no join); then just the wanted number of rows is read
 *    by id, filtered to the scope, with the columns re-scoring needs. Only when other scopes
 *    crowd the scope's rows out of the top does a joined, scope-filtered query run, bounded by
 *    the same budget.
 */
export const POSTINGS_BUDGET = 300;

export interface CandidateSource {
  fts: string;
  table: string;
  /** bm25() column weights. */
  weights: number[];
  /** Columns read for a candidate, from the content table aliased `c`; the first is `c.id`. */
  select: string;
}

/** One candidate's row of the content table (the source's `select` columns). */
export type CandidateRow = Record<string, unknown> & { id: number };

export interface SourceTerm {
  /** The query word as typed (lower-cased); FTS5 stems it itself. */
  word: string;
  stem: string;
}

/** A term with its document frequency in one source, counted up to DF_CAP. */
export interface CountedTerm extends SourceTerm {
  df: number;
}

/** Document frequencies are counted up to this value (one more than the budget decides selection). */
export const DF_CAP = POSTINGS_BUDGET + 1;

export interface CandidateQuery {
  source: CandidateSource;
  terms: readonly CountedTerm[];
  layer: string;
  userId: string;
  /** Number of candidates wanted. */
  pool: number;
  /** Extra filter on the content table, aliased `c`, e.g. `c.wiki_type = ?`. */
  extraWhere?: { sql: string; params: unknown[] };
}

/** Rows of the scope's best candidates, best first (at most pool). */
export function candidateRows(ctx: StoreContext, q: CandidateQuery): CandidateRow[] {
  const withDf = q.terms
    .filter((t) => t.df > 0)
    .sort((a, b) => a.df - b.df || (a.word < b.word ? -1 : 1));
  if (withDf.length === 0) return [];
  const selected: string[] = [];
  let sum = 0;
  for (const t of withDf) {
    if (sum + t.df > POSTINGS_BUDGET) break;
    selected.push(t.word);
    sum += t.df;
  }
  const out: CandidateRow[] = [];
  if (selected.length > 0) {
    ranked(ctx, q, ftsOr(selected), out);
    return out;
  }
  if (withDf.length >= 2) newest(ctx, q, ftsAnd(withDf.map((t) => t.word)), out);
  if (withDf.length >= 3 && out.length < q.pool) newest(ctx, q, ftsAnd([withDf[0].word, withDf[1].word]), out);
  if (out.length < q.pool) newest(ctx, q, ftsOr([withDf[0].word]), out);
  return out;
}

function bm25Expr(s: CandidateSource): string {
  return `bm25(${s.fts}, ${s.weights.map((w) => w.toFixed(2)).join(', ')})`;
}

/** Fewest ids read per scope-filtering query. */
const MIN_CHUNK = 8;

/**
 * The rows of the given ids that belong to the scope, in the order of ids. The CROSS JOIN makes
 * the id list the outer loop, so each id is one primary-key lookup: written as `c.id IN (...)`,
 * SQLite plans a walk of the whole scope's index instead, which grows with the store.
 */
function scopeFilter(ctx: StoreContext, q: CandidateQuery, ids: number[]): CandidateRow[] {
  if (ids.length === 0) return [];
  const extra = q.extraWhere ? ` AND ${q.extraWhere.sql}` : '';
  const rows = ctx
    .stmt(
      `SELECT ${q.source.select} FROM json_each(?) j CROSS JOIN ${q.source.table} c ON c.id = j.value
       WHERE c.layer = ? AND c.user_id = ?${extra}`,
    )
    .all(JSON.stringify(ids), q.layer, q.userId, ...(q.extraWhere?.params ?? [])) as CandidateRow[];
  const byId = new Map(rows.map((r) => [r.id, r]));
  const out: CandidateRow[] = [];
  for (const id of ids) {
    const row = byId.get(id);
    if (row) out.push(row);
  }
  return out;
}

function joined(ctx: StoreContext, q: CandidateQuery, match: string, order: string): CandidateRow[] {
  const extra = q.extraWhere ? ` AND ${q.extraWhere.sql}` : '';
  return ctx
    .stmt(
      `SELECT ${q.source.select} FROM ${q.source.fts} JOIN ${q.source.table} c ON c.id = ${q.source.fts}.rowid
       WHERE ${q.source.fts} MATCH ? AND c.layer = ? AND c.user_id = ?${extra} ORDER BY ${order} LIMIT ?`,
    )
    .all(match, q.layer, q.userId, ...(q.extraWhere?.params ?? []), q.pool) as CandidateRow[];
}

/**
 * Append to out, in the order of ids (the FTS order), the rows of the scope not already there,
 * until out holds pool rows. Rows are read in chunks of the number still wanted (at least
 * MIN_CHUNK, which bounds the number of reads), so a single-scope store reads each wanted row
 * once. When the ids run out short of the pool although the FTS query stopped at its limit
 * (other scopes crowded this one out), the joined, scope-filtered query supplies the rows.
 */
function takeInScope(ctx: StoreContext, q: CandidateQuery, out: CandidateRow[], ids: number[], limitHit: boolean, match: string, order: string): void {
  const have = new Set(out.map((r) => r.id));
  const fresh = ids.filter((id) => !have.has(id));
  let at = 0;
  while (out.length < q.pool && at < fresh.length) {
    const chunk = fresh.slice(at, at + Math.max(q.pool - out.length, MIN_CHUNK));
    at += chunk.length;
    for (const row of scopeFilter(ctx, q, chunk)) {
      if (out.length >= q.pool) break;
      out.push(row);
      have.add(row.id);
    }
  }
  if (out.length >= q.pool || !limitHit) return;
  for (const row of joined(ctx, q, match, order)) {
    if (out.length >= q.pool) return;
    if (have.has(row.id)) continue;
    out.push(row);
    have.add(row.id);
  }
}

/** The best rows by bm25 (ties by rowid), appended to out up to pool. */
function ranked(ctx: StoreContext, q: CandidateQuery, match: string, out: CandidateRow[]): void {
  const k = q.pool * 2;
  const ids = (
    ctx
      .stmt(`SELECT rowid AS id FROM ${q.source.fts} WHERE ${q.source.fts} MATCH ? ORDER BY ${bm25Expr(q.source)}, rowid LIMIT ?`)
      .all(match, k) as { id: number }[]
  ).map((r) => r.id);
  takeInScope(ctx, q, out, ids, ids.length >= k, match, `${bm25Expr(q.source)}, c.id`);
}

/** The newest matching rows (no ranking: a cheap walk of the index in rowid order), appended to out up to pool. */
function newest(ctx: StoreContext, q: CandidateQuery, match: string, out: CandidateRow[]): void {
  const k = q.pool * 2;
  const ids = (
    ctx.stmt(`SELECT rowid AS id FROM ${q.source.fts} WHERE ${q.source.fts} MATCH ? ORDER BY rowid DESC LIMIT ?`).all(match, k) as { id: number }[]
  ).map((r) => r.id);
  takeInScope(ctx, q, out, ids, ids.length >= k, match, `${q.source.fts}.rowid DESC`);
}
