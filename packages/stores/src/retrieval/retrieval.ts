import { recencyAge } from '../iso-time.js';
import type { StoreContext } from '../context.js';
import { validationError } from '../errors.js';
import { AccessLog } from '../access-log.js';
import type { Scope } from '../types.js';
import { checkScope, scopeKey } from '../util.js';
import { checkWikiType } from '../wiki-types.js';
import { INDEXED_TABLES } from '../migrations/retrieval-changes.js';
import { RetrievalIndex, type CatchUp, type IndexView } from './index-sync.js';
import { queryStems, scoredTerms, type SearchedTerms, type TermSource } from './fuzzy-terms.js';
import { ProximityScorer, proximityBound } from './score.js';
import { rankOrder } from './rank.js';
import { SourceIndex, type IndexHit, type PartStats } from './term-index.js';
import { RETRIEVAL_SOURCES, SOURCES, sourceRows, type Candidate, type RetrievalSource } from './sources.js';

export { EPISODE_CONTEXT_WEIGHT, RETRIEVAL_SOURCES, type RetrievalSource } from './sources.js';

/**
 * Search: a query checked, scored over the sources' in-memory indexes and fused into hits (the
 * Retrieval class, which also fronts its indexes' upkeep, done in index-sync.ts). Which sources
 * there are, and how a candidate's row is read, is sources.ts's.
 */

/** Searched when the caller names no sources. */
export const DEFAULT_SOURCES: readonly RetrievalSource[] = ['l3', 'l4', 'wiki', 'graph'];

/** The most hits one search answers (a larger limit is taken as this). */
export const SEARCH_LIMIT_MAX = 200;

export const INTENTS = ['recent', 'core', 'balanced'] as const;
export type Intent = (typeof INTENTS)[number];

export interface FusionWeights {
  bm25: number;
  importance: number;
  recency: number;
  access: number;
}

/**
 * Intent weights (each row sums to 1). balanced: text relevance decides, importance, recency and
 * access only break near-ties; recent: recency weighs as much as relevance; core: importance
 * weighs almost as much as relevance.
 */
export const INTENT_WEIGHTS: Readonly<Record<Intent, FusionWeights>> = Object.freeze({
  balanced: { bm25: 0.9, importance: 0.05, recency: 0.03, access: 0.02 },
  recent: { bm25: 0.5, importance: 0.05, recency: 0.4, access: 0.05 },
  core: { bm25: 0.55, importance: 0.35, recency: 0.05, access: 0.05 },
});

/** Recency halves every 7 days of age. */
export const RECENCY_HALF_LIFE_MS = 7 * 24 * 3600 * 1000;
/** Access saturates at this many retrievals. */
export const ACCESS_SATURATION = 20;

export interface Explain {
  /** Weighted contributions; bm25 + importance + recency + access = fused. */
  bm25: number;
  importance: number;
  recency: number;
  access: number;
  fused: number;
  /** The unweighted signals, each 0..1 except bm25_raw (the cross-source BM25 score before normalisation). */
  signals: { bm25_raw: number; bm25: number; importance: number; recency: number; access: number };
}

export interface Hit {
  source: RetrievalSource;
  id: string;
  score: number;
  text: string;
  title?: string;
  created: string;
  explain: Explain;
}

export interface SearchOptions {
  limit?: number;
  intent?: Intent;
  sources?: readonly RetrievalSource[];
  /** Restrict wiki hits to one type. */
  wiki_type?: string;
  /** Fusion weights in place of the intent's (each 0..1, summing to 1): memory_search's keyword strategy. */
  weights?: FusionWeights;
}

/**
 * Milliseconds of one slice of an index build at start (warmInSlices): the longest a request
 * waits behind it, while the slices' own overhead (a read snapshot and a turn each) stays small.
 */
export const WARM_SLICE_MS = 10;

