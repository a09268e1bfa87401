import type { StoreContext } from './context.js';
import { validationError } from './errors.js';
import { searchDistinct } from './retrieval/distinct.js';
import type { FusionWeights, Hit, Intent, Retrieval, RetrievalSource, SearchOptions } from './retrieval/retrieval.js';
import type { Scope } from './types.js';
import { checkScope, isoOf } from './util.js';

/**
 * memory_search's strategies, each a weighting of the one retrieval ranking (Retrieval.search):
 * hybrid (text relevance first, importance, recency and access breaking near-ties: dream's balanced
 * intent), keyword (text relevance alone: BM25 with the proximity bonus), recent (recency weighs as
 * much as relevance) and core (importance weighs almost as much as relevance).
 */
export const SEARCH_STRATEGIES = ['hybrid', 'keyword', 'recent', 'core'] as const;
export type SearchStrategy = (typeof SEARCH_STRATEGIES)[number];
/** The sources memory_search can search, and its default: all of them. */
export const SEARCH_SOURCES = ['l3', 'l4', 'wiki', 'graph'] as const satisfies readonly RetrievalSource[];
export const SEARCH_MAX_LIMIT = 50;
export const SEARCH_DEFAULT_LIMIT = 10;

export const KEYWORD_WEIGHTS: Readonly<FusionWeights> = Object.freeze({ bm25: 1, importance: 0, recency: 0, access: 0 });
const STRATEGY_INTENT: Record<Exclude<SearchStrategy, 'keyword'>, Intent> = { hybrid: 'balanced', recent: 'recent', core: 'core' };

/** The retrieval options of a strategy. */
export function strategyOptions(strategy: SearchStrategy): Pick<SearchOptions, 'intent' | 'weights'> {
  if (!(SEARCH_STRATEGIES as readonly string[]).includes(strategy)) {
    throw validationError('strategy', `strategy must be one of ${SEARCH_STRATEGIES.join(', ')}`, SEARCH_STRATEGIES);
  }
  return strategy === 'keyword' ? { intent: 'balanced', weights: KEYWORD_WEIGHTS } : { intent: STRATEGY_INTENT[strategy] };
}

/** How long memory_recall keeps an answer at most, in ms of the injected clock. */
export const RECALL_CACHE_TTL_MS = 60_000;
/** Answers kept at most (all scopes); the least recently used goes first. */
export const RECALL_CACHE_MAX = 256;
/** What memory_recall searches: L3 and L4. */
export const RECALL_SOURCES: readonly RetrievalSource[] = ['l3', 'l4'];
export const RECALL_MAX_LIMIT = 50;
export const RECALL_DEFAULT_LIMIT = 10;

export interface RecallAnswer {
  hits: Hit[];
  cached: boolean;
  /** When the answer was computed (ISO), and when it stops being served from the cache. */
  computed_at: string;
  expires_at: string;
}

interface Entry {
  hits: Hit[];
  /** The scope's write count and the database's restore token the answer was computed at (see stamp). */
  stamp: string;
  at: number;
}

/**
 * memory_recall: hybrid retrieval over L3 and L4 (balanced intent), each memory once (searchDistinct), with answers cached per scope,
 * query and limit for RECALL_CACHE_TTL_MS of the clock. An answer is served from the cache only
 * while the scope's write count (scope_writes, moved by triggers on every insert, update and
 * delete of its episodes and facts, by any process) and the database's restore token (replaced
 * by every memory_backup restore, in any process) are the ones it was computed at, so neither a
 * write to the scope nor a restore is answered with what was there before. It records no access
 * and no telemetry.
 */
export class RecallCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ctx: StoreContext,
    private readonly retrieval: Retrieval,
    readonly ttlMs = RECALL_CACHE_TTL_MS,
    readonly max = RECALL_CACHE_MAX,
  ) {}

  /**
   * What an answer stays valid under: the database's restore token and the scope's write count (0
   * before its first write). A restore brings the backup's counts back, which later writes reach
   * again; its new token is what tells an answer from before it.
   */
  stamp(scope: Scope): string {
    const r = this.ctx
      .stmt('SELECT (SELECT token FROM restore_token WHERE id = 1) AS token, (SELECT n FROM scope_writes WHERE layer = ? AND user_id = ?) AS n')
      .get(scope.layer, scope.user_id) as { token: string | null; n: number | null };
    return `${r.token ?? ''}\u0000${r.n ?? 0}`;
  }

  recall(scope: Scope, query: string, limit = RECALL_DEFAULT_LIMIT): RecallAnswer {
    checkScope(scope);
    if (typeof query !== 'string' || query.trim().length === 0) throw validationError('query', 'query must be a non-blank text', 'text with a visible character');
    if (!Number.isInteger(limit) || limit < 1 || limit > RECALL_MAX_LIMIT) throw validationError('limit', `limit must be a whole number from 1 to ${RECALL_MAX_LIMIT}`, `1..${RECALL_MAX_LIMIT}`);
    const key = JSON.stringify([scope.layer, scope.user_id, query, limit]);
    const now = this.ctx.clock.now();
    const stamp = this.stamp(scope);
    const hit = this.entries.get(key);
    if (hit && hit.stamp === stamp && now - hit.at < this.ttlMs && now >= hit.at) {
      // Most recently used last: the first key is the one to evict.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return this.answer(hit, true);
    }
    const entry: Entry = { hits: searchDistinct(this.retrieval, scope, query, limit, { intent: 'balanced', sources: RECALL_SOURCES }), stamp, at: now };
    // Inside a transaction the answer may hold writes a rollback takes back (and the count with them): not kept.
    if (this.ctx.db.inTransaction) return this.answer(entry, false);
    this.entries.delete(key);
    this.entries.set(key, entry);
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
    return this.answer(entry, false);
  }

  /** Answers held now (some may be stale: they are dropped when next asked for, or evicted). */
  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }

  private answer(e: Entry, cached: boolean): RecallAnswer {
    return { hits: e.hits.map((h) => ({ ...h, explain: { ...h.explain, signals: { ...h.explain.signals } } })), cached, computed_at: isoOf(e.at), expires_at: isoOf(e.at + this.ttlMs) };
  }
}
