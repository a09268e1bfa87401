import { isBlank } from '@memory-service/kernel';
import { validationError } from './errors.js';
import { estimateTokens, fitToBudget, type BudgetSection } from './retrieval/budget.js';
import { foldText, queryTerms, wordTokens } from './retrieval/query.js';
import type { Retrieval } from './retrieval/retrieval.js';
import { stemWord } from './retrieval/stemmer.js';
import { delimiterTerms } from './retrieval/word-delimiter.js';
import type { Layer, Scope } from './types.js';
import { checkScope } from './util.js';
import type { WikiPageInfo, WikiStore } from './wiki.js';
import type { WikiType } from './wiki-types.js';

/** wiki_summarize's perspectives, each with its canonical layer and wiki type (the spec's table). */
export const WIKI_PERSPECTIVES = {
  practical: { layer: 'agent', wiki_type: 'decision_log' },
  epistemic: { layer: 'agent', wiki_type: 'learning_journal' },
  psychological: { layer: 'agent', wiki_type: 'emotional_context' },
  social: { layer: 'user', wiki_type: 'relationships' },
  temporal: { layer: 'user', wiki_type: 'retrospective' },
  metacognitive: { layer: 'agent', wiki_type: 'principle_log' },
} as const satisfies Record<string, { layer: Layer; wiki_type: WikiType }>;
export type WikiPerspective = keyof typeof WIKI_PERSPECTIVES;
export const WIKI_PERSPECTIVE_NAMES = Object.keys(WIKI_PERSPECTIVES) as WikiPerspective[];

/** The most tokens a wiki_summarize digest holds (the stores' one estimator: retrieval/budget.ts). */
export const WIKI_DIGEST_MAX_TOKENS = 2000;
/** Characters of a wiki_search excerpt. */
export const WIKI_EXCERPT_CHARS = 240;

export interface WikiSearchHit extends WikiPageInfo {
  score: number;
  /** A single-line excerpt of the content around the first query word it holds, in any spelling retrieval matches (else its start). */
  excerpt: string;
}

export interface WikiSummary {
  perspective: WikiPerspective;
  layer: Layer;
  wiki_type: WikiType;
  query: string;
  pages: { title: string; type: WikiType; tags: string[]; path: string }[];
  count: number;
  /** Pages of `pages` whose text is in the digest, whole or cut. */
  digest_pages: number;
  truncated: boolean;
  digest: string;
  estimated_tokens: number;
}

/**
 * Excerpt of `text` of at most `max` characters, on one line, starting a little before the first
 * of `words` it holds (ignoring case), or the first word whose other spellings retrieval indexes
 * hold one of them (firstSpelledIndex), or else the first word of the same stem as one of them
 * (firstStemmedIndex), else at its start. Never splits a surrogate pair.
 */
export function excerptAround(text: string, words: readonly string[], max = WIKI_EXCERPT_CHARS): string {
  // Only the head of a long page is searched for the word: an excerpt is a pointer, not a scan.
  const head = text.length > 20_000 ? text.slice(0, 20_000) : text;
  const found = firstFoldedIndex(head, words);
  const spelled = firstSpelledIndex(found < 0 ? head : head.slice(0, found), words);
  const at = spelled >= 0 ? spelled : found >= 0 ? found : firstStemmedIndex(head, words);
  let start = at <= 40 ? 0 : at - 40;
  if (start > 0 && isLowSurrogate(head.charCodeAt(start))) start--;
  let end = Math.min(head.length, start + max * 2);
  if (end < head.length && isLowSurrogate(head.charCodeAt(end))) end++;
  const flat = head.slice(start, end).replace(/\s+/g, ' ').trim();
  const points = Array.from(flat);
  const cut = points.length > max - (start > 0 ? 1 : 0) || end < text.length;
  // The ellipses count against `max` too.
  const body = points.slice(0, max - (start > 0 ? 1 : 0) - (cut ? 1 : 0)).join('').trimEnd();
  return `${start > 0 ? '…' : ''}${body}${cut ? '…' : ''}`;
}

/**
 * Where in `text` the first of `words` (query terms, folded: foldText) begins, or -1. Text beyond
 * ASCII is folded a character at a time, each folded unit remembering the character it came from:
 * the terms are folded ("münchen" is "munchen", Hangul is split into its letters), so a search of
 * the text as written missed them and the excerpt showed the page's start.
 */
function firstFoldedIndex(text: string, words: readonly string[]): number {
  // eslint-disable-next-line no-control-regex
  const ascii = /^[\x00-\x7f]*$/.test(text);
  let folded = ascii ? text.toLowerCase() : '';
  const from: number[] = [];
  if (!ascii) {
    for (let i = 0; i < text.length; ) {
      const ch = String.fromCodePoint(text.codePointAt(i)!);
      const f = foldText(ch);
      for (let k = 0; k < f.length; k++) from.push(i);
      folded += f;
      i += ch.length;
    }
  }
  let at = -1;
  for (const w of words) {
    const i = folded.indexOf(foldText(w));
    const j = i < 0 ? -1 : ascii ? i : from[i]!;
    if (j >= 0 && (at < 0 || j < at)) at = j;
  }
  return at;
}

/**
 * A piece of text between white space, whose thin and no-break spaces stay in it (they group a
 * number's thousands): no spelling retrieval indexes beside the words crosses white space.
 */