/**
 * Share of its BM25 an episode keeps when its own text (summary, tags) holds none of the query's
 * terms and it matched through a neighbouring context that asks nothing (no question mark): the
 * index tells from its postings (SourceIndex.top, mask 0), so a note written just after a match
 * does not outrank a record that holds a query term itself. A context that asks something counts
 * as the episode's own text (doc-terms.ts postingTerms): an answer is found through its question.
 * LoCoMo development pair recall@5/10/20 and the audit bench's questions (of 133) with an
 * unrelated episode above a real match: without the rule 0.659/0.748/0.823 and 32; with it, shares
 * 0.5, 0.25, 0.1 and 0: 0.659/0.748/0.823 each, and 15, 1, 0, 0. Without the exception for
 * questions, shares 0.5, 0.25 and 0: 0.654/0.747/0.823, 0.650/0.742/0.814, 0.650/0.742/0.810.
 */
export const CONTEXT_ONLY_SHARE = 0.1;

/** More than the rounding of a fused score and its four parts to six decimals can move it. */
const FUSED_ROUNDING_MARGIN = 1e-5;

/** An index candidate of one source, with the most its proximity bonus can add. */
interface Found {
  view: SourceView;
  hit: IndexHit;
  bound: number;
}

/**
 * The candidates that can still be among the best `limit` once fused; the others are dropped
 * before their rows are read. Exact: a candidate goes only when even its best case (full
 * proximity bonus, importance, recency and access at 1, BM25 normalised by the lowest possible
 * maximum) stays below the limit-th best worst case (no bonus, the other signals at 0, normalised
 * by the highest possible maximum). The candidate holding the final maximum BM25 always stays, so
 * the normalisation of those kept is unchanged. The margin covers the rounding of fused scores to
 * six decimals, under which a candidate just below the bar could tie and win on the tie-break.
 */
export function keepContenders<T extends { hit: { score: number }; bound: number }>(found: readonly T[], w: FusionWeights, limit: number): T[] {
  if (found.length <= limit) return [...found];
  let lo = 0;
  let hi = 0;
  for (const f of found) {
    lo = Math.max(lo, f.hit.score);
    hi = Math.max(hi, f.hit.score + f.bound);
  }
  if (lo <= 0) return [...found];
  // A typed array: one hidden class in every tier of V8 (see search), and a numeric sort.
  const worst = new Float64Array(found.length);
  for (let i = 0; i < found.length; i++) worst[i] = (w.bm25 * found[i].hit.score) / hi;
  worst.sort();
  const bar = worst[worst.length - limit];
  const rest = w.importance + w.recency + w.access;
  return found.filter((f) => (w.bm25 * (f.hit.score + f.bound)) / lo + rest + FUSED_ROUNDING_MARGIN >= bar);
}

interface SourceView {
  source: RetrievalSource;
  index: SourceIndex;
  /** Row ids the index must leave out (changed inside the open transaction). */
  pending: ReadonlySet<number>;
  /** Those records' current versions, when there are any (always present: one shape for V8). */
  fresh: SourceIndex | null;
  stats: PartStats;
}

/** One search's arguments, checked and derived (Retrieval.search to searchAt). */
interface SearchQuery {
  scope: Scope;
  key: string;
  sources: readonly RetrievalSource[];
  stems: string[];
  /** Per stem, the edits it may be expanded by when the scope does not know it (fuzzy-terms.ts), worked out when first asked. */
  edits: () => number[];
  pool: number;
  limit: number;
  wikiType: string | null;
  w: FusionWeights;
}

/** One scope of an index as fuzzy-terms.ts reads it. */
function termSource(index: SourceIndex, key: string): TermSource {
  return { df: (stem) => index.df(key, stem), eachTerm: (visit) => index.eachTerm(key, visit) };
}

/** Tie-break order of the sources (rankOrder). */
const SOURCE_ORDER: Record<RetrievalSource, number> = Object.fromEntries(RETRIEVAL_SOURCES.map((s, i) => [s, i])) as Record<RetrievalSource, number>;

function round6(v: number): number {
  return Math.round(v * 1e6) / 1e6;
}

