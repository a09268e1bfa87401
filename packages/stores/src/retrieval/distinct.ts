import { toNfc } from '@memory-service/kernel';
import { GENERATED_KEY_PREFIXES } from '../facts.js';
import { writtenText } from '../thought-link.js';
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
 * A fact's text as retrieval and the recap read it, `key: value`, when the key is one the service
 * generated (facts.isGeneratedKey: a GENERATED_KEY_PREFIXES prefix and a slug of the value's first
 * words, with no white space): the key is the service's wrapper around the value.
 */
const GENERATED_FACT_TEXT = new RegExp(`^(?:${GENERATED_KEY_PREFIXES.join('|')}):\\S*: `);
/** The mark the service's excerpts end with (a cut copy of a longer text). */
const CUT_MARK = '\u2026';
/** The least of a text's start a cut copy must hold to stand for it (as forget reads excerpts: isExcerptOf). */
const CUT_HEAD_MIN = 16;
/**
 * Ends a comparable text that is a cut copy (its start only): a line break, which a comparable text
 * never holds otherwise (normal() turns every run of white space into one space).
 */
const CUT = '\n';

/** Whether a comparable text is a cut copy (ends with CUT). */
const isCut = (t: string) => t.charCodeAt(t.length - 1) === 10;

/**
 * A record's text ending with the cut mark, as compared: its start (normal) ending with CUT when it
 * holds at least CUT_HEAD_MIN characters; a shorter one is compared whole, mark and all.
 */
function cutCopy(text: string, head: string): string {
  const t = normal(head.slice(0, -1));
  return t.length >= CUT_HEAD_MIN ? t + CUT : normal(text);
}

/**
 * Whether a cut copy's start `head` and the comparable text `k` are one memory: k begins with it,
 * or k is a cut copy too, one of whose starts begins the other.
 */
function sameStart(k: string, head: string): boolean {
  if (!isCut(k)) return k.startsWith(head);
  const body = k.slice(0, -1);
  return head.startsWith(body) || body.startsWith(head);
}

/**
 * Drop a hit whose memory a better-ranked hit already shows (standsInAny): its whole text standing, as
 * whole words, inside a better-ranked one (a relation node made from the same thought as an
 * episode, the graph node memory_remember made from its fact), each read without the service's
 * wrappers (comparableText), so an auto-save's episode and its `auto:` fact, or think's note and
 * the episode it copies, are one memory whichever ranks higher; the limit is spent on distinct
 * memories. Keeps at most `limit` (built by push, not sliced: one array shape for V8 whatever the tier).
 */
export function collapseRedundant(hits: readonly Hit[], limit = Infinity): Hit[] {
  const kept: Hit[] = [];
  const texts: string[] = [];
  for (const h of hits) {
    if (kept.length >= limit) break;
    const t = comparableText(h.text, h.source);
    if (standsInAny(texts, t)) continue;
    kept.push(h);
    texts.push(t);
  }
  return kept;
}

/**
 * A text as collapseRedundant compares it: the memory it holds without the wrappers the service adds
 * when it writes one memory in two records, for its store (`source`; without one, the text as it
 * is), then NFC, lower case, white space runs as one space, trimmed. The wrappers, the only ones read:
 * - `l4`: a fact whose key is generated (`note:`, `thought:`, `auto:`, `personality:`, `episode:`,
 *   then a slug) is read as its value: think's note, memory_hook's auto-save fact, evolve's fact and
 *   the consolidation of an episode hold the same text as the episode, node or thought they copy.
 *   A key the user chose (memory_remember, memory_save_typed) is part of the memory and stays.
 * - `l3` and `l4`: a long thought's link is read without the page reference it ends with
 *   (writtenText), and its excerpt, which ends with the cut mark, as a cut copy of the page's text.
 * - `graph`: a node whose content ends with the cut mark is a cut copy (memory_hook's node of an
 *   auto-save over 500 characters, as forget reads it: isExcerptOf).
 * A cut copy is its start, ending with a line break (CUT), when that holds at least CUT_HEAD_MIN
 * characters. Any other record (an episode, a page, a user's note however it begins or ends) is
 * its text as it is.
 */
export function comparableText(s: string, source?: string): string {
  if (source === 'l3' || source === 'l4') {
    const key = source === 'l4' ? GENERATED_FACT_TEXT.exec(s) : null;
    const t = key ? s.slice(key[0].length) : s;
    const written = writtenText(t);
    // Only a link's excerpt is the service's cut: a user's episode may end with an ellipsis of its own.
    if (written.length < t.length) {
      const head = written.trimEnd();
      return head.endsWith(CUT_MARK) ? cutCopy(written, head) : normal(written);
    }
    return normal(t);
  }
  if (source === 'graph') {
    const head = s.trimEnd();
    if (head.endsWith(CUT_MARK)) return cutCopy(s, head);
  }
  return normal(s);
}

/**
 * collapseRedundant's test outside a search, for listings made of several blocks (the recall
 * protocol's axes): whether `t` (a comparableText) is a memory one of `shown` (comparableTexts)
 * already shows, so it is left out: its whole text stands in one as whole words (standsIn; in a cut
 * copy's start), or one of the two is a cut copy whose start the other begins with.
 * A text only longer than a shown one (a user's "my code is 45 now" after "code is 45") is another
 * memory. An empty text stands in none.
 */
export function standsInAny(shown: readonly string[], t: string): boolean {
  if (t === '') return false;
  if (isCut(t)) {
    const head = t.slice(0, -1);
    return shown.some((k) => sameStart(k, head));
  }
  for (const k of shown) {
    // A cut copy shown stands for its text's start, and holds what stands in that start.
    const outer = isCut(k) ? k.slice(0, -1) : k;
    if (outer !== k && t.startsWith(outer)) return true;
    // A text longer than a shown one cannot stand inside it: no search through it.
    if (outer.length >= t.length && outer.includes(t) && standsIn(outer, t)) return true;
  }
  return false;
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
