import type { StoreContext } from '../context.js';
import { validationError } from '../errors.js';
import type { EpisodeStore } from '../episodes.js';
import type { FactStore } from '../facts.js';
import type { GraphStore } from '../graph.js';
import type { Scope } from '../types.js';
import { checkScope } from '../util.js';
import { checkWikiType } from '../wiki-types.js';
import { IndexStatsCache, type CorpusStats } from './corpus.js';
import { DF_CAP, candidateRows, type CandidateSource, type CountedTerm, type SourceTerm } from './candidates.js';
import { queryTerms } from './query.js';
import { bm25Score, idf, stemTokens, type QueryTerm } from './score.js';
import { porterStem } from './stemmer.js';

export const RETRIEVAL_SOURCES = ['l3', 'l4', 'wiki', 'graph', 'timeline'] as const;
export type RetrievalSource = (typeof RETRIEVAL_SOURCES)[number];
/** Searched when the caller names no sources. */
export const DEFAULT_SOURCES: readonly RetrievalSource[] = ['l3', 'l4', 'wiki', 'graph'];

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
}

interface Candidate {
  source: RetrievalSource;
  id: string;
  text: string;
  title?: string;
  created: string;
  /** The texts of the indexed columns, in index order. */
  columns: string[];
  importance: number;
  access: number;
}

interface SourceSpec extends CandidateSource {
  map(r: Record<string, unknown>): Candidate;
}

/** Weight of an episode's neighbouring context against its own text. */
export const EPISODE_CONTEXT_WEIGHT = 0.5;

const SOURCES: Record<RetrievalSource, SourceSpec> = {
  l3: {
    fts: 'episodes_fts',
    table: 'episodes',
    weights: [1.0, 0.3, EPISODE_CONTEXT_WEIGHT],
    select: 'c.id, c.summary, c.tags, c.context, c.importance, c.created, c.access_count',
    map: (r) => ({
      source: 'l3',
      id: `ep_${r.id}`,
      text: String(r.summary),
      created: String(r.created),
      columns: [String(r.summary), String(r.tags), String(r.context ?? '')],
      importance: Number(r.importance),
      access: Number(r.access_count),
    }),
  },
  l4: {
    fts: 'facts_fts',
    table: 'facts',
    weights: [0.5, 1.0],
    select: 'c.id, c.key, c.value, c.importance, c.created, c.access_count',
    map: (r) => ({
      source: 'l4',
      id: `fact_${r.id}`,
      text: `${String(r.key)}: ${String(r.value)}`,
      title: String(r.key),
      created: String(r.created),
      columns: [String(r.key), String(r.value)],
      importance: Number(r.importance),
      access: Number(r.access_count),
    }),
  },
  wiki: {
    fts: 'wiki_fts',
    table: 'wiki_pages',
    weights: [2.0, 1.0],
    select: 'c.id, c.title, c.content, c.updated',
    map: (r) => ({
      source: 'wiki',
      id: `wiki_${r.id}`,
      text: String(r.content),
      title: String(r.title),
      created: String(r.updated),
      columns: [String(r.title), String(r.content)],
      importance: 0.5,
      access: 0,
    }),
  },
  graph: {
    fts: 'graph_fts',
    table: 'graph_nodes',
    weights: [1.0, 0.3],
    select: 'c.id, c.content, c.tags, c.node_type, c.confidence, c.created, c.access_count',
    map: (r) => ({
      source: 'graph',
      id: `node_${r.id}`,
      text: String(r.content),
      title: String(r.node_type),
      created: String(r.created),
      columns: [String(r.content), String(r.tags)],
      importance: Number(r.confidence),
      access: Number(r.access_count),
    }),
  },
  timeline: {
    fts: 'timeline_fts',
    table: 'timeline_events',
    weights: [0.3, 1.0],
    select: 'c.id, c.type, c.summary, c.created',
    map: (r) => ({
      source: 'timeline',
      id: `evt_${r.id}`,
      text: String(r.summary),
      title: String(r.type),
      created: String(r.created),
      columns: [String(r.type), String(r.summary)],
      importance: 0.5,
      access: 0,
    }),
  },
};

/** Tie-break order of the sources. */
const SOURCE_ORDER: Record<RetrievalSource, number> = Object.fromEntries(RETRIEVAL_SOURCES.map((s, i) => [s, i])) as Record<RetrievalSource, number>;

function round6(v: number): number {
  return Math.round(v * 1e6) / 1e6;
}

/**
 * Hybrid retrieval over the FTS5 indexes (porter stemming, stop words dropped). Per source, the
 * best `limit * 5` candidates of the scope are taken at a bounded cost (see candidates.ts); they
 * are re-scored on one BM25 scale shared by all sources, with a proximity bonus (see score.ts),
 * and fused with the intent's weights:
 *   fused = w.bm25 * bm25/max_bm25 + w.importance * importance + w.recency * 0.5^(age/7d)
 *         + w.access * log(1+access)/log(1+20)
 * Deterministic: ties are broken by source order and id.
 */
export class Retrieval {
  private readonly indexStats: IndexStatsCache;

