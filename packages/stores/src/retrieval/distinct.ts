import { toNfc } from '@memory-service/kernel';
import { SEARCH_LIMIT_MAX, type Hit, type SearchOptions } from './retrieval.js';
import type { Scope } from '../types.js';

/**
 * The most hits a refill asks retrieval for (its own cap): past it, a limit that collapsing cannot
 * fill is answered short.
 */
export const DISTINCT_ASK_MAX = SEARCH_LIMIT_MAX;

/**
 * In NFC, lower-cased, each run of white space one space, trimmed (a text with no run and no tab or
 * line break skips the replace): a copy of a memory with decomposed accents (macOS, some keyboards)
 * is the same text. toNfc reads a text below U+0300 (ASCII, Latin-1) once and gives it back as it
 * is, so the common case pays one scan, not a normalisation.
 */
function normal(s: string): string {
  const lower = toNfc(s).toLowerCase();
  return (/\s{2}|[^\S ]/.test(lower) ? lower.replace(/\s+/g, ' ') : lower).trim();
}

/** A letter, digit or mark at the start or end of a text: a word goes on across the join. */
const WORD_START = /^[\p{L}\p{N}\p{M}]/u;
const WORD_END = /[\p{L}\p{N}\p{M}]$/u;

/**
 * Whether `inner` stands in `outer` as whole words: "the cat" does not stand in "the caterpillar",
 * nor "code is 45" in "code is 4512" (another memory, which dropping would lose). Two units each
 * side keep a surrogate pair whole.
 */
export function standsIn(outer: string, inner: string): boolean {
  const start = WORD_START.test(inner);
  const end = WORD_END.test(inner);
  for (let i = outer.indexOf(inner); i !== -1; i = outer.indexOf(inner, i + 1)) {
    if (start && WORD_END.test(outer.slice(Math.max(0, i - 2), i))) continue;
    const after = i + inner.length;
    if (end && WORD_START.test(outer.slice(after, after + 2))) continue;
    return true;
  }
  return false;
}

/**
 * Drop a hit whose whole text already stands inside a better-ranked hit, as whole words (a relation node made
 * from the same thought as an episode, the graph node memory_remember made from its fact), so the limit is
 * spent on distinct memories; keep at most `limit` (built by push, not sliced: one array shape for V8 whatever the tier).
 */
export function collapseRedundant(hits: readonly Hit[], limit = Infinity): Hit[] {
  const kept: Hit[] = [];
  const texts: string[] = [];
  for (const h of hits) {
    if (kept.length >= limit) break;
    const t = normal(h.text);
    // A text longer than a kept one cannot stand inside it: no search through it.
    if (t && texts.some((k) => k.length >= t.length && k.includes(t) && standsIn(k, t))) continue;
    kept.push(h);
    texts.push(t);
  }
  return kept;
}

/** A text as collapseRedundant compares it: NFC, lower case, white space runs as one space, trimmed. */
export function comparableText(s: string): string {
  return normal(s);
}

/**
 * collapseRedundant's test outside a search, for listings made of several blocks (the recall
 * protocol's axes): whether `t` (a comparableText) stands, as whole words, inside one of `shown`
 * (comparableTexts), so the memory it is is already shown. An empty text stands in none.
 */
export function standsInAny(shown: readonly string[], t: string): boolean {
  return t !== '' && shown.some((k) => k.length >= t.length && k.includes(t) && standsIn(k, t));
}

/** What searchDistinct needs of Retrieval. */
export interface DistinctSearch {
  search(scope: Scope, query: string, opts: SearchOptions): Hit[];
}

/**
 * The best `limit` distinct hits (collapseRedundant) of a retrieval search: dream, memory_search and
 * the recall protocol's semantic axis. Retrieval is asked for a fifth more than `limit`, which covers
 * a few collapsed hits in one search; when fewer than `limit` remain and retrieval gave all it was
 * asked for, it is asked again for twice as many (at most DISTINCT_ASK_MAX), until `limit` distinct
 * hits remain or it runs out. The answer is the last search's, collapsed: a search for more ranks
 * from a deeper pool, so its first hits need not be the shorter search's, and each answer is one ranking.
 */
export function searchDistinct(retrieval: DistinctSearch, scope: Scope, query: string, limit: number, opts: Omit<SearchOptions, 'limit'> = {}): Hit[] {
  // As retrieval reads a limit: a whole number from 1 to its cap (NaN as its default, 10, so the loop ends).
  const want = Math.max(1, Math.min(SEARCH_LIMIT_MAX, Math.floor(Number.isNaN(limit) ? 10 : limit)));
  let ask = Math.min(DISTINCT_ASK_MAX, want + Math.ceil(want / 5));
  for (;;) {
    // One shape for the options whatever the caller gave (V8 keeps search's property reads monomorphic).
    const raw = retrieval.search(scope, query, { limit: ask, intent: opts.intent, sources: opts.sources, wiki_type: opts.wiki_type, weights: opts.weights });
    const hits = collapseRedundant(raw, want);
    if (hits.length >= want || raw.length < ask || ask >= DISTINCT_ASK_MAX) return hits;
    ask = Math.min(DISTINCT_ASK_MAX, ask * 2);
  }
}