/**
 * Hybrid retrieval over in-memory inverted indexes of the searchable tables, one per source and
 * scope (term-index.ts), kept current from the retrieval change log (index-sync.ts). Per source,
 * the scope's best `pool` candidates by BM25 over weighted columns are taken at a bounded cost,
 * their rows read by primary key, re-scored on one BM25 scale shared by all searched sources with a
 * proximity bonus (see score.ts), and fused with the intent's weights:
 *   fused = w.bm25 * bm25/max_bm25 + w.importance * importance + w.recency * 0.5^(age/7d)
 *         + w.access * log(1+access)/log(1+20)
 * Corpus statistics (document counts, document frequencies, mean column lengths) are the scope's
 * own. Deterministic: ties are broken by source order, then the newer record first, in the index's
 * pools as in the ranking (rankOrder, rank.ts).
 */
export class Retrieval {
  private readonly index: RetrievalIndex;

  /**
   * `pendingAccess` gives a row's retrieval accesses counted but not written yet (Stores.noteAccess
   * batches them): they are added to the stored count, so a ranking never depends on when the
   * batch was written.
   */
  constructor(
    private readonly ctx: StoreContext,
    private readonly pendingAccess: (source: RetrievalSource, id: number) => number = () => 0,
  ) {
    this.index = new RetrievalIndex(
      ctx,
      new Map(INDEXED_TABLES.map((t) => [t.source, t])),
      new Map(RETRIEVAL_SOURCES.map((s) => [s, { weights: SOURCES[s].weights, own: SOURCES[s].own }])),
    );
  }

  search(scope: Scope, query: string, opts: SearchOptions = {}): Hit[] {
    checkScope(scope);
    if (typeof query !== 'string') throw validationError('query', 'query must be a string');
    const intent = opts.intent ?? 'balanced';
    if (!(INTENTS as readonly string[]).includes(intent)) {
      throw validationError('intent', `intent must be one of ${INTENTS.join(', ')}`, INTENTS);
    }
    const sources = opts.sources && opts.sources.length > 0 ? opts.sources : DEFAULT_SOURCES;
    for (const s of sources) {
      if (!(RETRIEVAL_SOURCES as readonly string[]).includes(s)) {
        throw validationError('sources', `sources must be drawn from ${RETRIEVAL_SOURCES.join(', ')}`, RETRIEVAL_SOURCES);
      }
    }
    const wikiType = opts.wiki_type === undefined ? null : checkWikiType(opts.wiki_type);
    const limit = Math.max(1, Math.min(SEARCH_LIMIT_MAX, Math.floor(opts.limit ?? 10)));
    const { stems, edits } = queryStems(query);
    if (stems.length === 0) return [];
    const pool = Math.min(500, Math.max(10, Math.ceil(limit * 1.5)));
    const key = scopeKey(scope.layer, scope.user_id);
    const q: SearchQuery = { scope, key, sources, stems, edits, pool, limit, wikiType, w: opts.weights ?? INTENT_WEIGHTS[intent] };
    // Outside a transaction, with every index current as far as this process knows, the search
    // reads at that seq and the row reads check that the log has not moved past it: one statement
    // fewer than reading the log's newest seq first. When it has moved (another process wrote, or
    // a write here was not taken in yet), the search is done again after the indexes catch up.
    const settled = this.ctx.db.inTransaction ? null : this.index.settledSeq(sources);
    if (settled !== null) {
      const hits = this.searchAt(q, settled, true);
      if (hits !== null) return hits;
    }
    return this.searchAt(q, this.index.maxSeq(), false) as Hit[];
  }

