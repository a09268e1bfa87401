import type { StoreContext } from '../context.js';
import { validationError } from '../errors.js';
import type { EpisodeStore } from '../episodes.js';
import type { FactStore } from '../facts.js';
import type { GraphStore } from '../graph.js';
import type { Scope } from '../types.js';
import { checkScope } from '../util.js';
import { checkWikiType } from '../wiki-types.js';
import { corpusStats, docFreq } from './corpus.js';
import { buildMatch } from './query.js';
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

interface SourceSpec {
  fts: string;
  /** Column weights, in index column order: titles and keys weigh more than bodies, tags less. */
  weights: number[];
  sql: string;
  map(r: Record<string, unknown>): Candidate;
}

const SOURCES: Record<RetrievalSource, SourceSpec> = {
  l3: {
    fts: 'episodes_fts',
    weights: [1.0, 0.3],
    sql: `SELECT e.id, e.summary, e.tags, e.importance, e.created, e.access_count, bm25(episodes_fts, 1.0, 0.3) AS bm
      FROM episodes_fts JOIN episodes e ON e.id = episodes_fts.rowid
      WHERE episodes_fts MATCH ? AND e.layer = ? AND e.user_id = ? ORDER BY bm, e.id LIMIT ?`,
    map: (r) => ({
      source: 'l3',
      id: `ep_${r.id}`,
      text: String(r.summary),
      created: String(r.created),
      columns: [String(r.summary), String(r.tags)],
      importance: Number(r.importance),
      access: Number(r.access_count),
    }),
  },
  l4: {
    fts: 'facts_fts',
    weights: [0.5, 1.0],
    sql: `SELECT f.id, f.key, f.value, f.importance, f.created, f.access_count, bm25(facts_fts, 0.5, 1.0) AS bm
      FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid
      WHERE facts_fts MATCH ? AND f.layer = ? AND f.user_id = ? ORDER BY bm, f.id LIMIT ?`,
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
    weights: [2.0, 1.0],
    sql: `SELECT w.id, w.title, w.content, w.wiki_type, w.updated AS created, bm25(wiki_fts, 2.0, 1.0) AS bm
      FROM wiki_fts JOIN wiki_pages w ON w.id = wiki_fts.rowid
      WHERE wiki_fts MATCH ? AND w.layer = ? AND w.user_id = ? AND (? IS NULL OR w.wiki_type = ?) ORDER BY bm, w.id LIMIT ?`,
    map: (r) => ({
      source: 'wiki',
      id: `wiki_${r.id}`,
      text: String(r.content),
      title: String(r.title),
      created: String(r.created),
      columns: [String(r.title), String(r.content)],
      importance: 0.5,
      access: 0,
    }),
  },
  graph: {
    fts: 'graph_fts',
    weights: [1.0, 0.3],
    sql: `SELECT n.id, n.content, n.tags, n.node_type, n.confidence, n.created, n.access_count, bm25(graph_fts, 1.0, 0.3) AS bm
      FROM graph_fts JOIN graph_nodes n ON n.id = graph_fts.rowid
      WHERE graph_fts MATCH ? AND n.layer = ? AND n.user_id = ? ORDER BY bm, n.id LIMIT ?`,
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
    weights: [0.3, 1.0],
    sql: `SELECT t.id, t.type, t.summary, t.created, bm25(timeline_fts, 0.3, 1.0) AS bm
      FROM timeline_fts JOIN timeline_events t ON t.id = timeline_fts.rowid
      WHERE timeline_fts MATCH ? AND t.layer = ? AND t.user_id = ? ORDER BY bm, t.id LIMIT ?`,
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

function round6(v: number): number {
  return Math.round(v * 1e6) / 1e6;
}

/**
 * Hybrid retrieval over the FTS5 indexes (porter stemming, stop words dropped, terms OR-ed with
 * NEAR pairs). Per source, the best `limit * 5` FTS5 BM25 candidates of the scope are taken
 * (ORDER BY bm25 LIMIT, no table scan); they are re-scored on one BM25 scale shared by all
 * sources (see score.ts), and fused with the intent's weights:
 *   fused = w.bm25 * bm25/max_bm25 + w.importance * importance + w.recency * 0.5^(age/7d)
 *         + w.access * log(1+access)/log(1+20)
 * Deterministic: ties are broken by source order and id.
 */
export class Retrieval {
  constructor(
    private readonly ctx: StoreContext,
    private readonly stores: { episodes: EpisodeStore; facts: FactStore; graph: GraphStore },
  ) {}

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
    const built = buildMatch(query);
    if (!built) return [];
    const pool = Math.min(500, Math.max(25, limit * 5));
    const active = RETRIEVAL_SOURCES.filter((src) => sources.includes(src));
    const candidates: Candidate[] = [];
    for (const source of active) {
      const spec = SOURCES[source];
      const params: unknown[] =
        source === 'wiki'
          ? [built.match, scope.layer, scope.user_id, wikiType, wikiType, pool]
          : [built.match, scope.layer, scope.user_id, pool];
      const rows = this.ctx.stmt(spec.sql).all(...params) as Record<string, unknown>[];
      for (const r of rows) candidates.push(spec.map(r));
    }
    if (candidates.length === 0) return [];
    const scored = this.rescore(candidates, built.terms, active);
    return this.fuse(scored, INTENT_WEIGHTS[intent]).slice(0, limit);
  }

  /**
   * One BM25 scale for every source: idf from the document counts of all searched sources
   * together (fts5vocab), length normalisation against each source's own mean column lengths.
   */
  private rescore(candidates: Candidate[], queryWords: string[], active: RetrievalSource[]): (Candidate & { bm25Raw: number })[] {
    const stats = new Map(active.map((s) => [s, corpusStats(this.ctx, SOURCES[s].fts, SOURCES[s].weights.length)]));
    const totalDocs = active.reduce((n, s) => n + (stats.get(s)?.docs ?? 0), 0);
    const stems: string[] = [];
    for (const w of queryWords) {
      const st = porterStem(w);
      if (!stems.includes(st)) stems.push(st);
    }
    const terms: QueryTerm[] = stems.map((stem) => {
      const df = active.reduce((n, s) => n + docFreq(this.ctx, SOURCES[s].fts, stem), 0);
      return { stem, idf: idf(totalDocs, df) };
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

  private fuse(candidates: (Candidate & { bm25Raw: number })[], w: FusionWeights): Hit[] {
    if (candidates.length === 0) return [];
    const maxBm = Math.max(...candidates.map((c) => c.bm25Raw), 1e-9);
    const now = this.ctx.clock.now();
    const order = new Map(RETRIEVAL_SOURCES.map((s, i) => [s, i]));
    const hits = candidates.map((c): Hit => {
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
      return {
        source: c.source,
        id: c.id,
        score: fused,
        text: c.text,
        ...(c.title !== undefined ? { title: c.title } : {}),
        created: c.created,
        explain: {
          ...parts,
          fused,
          signals: { bm25_raw: round6(c.bm25Raw), bm25: round6(bm), importance: round6(imp), recency: round6(rec), access: round6(acc) },
        },
      };
    });
    hits.sort(
      (a, b) =>
        b.score - a.score ||
        (order.get(a.source) as number) - (order.get(b.source) as number) ||
        a.id.length - b.id.length ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
    return hits;
  }
}