  constructor(
    private readonly ctx: StoreContext,
    private readonly stores: { episodes: EpisodeStore; facts: FactStore; graph: GraphStore },
  ) {
    this.indexStats = new IndexStatsCache(ctx);
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
    const limit = Math.max(1, Math.min(200, Math.floor(opts.limit ?? 10)));
    const words = queryTerms(query);
    if (words.length === 0) return [];
    const terms: SourceTerm[] = [];
    for (const word of words) {
      const stem = porterStem(word);
      if (!terms.some((t) => t.stem === stem)) terms.push({ word, stem });
    }
    const pool = Math.min(500, Math.max(15, limit * 2));
    // Corpus statistics are O(1) reads; an empty index is skipped before any term is counted.
    const stats = new Map<RetrievalSource, CorpusStats>();
    for (const src of RETRIEVAL_SOURCES) {
      if (!sources.includes(src)) continue;
      const st = this.indexStats.stats(SOURCES[src].fts, SOURCES[src].weights.length);
      if (st.docs > 0) stats.set(src, st);
    }
    const active = [...stats.keys()];
    if (active.length === 0) return [];
    const counted = new Map<RetrievalSource, CountedTerm[]>(
      active.map((src) => [src, terms.map((t) => ({ ...t, df: this.indexStats.docFreq(SOURCES[src].fts, t.word, DF_CAP) }))]),
    );
    const candidates: Candidate[] = [];
    for (const source of active) {
      const spec = SOURCES[source];
      const extraWhere = source === 'wiki' && wikiType !== null ? { sql: 'c.wiki_type = ?', params: [wikiType] } : undefined;
      const rows = candidateRows(this.ctx, { source: spec, terms: counted.get(source) ?? [], layer: scope.layer, userId: scope.user_id, pool, extraWhere });
      for (const r of rows) candidates.push(spec.map(r));
    }
    if (candidates.length === 0) return [];
    const scored = this.rescore(candidates, counted, active, stats);
    return this.fuse(scored, INTENT_WEIGHTS[intent], limit);
  }

  /**
   * One BM25 scale for every source: idf from the document counts of all searched sources
   * together (fts5vocab), length normalisation against each source's own mean column lengths.
   */
  private rescore(
    candidates: Candidate[],
    counted: Map<RetrievalSource, CountedTerm[]>,
    active: RetrievalSource[],
    stats: Map<RetrievalSource, CorpusStats>,
  ): (Candidate & { bm25Raw: number })[] {
    const totalDocs = active.reduce((n, s) => n + (stats.get(s)?.docs ?? 0), 0);
    const first = counted.get(active[0]) ?? [];
    const terms: QueryTerm[] = first.map((t, i) => {
      const df = active.reduce((n, s) => n + (counted.get(s)?.[i]?.df ?? 0), 0);
      return { stem: t.stem, idf: idf(totalDocs, df) };
    });
    return candidates.map((c) => {
      const spec = SOURCES[c.source];
      const avg = stats.get(c.source)?.avgLen ?? [];
      const columns = c.columns.map((text, i) => ({ tokens: stemTokens(text), weight: spec.weights[i], avgLen: avg[i] ?? 0 }));
      return { ...c, bm25Raw: bm25Score(terms, columns) };
    });
  }

  /** Record a retrieval access on the hits' episodes, facts and graph nodes. */
  touch(hits: readonly Hit[]): void {
    this.ctx.tx(() => {
      this.stores.episodes.touch(hits.filter((h) => h.source === 'l3').map((h) => h.id));
      this.stores.facts.touch(hits.filter((h) => h.source === 'l4').map((h) => h.id));
      this.stores.graph.touch(hits.filter((h) => h.source === 'graph').map((h) => h.id));
    });
  }

  private fuse(candidates: (Candidate & { bm25Raw: number })[], w: FusionWeights, limit: number): Hit[] {
    if (candidates.length === 0) return [];
    let maxBm = 1e-9;
    for (const c of candidates) if (c.bm25Raw > maxBm) maxBm = c.bm25Raw;
    const now = this.ctx.clock.now();
    const scored = candidates.map((c) => {
      const bm = Math.max(0, c.bm25Raw) / maxBm;
      const imp = Math.min(1, Math.max(0, Number.isFinite(c.importance) ? c.importance : 0));
      const t = Date.parse(c.created);
      const age = Number.isFinite(t) ? Math.max(0, now - t) : Number.POSITIVE_INFINITY;
      const rec = Number.isFinite(age) ? Math.pow(0.5, age / RECENCY_HALF_LIFE_MS) : 0;
      const acc = Math.min(1, Math.log1p(Math.max(0, c.access)) / Math.log1p(ACCESS_SATURATION));
      const parts = {
        bm25: round6(w.bm25 * bm),
        importance: round6(w.importance * imp),
        recency: round6(w.recency * rec),
        access: round6(w.access * acc),
      };
      const fused = round6(parts.bm25 + parts.importance + parts.recency + parts.access);
      return { c, fused, parts, signals: { bm25_raw: round6(c.bm25Raw), bm25: round6(bm), importance: round6(imp), recency: round6(rec), access: round6(acc) } };
    });
    scored.sort(
      (a, b) =>
        b.fused - a.fused ||
        SOURCE_ORDER[a.c.source] - SOURCE_ORDER[b.c.source] ||
        a.c.id.length - b.c.id.length ||
        (a.c.id < b.c.id ? -1 : a.c.id > b.c.id ? 1 : 0),
    );
    return scored.slice(0, limit).map(({ c, fused, parts, signals }) => ({
      source: c.source,
      id: c.id,
      score: fused,
      text: c.text,
      ...(c.title !== undefined ? { title: c.title } : {}),
      created: c.created,
      explain: { ...parts, fused, signals },
    }));
  }

}