  /**
   * The search over the indexes brought up to seq `max`. With `check`, null when the log's newest
   * seq, read with the rows, is not `max` (the indexes missed a change).
   */
  private searchAt(q: SearchQuery, max: number, check: boolean): Hit[] | null {
    const { scope, key, stems, edits, pool, limit, wikiType, w } = q;
    const views: SourceView[] = [];
    for (const src of RETRIEVAL_SOURCES) {
      if (!q.sources.includes(src)) continue;
      const view = this.sourceView(src, scope, key, max);
      if (view.stats.docs > 0) views.push(view);
    }
    if (views.length === 0) return check && this.index.maxSeq() !== max ? null : [];
    // One idf for all searched sources: document counts and frequencies of the scope, summed.
    const totalDocs = views.reduce((n, v) => n + v.stats.docs, 0);
    // Arrays the search hands on are built by push rather than map or slice: V8 can give those a
    // different hidden class once this function is optimized, and each new class threw away the
    // optimized code of every function the array reached (seen with --trace-deopt: about 22
    // deoptimizations over dream's first 600 calls before, 9 after).
    // A stem no searched source holds is searched as the scope's terms close to it (fuzzy-terms.ts).
    const searched: SearchedTerms[] = [];
    for (const v of views) searched.push({ index: termSource(v.index, key), fresh: v.fresh ? termSource(v.fresh, key) : null });
    const terms = scoredTerms(stems, edits, searched, totalDocs);
    const found: Found[] = [];
    for (const v of views) {
      const spec = SOURCES[v.source];
      const avgdl = spec.weights.reduce((sum, w, i) => sum + w * (v.stats.avgLen[i] ?? 0), 0);
      const facet = v.source === 'wiki' ? wikiType : null;
      let best = v.index.top(key, terms, pool, avgdl, facet, v.pending, CONTEXT_ONLY_SHARE);
      if (v.fresh) best = [...best, ...v.fresh.top(key, terms, pool, avgdl, facet, undefined, CONTEXT_ONLY_SHARE)].sort((a, b) => rankOrder(a.score, 0, a.id, b.score, 0, b.id)).slice(0, pool);
      for (const hit of best) found.push({ view: v, hit, bound: proximityBound(terms, hit.mask) });
    }
    const contenders = keepContenders(found, w, limit);
    const candidates: Candidate[] = [];
    const proximity = new ProximityScorer(terms);
    // Each row read is its own snapshot and shows the log's newest seq: every one must show `max`.
    // Without such a read (no contenders), or after one that found none of its rows (deleted since:
    // it shows nothing), the log is read at the end.
    let verified = false;
    let blind = false;
    for (const v of views) {
      const spec = SOURCES[v.source];
      const byId = new Map<number, Found>();
      const ids: number[] = [];
      for (const f of contenders) {
        if (f.view !== v) continue;
        byId.set(f.hit.id, f);
        ids.push(f.hit.id);
      }
      const rows = sourceRows(this.ctx, spec, ids, scope);
      if (check && ids.length > 0) {
        if (rows.length === 0) blind = true;
        else if (((rows[0][rows[0].length - 1] as number | null) ?? 0) !== max) return null;
        else verified = true;
      }
      for (const r of rows) {
        const c = spec.map(r);
        const { hit, bound } = byId.get(Number(r[0])) as Found;
        c.access += this.pendingAccess(v.source, hit.id);
        // The index gives BM25; only the proximity bonus needs the text, and only where it can be
        // above 0 (two adjacent terms present: idf is always positive).
        c.bm25Raw = hit.score + (bound > 0 ? proximity.bonus(c.columns) : 0);
        candidates.push(c);
      }
    }
    if (check && (blind || !verified) && this.index.maxSeq() !== max) return null;
    return this.fuse(candidates, w, limit);
  }

  /**
   * The index of one source for this search. Inside a transaction, records changed there are
   * scored from their current rows (`fresh`) instead of the index, and a source whose index was
   * never built, or whose part for the scope was evicted and cannot be reloaded (inside a
   * transaction that changed the log), is scored from all of the scope's rows.
   */
  private sourceView(source: RetrievalSource, scope: Scope, key: string, max: number): SourceView {
    const { weights, own } = SOURCES[source];
    const view: IndexView | null = this.index.view(source, max, { layer: scope.layer, user_id: scope.user_id, key });
    if (!view) {
      const index = new SourceIndex(weights, undefined, undefined, own);
      for (const d of this.index.scopeDocs(source, scope.layer, scope.user_id)) index.add(d);
      return { source, index, pending: new Set(), fresh: null, stats: index.stats(key) };
    }
    if (view.pending.size === 0) return { source, index: view.index, pending: view.pending, fresh: null, stats: view.index.stats(key) };
    const fresh = new SourceIndex(weights, undefined, undefined, own);
    for (const d of this.index.readDocs(source, [...view.pending])) if (d.scope === key) fresh.add(d);
    return { source, index: view.index, pending: view.pending, fresh, stats: view.index.stats(key) };
  }

