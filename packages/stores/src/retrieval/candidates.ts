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
 *  - ranking runs on the FTS index alone (no join), then the rows are fetched by id and filtered
 *    to the scope. Only when other scopes crowd the scope's rows out of the top does a joined,
 *    scope-filtered query run, and it is bounded by the same budget.
 */
export const POSTINGS_BUDGET = 300;

export interface CandidateSource {
  fts: string;
  table: string;
  /** bm25() column weights. */
  weights: number[];
}

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

/** Rowids of the scope's best candidates, best first (at most pool). */
export function candidateIds(ctx: StoreContext, q: CandidateQuery): number[] {
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
  if (selected.length > 0) return ranked(ctx, q, ftsOr(selected));
  const out: number[] = [];
  const add = (ids: number[]): void => {
    for (const id of ids) {
      if (out.length >= q.pool) return;
      if (!out.includes(id)) out.push(id);
    }
  };
  if (withDf.length >= 2) add(newest(ctx, q, ftsAnd(withDf.map((t) => t.word))));
  if (withDf.length >= 3 && out.length < q.pool) add(newest(ctx, q, ftsAnd([withDf[0].word, withDf[1].word])));
  if (out.length < q.pool) add(newest(ctx, q, ftsOr([withDf[0].word])));
  return out;
}

function bm25Expr(s: CandidateSource): string {
  return `bm25(${s.fts}, ${s.weights.map((w) => w.toFixed(2)).join(', ')})`;
}

function scopeFilter(ctx: StoreContext, q: CandidateQuery, ids: number[]): number[] {
  if (ids.length === 0) return [];
  const extra = q.extraWhere ? ` AND ${q.extraWhere.sql}` : '';
  const rows = ctx
    .stmt(`SELECT c.id FROM ${q.source.table} c WHERE c.id IN (SELECT value FROM json_each(?)) AND c.layer = ? AND c.user_id = ?${extra}`)
    .all(JSON.stringify(ids), q.layer, q.userId, ...(q.extraWhere?.params ?? [])) as { id: number }[];
  const keep = new Set(rows.map((r) => r.id));
  return ids.filter((id) => keep.has(id));
}

function joined(ctx: StoreContext, q: CandidateQuery, match: string, order: string): number[] {
  const extra = q.extraWhere ? ` AND ${q.extraWhere.sql}` : '';
  const rows = ctx
    .stmt(
      `SELECT c.id FROM ${q.source.fts} JOIN ${q.source.table} c ON c.id = ${q.source.fts}.rowid
       WHERE ${q.source.fts} MATCH ? AND c.layer = ? AND c.user_id = ?${extra} ORDER BY ${order} LIMIT ?`,
    )
    .all(match, q.layer, q.userId, ...(q.extraWhere?.params ?? []), q.pool) as { id: number }[];
  return rows.map((r) => r.id);
}

/** The pool best rows by bm25 (ties by rowid). */
function ranked(ctx: StoreContext, q: CandidateQuery, match: string): number[] {
  const k = q.pool * 2;
  const rows = ctx
    .stmt(`SELECT rowid AS id FROM ${q.source.fts} WHERE ${q.source.fts} MATCH ? ORDER BY ${bm25Expr(q.source)}, rowid LIMIT ?`)
    .all(match, k) as { id: number }[];
  const inScope = scopeFilter(ctx, q, rows.map((r) => r.id));
  if (inScope.length >= q.pool || rows.length < k) return inScope.slice(0, q.pool);
  return joined(ctx, q, match, `${bm25Expr(q.source)}, c.id`);
}

/** The pool newest matching rows (no ranking: a cheap walk of the index in rowid order). */
function newest(ctx: StoreContext, q: CandidateQuery, match: string): number[] {
  const k = q.pool * 2;
  const rows = ctx
    .stmt(`SELECT rowid AS id FROM ${q.source.fts} WHERE ${q.source.fts} MATCH ? ORDER BY rowid DESC LIMIT ?`)
    .all(match, k) as { id: number }[];
  const inScope = scopeFilter(ctx, q, rows.map((r) => r.id));
  if (inScope.length >= q.pool || rows.length < k) return inScope.slice(0, q.pool);
  return joined(ctx, q, match, `${q.source.fts}.rowid DESC`);
}