const SPELLING_PIECE = /(?:[^\s]|[\u00a0\u202f\u2009])+/gu;

/**
 * Where in `text` the first piece begins whose other spellings retrieval indexes (word-delimiter.ts
 * delimiterTerms, as a document's: "fetch_user_profile" as "fetchuserprofile", "$12,400" as
 * "12400", "e-mail" as "email") hold one of `words`, or -1: a page found through such a spelling
 * holds no query word as written, and its excerpt showed the page's start. The whole text is read
 * once for the terms (as the index reads it); only when one of them is a query word are its pieces
 * read one by one to find where.
 */
function firstSpelledIndex(text: string, words: readonly string[]): number {
  const wanted = (terms: readonly string[]) => terms.some((t) => words.includes(t));
  if (!wanted(delimiterTerms(text))) return -1;
  for (const m of text.matchAll(SPELLING_PIECE)) if (wanted(delimiterTerms(m[0]))) return m.index;
  return -1;
}

/** A word of the text as written, as wordTokens cuts words of scripts written with spaces. */
const WRITTEN_WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;

/**
 * Where in `text` the first word begins whose stem (stemmer.ts stemWord) is the stem of one of
 * `words`, or -1: a page is found through another form of a query word ("встречу" for "Встреча",
 * "كتابه" for "الكتاب", "meetings" for "meeting"), which holds no query word as written.
 */
function firstStemmedIndex(text: string, words: readonly string[]): number {
  const stems = new Set(words.map(stemWord));
  for (const m of text.matchAll(WRITTEN_WORD)) {
    if (wordTokens(m[0]).some((t) => stems.has(stemWord(t)))) return m.index;
  }
  return -1;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Read views over the wiki that combine the page store with retrieval: search and perspective digests. */
export class WikiViews {
  constructor(
    private readonly wiki: WikiStore,
    private readonly retrieval: Retrieval,
  ) {}

  /**
   * Full-text search over the pages of the scope (the ranking dream uses, wiki pages only),
   * optionally of one type; best first, at most `limit`.
   */
  search(scope: Scope, query: string, opts: { wiki_type?: string; limit?: number } = {}): WikiSearchHit[] {
    checkScope(scope);
    // As dream's query: a blank one (spaces, zero-width characters) asks for nothing, and an empty
    // answer would read as "no page holds it".
    if (isBlank(query)) throw validationError('query', 'query must not be empty or only white space and invisible characters', 'text with a visible character');
    const hits = this.retrieval.search(scope, query, { sources: ['wiki'], wiki_type: opts.wiki_type, limit: opts.limit ?? 10 });
    const infos = this.wiki.infoByIds(scope, hits.map((h) => h.id));
    const words = queryTerms(query);
    const out: WikiSearchHit[] = [];
    for (const h of hits) {
      const info = infos.get(h.id);
      if (info) out.push({ ...info, score: h.score, excerpt: excerptAround(h.text, words) });
    }
    return out;
  }

  /**
   * A perspective's digest: the pages of its wiki type on its canonical layer (whatever layer the
   * caller named), the most recently updated first when `query` is empty, else those the search
   * finds for it, best first; at most `limit` pages, then cut to WIKI_DIGEST_MAX_TOKENS.
   */
  summarize(perspective: string, user_id: string, query = '', limit = 10): WikiSummary {
    if (!Object.hasOwn(WIKI_PERSPECTIVES, perspective)) {
      throw validationError('perspective', `perspective must be one of ${WIKI_PERSPECTIVE_NAMES.join(', ')}`, WIKI_PERSPECTIVE_NAMES);
    }
    const p = perspective as WikiPerspective;
    const { layer, wiki_type } = WIKI_PERSPECTIVES[p];
    const scope: Scope = { layer, user_id };
    checkScope(scope);
    const cap = Math.max(1, Math.floor(limit));
    const infos = isBlank(query) ? this.wiki.list(scope, { wiki_type, limit: cap }) : this.search(scope, query, { wiki_type, limit: cap });
    const pages = infos.map((i) => this.wiki.getByTitle(scope, i.title)).filter((pg) => pg !== null);
    const header = `# ${p[0]!.toUpperCase()}${p.slice(1)} perspective: ${wiki_type} (${layer} layer)\n\n`;
    const sections: BudgetSection[] = pages.map((pg) => ({
      title: pg.title,
      text: `_updated ${pg.updated}${pg.tags.length > 0 ? `; tags: ${pg.tags.join(', ')}` : ''}_\n\n${pg.content.trim()}`,
    }));
    let digest: string;
    let truncated = false;
    let inDigest = 0;
    if (sections.length === 0) {
      digest = `${header}No ${wiki_type} pages${query.trim() === '' ? '' : ` match ${JSON.stringify(query)}`}.`;
    } else {
      const fitted = fitToBudget(sections, WIKI_DIGEST_MAX_TOKENS - estimateTokens(header));
      truncated = fitted.truncated;
      inDigest = fitted.sections.length;
      digest = (header + fitted.sections.map((s) => `## ${s.title}\n${s.text}\n\n`).join('')).trimEnd();
    }
    return {
      perspective: p,
      layer,
      wiki_type,
      query,
      pages: pages.map((pg) => ({ title: pg.title, type: pg.wiki_type, tags: pg.tags, path: pg.path })),
      count: pages.length,
      digest_pages: inDigest,
      truncated,
      digest,
      estimated_tokens: estimateTokens(digest),
    };
  }
}