  /**
   * Build (or bring up to date) the indexes of the default sources now, so the first search after
   * a start does not pay for them. Nothing happens inside a transaction or on a closed database.
   */
  warm(): void {
    if (!this.ctx.db.open || this.ctx.db.inTransaction) return;
    const max = this.index.maxSeq();
    for (const src of DEFAULT_SOURCES) this.index.view(src, max);
    // What was built from the tables is saved, so the next start reads it instead (index-sync.ts).
    this.index.persist('built');
  }

  /**
   * warm() without stalling the process: the indexes of the default sources that no saved file
   * gives are built from their tables in slices of about WARM_SLICE_MS, a turn of the event loop
   * apart (RetrievalIndex.buildInSlices), so requests are answered during the build; a search
   * arriving meanwhile reads what is left of its source's build at once. Then as warm(): what was
   * built is saved. `stop` (the server closing) ends it between slices, leaving the rest unbuilt.
   * `sliceMs` 0 reads one small batch of rows a slice.
   */
  async warmInSlices(stop: () => boolean = () => false, sliceMs = WARM_SLICE_MS): Promise<void> {
    await this.index.buildInSlices(DEFAULT_SOURCES, sliceMs, stop);
    if (!stop()) this.warm();
  }

  /**
   * Bring every index built in this process up to date, rebuilding those the log or their wear
   * calls for (as the next search would), and save what was built from the tables, without
   * stalling the process: what is behind is applied, the indexes to rebuild are rebuilt from their
   * tables in slices of about `sliceMs` a turn apart (RetrievalIndex.refreshInSlices), a search
   * meanwhile reading the rest of a rebuild at once. A call made while another runs waits for it,
   * then does its own. Resolves true once the indexes are current as of the call (the idle rebuild
   * after writes stop, memory_cleanup's compaction, the saga's reindex, the nightly phase), false
   * when `stop()` ended it between slices or the database closed first: nothing is written then.
   * It begins once the current turn's synchronous work is over (a transaction open then has ended).
   */
  async refreshInSlices(stop: () => boolean = () => false, sliceMs = WARM_SLICE_MS): Promise<boolean> {
    if (!(await this.index.refreshInSlices(sliceMs, stop))) return false;
    this.index.persist('built');
    return true;
  }

  /**
   * Take the writes committed since the last search into the indexes already built (Stores runs it
   * once writes pause, after their answers), so a search that follows a write does not index it
   * first. A source that needs a rebuild is left to the next search (index-sync.ts).
   */
  catchUp(): CatchUp {
    return this.index.catchUp();
  }

  /**
   * Drop the indexes built in this process: the next search builds them from the tables. After a
   * restore (BackupStore) the change log may be behind their cursors, so they cannot catch up.
   */
  reset(): void {
    this.index.drop();
  }

  /**
   * The highest seq the change log ever handed out: no index of any process holds more. A restore
   * reads it under its copy's write lock and gives it to restarted() (index-sync.ts).
   */
  changeSeqTop(): number {
    return this.index.topSeq();
  }

  /**
   * After a restore copied another database in: restart the change log above `top` and every seq
   * it holds, so every process's indexes from before the restore are rebuilt at their next
   * catch-up, and forget the saved indexes (RetrievalIndex.restart). False when the restored
   * database is too old to have the tables yet: call it again once migrated.
   */
  restarted(top: number): boolean {
    return this.index.restart(top);
  }

  /** The newest seq of the retrieval change log (see migrations/retrieval-changes.ts). */
  changeSeq(): number {
    return this.index.maxSeq();
  }

  /**
   * Clear the old texts the change log keeps for its rows past seq `after` up to `upTo` (a
   * forget's deletes and scrubs), which would otherwise stay until CHANGE_LOG_KEEP later changes
   * trim them. The indexes of this process take those rows in first (catchUp), so they no longer
   * need them; an index elsewhere still behind them finds no old text where it holds the record
   * and is rebuilt from its table, as when the log is trimmed past it. Returns the rows cleared.
   * Inside a transaction tx() opened or follows (a tool call's), it is done once that commits
   * (answering 0 now): the catch-up does nothing inside a transaction, and clearing the texts
   * first would leave the indexes here to be rebuilt at the next search.
   */
  dropOldTexts(after: number, upTo: number): number {
    if (!this.ctx.db.open) return 0;
    if (this.ctx.openTransaction() !== null) {
      this.ctx.onCommit(() => this.dropOldTexts(after, upTo));
      return 0;
    }
    this.catchUp();
    return this.ctx.tx(
      () => this.ctx.stmt('UPDATE retrieval_changes SET old = NULL WHERE seq > ? AND seq <= ? AND old IS NOT NULL').run(after, upTo).changes,
    );
  }

  /**
   * Save the indexes that changed since they were saved or read, so the next start reads them
   * instead of building (on close; see index-sync.ts). Returns the sources saved.
   */
  persist(): string[] {
    return this.index.persist('changed');
  }

  /** Record a retrieval access on the hits' episodes, facts and graph nodes now (Stores.noteAccess batches them instead). */
  touch(hits: readonly Hit[]): void {
    const log = new AccessLog();
    log.add(hits, this.ctx.iso());
    const taken = log.take(this.ctx);
    if (taken) this.ctx.tx(() => taken.write());
  }

  private fuse(candidates: Candidate[], w: FusionWeights, limit: number): Hit[] {
    if (candidates.length === 0) return [];
    let maxBm = 1e-9;
    for (const c of candidates) if (c.bm25Raw > maxBm) maxBm = c.bm25Raw;
    const now = this.ctx.clock.now();
    const scored: { c: Candidate; fused: number; explain: Explain }[] = [];
    for (const c of candidates) {
      const bm = Math.max(0, c.bm25Raw) / maxBm;
      const imp = Math.min(1, Math.max(0, Number.isFinite(c.importance) ? c.importance : 0));
      const t = Date.parse(c.created);
      const age = Number.isFinite(t) ? recencyAge(now, t) : Number.POSITIVE_INFINITY;
      const rec = Number.isFinite(age) ? Math.pow(0.5, age / RECENCY_HALF_LIFE_MS) : 0;
      const acc = Math.min(1, Math.log1p(Math.max(0, c.access)) / Math.log1p(ACCESS_SATURATION));
      const bm25 = round6(w.bm25 * bm);
      const importance = round6(w.importance * imp);
      const recency = round6(w.recency * rec);
      const access = round6(w.access * acc);
      const fused = round6(bm25 + importance + recency + access);
      const explain: Explain = {
        bm25,
        importance,
        recency,
        access,
        fused,
        signals: { bm25_raw: round6(c.bm25Raw), bm25: round6(bm), importance: round6(imp), recency: round6(rec), access: round6(acc) },
      };
      scored.push({ c, fused, explain });
    }
    scored.sort((a, b) => rankOrder(a.fused, SOURCE_ORDER[a.c.source], a.c.row, b.fused, SOURCE_ORDER[b.c.source], b.c.row));
    // One shape for every hit (title undefined where a source has none; JSON leaves it out).
    const hits: Hit[] = [];
    for (let i = 0; i < scored.length && i < limit; i++) {
      const { c, fused, explain } = scored[i];
      hits.push({ source: c.source, id: c.id, score: fused, text: c.text, title: c.title, created: c.created, explain });
    }
    return hits;
  }
}
