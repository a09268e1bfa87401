/**
 * Typo tolerance for retrieval: a query word the searched scope does not know at all (document
 * frequency 0 over the searched sources) is searched as the scope's terms closest to it, so "Alcie
 * cofee" still finds "Alice likes coffee". A word the scope knows is never expanded: a query whose
 * words all exist costs and ranks exactly as without this step.
 *
 * The rule, on the stemmed form the index keeps (stemmer.ts), with the optimal string alignment
 * distance (Damerau-Levenshtein where a transposed pair is one edit and no substring is edited
 * twice): one edit for a word of FUZZY_MIN_CHARS to 7 characters, two from FUZZY_TWO_EDITS_CHARS,
 * none for a shorter word, a word with a digit, or a word of an identifier (a piece of the query
 * holding a digit, `_`, `.` or another symbol inside it, or a case change within a word, as
 * `fetchUserProfile`: word-delimiter.ts reads those as names, and a near name is another name).
 * Candidates are ordered by distance, then higher document frequency, then the term, and at most
 * FUZZY_PER_TERM are kept per word, each searched with FUZZY_WEIGHT times the smaller of its own
 * idf and the lowest idf of the query's known words: a close term never counts as much as an exact
 * match of another word of the query.
 *
 * Finding them scans the scope part's terms (SourceIndex.eachTerm), skipping by length and by
 * letter set first and stopping each distance as soon as it passes the bound: only a query with an
 * unknown word pays it (about 0.2 ms at 10,000 memories, 2 ms at 100,000 with 50,000 distinct
 * words). An index Retrieval builds from the scope's rows (no index built, or the records changed
 * in the open transaction) is a SourceIndex too, read the same way: the rule is the same there.
 * Only recall uses it: forget's word match (util.ts wordsMatcher) never takes a close word.
 */

import { queryTerms, wordTokens } from './query.js';
import { idf, type QueryTerm } from './score.js';
import { stemWord } from './stemmer.js';

/** Shortest word (in characters) given one edit. */
export const FUZZY_MIN_CHARS = 4;
/** Shortest word (in characters) given two edits. */
export const FUZZY_TWO_EDITS_CHARS = 8;
/** Most close terms searched for one unknown word. */
export const FUZZY_PER_TERM = 3;
/** Share of its idf a close term is searched with. */
export const FUZZY_WEIGHT = 0.5;

/** A searched source's terms for one scope (a SourceIndex part, through Retrieval). */
export interface TermSource {
  df(stem: string): number;
  eachTerm(visit: (stem: string, df: number) => void): void;
}

/** A searched source: its index, and when records changed in the open transaction, their current versions. */
export interface SearchedTerms {
  index: TermSource;
  fresh: TermSource | null;
}

/** How many edits a query word may be away from a term of the scope: 0, 1 or 2 (see the rule above). */
export function fuzzyEdits(word: string): number {
  if (word.length < FUZZY_MIN_CHARS || /\d/.test(word)) return 0;
  return word.length >= FUZZY_TWO_EDITS_CHARS ? 2 : 1;
}

/** Something in a piece of a query (between white space, less the punctuation around it) that makes it an identifier or a number. */
const IDENTIFIER_MARK = /[\p{N}_.@/\\:#+=<>|~^*&$%]|\p{Ll}\p{M}*\p{Lu}/u;
const EDGE_PUNCTUATION = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;

/** The query's words (folded, as queryTerms gives them) that may be misspelt: those of pieces that are no identifier. */
export function typoWords(query: string): Set<string> {
  const out = new Set<string>();
  for (const piece of String(query).split(/\s+/)) {
    const core = piece.replace(EDGE_PUNCTUATION, '');
    if (core === '' || IDENTIFIER_MARK.test(core)) continue;
    for (const w of wordTokens(core)) out.add(w);
  }
  return out;
}

/**
 * A query's distinct stems in order, and how many edits each may be expanded by (0: never),
 * worked out only when asked (scoredTerms asks only when the scope does not know a stem).
 */
export function queryStems(query: string): { stems: string[]; edits: () => number[] } {
  const stems: string[] = [];
  const words: string[][] = [];
  for (const word of queryTerms(query)) {
    const stem = stemWord(word);
    const at = stems.indexOf(stem);
    if (at >= 0) words[at].push(word);
    else {
      stems.push(stem);
      words.push([word]);
    }
  }
  let edits: number[] | null = null;
  return {
    stems,
    edits: () => {
      if (edits !== null) return edits;
      const typos = typoWords(query);
      // Two words of one stem: as far as either allows.
      edits = words.map((ws) => Math.max(...ws.map((w) => (typos.has(w) ? fuzzyEdits(w) : 0))));
      return edits;
    },
  };
}

// Rows of the distance table, reused: a term is at most MAX_WORD_CHARS (64) units, a stem no longer.
let rowA = new Int32Array(80);
let rowB = new Int32Array(80);
let rowC = new Int32Array(80);

/**
 * The optimal string alignment distance of a and b (insertions, deletions, substitutions and
 * transpositions of two adjacent characters, each one edit, no substring edited twice), or
 * `max + 1` as soon as it is known to be more than `max`. Compares UTF-16 units.
 */
export function osaDistance(a: string, b: string, max: number): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > max) return max + 1;
  if (m + 1 > rowA.length) {
    rowA = new Int32Array(m + 1);
    rowB = new Int32Array(m + 1);
    rowC = new Int32Array(m + 1);
  }
  // prev2: row i-2, prev: row i-1, cur: row i.
  let prev2 = rowA;
  let prev = rowB;
  let cur = rowC;
  for (let j = 0; j <= m; j++) prev[j] = j;
  for (let i = 1; i <= n; i++) {
    cur[0] = i;
    let rowMin = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= m; j++) {
      const cb = b.charCodeAt(j - 1);
      const cost = ca === cb ? 0 : 1;
      let d = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && ca === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === cb) d = Math.min(d, prev2[j - 2] + 1);
      cur[j] = d;
      if (d < rowMin) rowMin = d;
    }
    // Every later row is at least this row's least value.
    if (rowMin > max) return max + 1;
    const t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  return prev[m] > max ? max + 1 : prev[m];
}

/** The set of a word's characters, each as bit (code % 32): two characters may share a bit, which only lets more terms through. */
function letterMask(s: string): number {
  let m = 0;
  for (let i = 0; i < s.length; i++) m |= 1 << (s.charCodeAt(i) & 31);
  return m;
}

function bitCount(v: number): number {
  let n = v - ((v >>> 1) & 0x55555555);
  n = (n & 0x33333333) + ((n >>> 2) & 0x33333333);
  return (((n + (n >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** A term of the scope close to an unknown query word. */
export interface CloseTerm {
  stem: string;
  distance: number;
  /** Documents holding it, over the searched sources' indexes. */
  df: number;
}

/**
 * The scope's terms within `edits` of `stem` over the searched sources, best first (distance, then
 * higher document frequency, then the term), at most `limit`, leaving out `skip` (the query's own
 * stems).
 */
export function closeTerms(stem: string, edits: number, sources: readonly SearchedTerms[], skip: readonly string[], limit = FUZZY_PER_TERM): CloseTerm[] {
  const found = new Map<string, CloseTerm>();
  const want = letterMask(stem);
  const lo = stem.length - edits;
  const hi = stem.length + edits;
  const see = (fromIndex: boolean) => (t: string, df: number) => {
    if (t.length < lo || t.length > hi) return;
    const known = found.get(t);
    if (known !== undefined) {
      if (fromIndex) known.df += df;
      return;
    }
    // Each edit takes at most one letter from a word's set of letters and adds at most one: a term
    // missing more than `edits` of the stem's letters, or holding more than `edits` others, is too far.
    const mask = letterMask(t);
    if (bitCount(want & ~mask) > edits || bitCount(mask & ~want) > edits) return;
    if (skip.includes(t)) return;
    const distance = osaDistance(stem, t, edits);
    if (distance > edits) return;
    found.set(t, { stem: t, distance, df: fromIndex ? df : 0 });
  };
  for (const s of sources) {
    s.index.eachTerm(see(true));
    s.fresh?.eachTerm(see(false));
  }
  const out = [...found.values()];
  out.sort((x, y) => x.distance - y.distance || y.df - x.df || (x.stem < y.stem ? -1 : x.stem > y.stem ? 1 : 0));
  return out.length > limit ? out.slice(0, limit) : out;
}

/**
 * The scored terms of a search: each stem with its idf over the searched sources (documents
 * `docs`, frequencies summed over their indexes), and in place of a stem no searched source holds
 * (indexes and changed records alike) that `editsOf()` allows to expand, its close terms (closeTerms),
 * each with FUZZY_WEIGHT times the smaller of its idf and the lowest idf of the stems found.
 */
export function scoredTerms(stems: readonly string[], editsOf: () => readonly number[], sources: readonly SearchedTerms[], docs: number): QueryTerm[] {
  // Built by push (see Retrieval.searchAt: one hidden class for the arrays the search hands on).
  const terms: QueryTerm[] = [];
  const dfs: number[] = [];
  let missing = false;
  let lowest = Number.POSITIVE_INFINITY;
  for (const stem of stems) {
    let df = 0;
    for (const s of sources) df += s.index.df(stem);
    dfs.push(df);
    const termIdf = idf(docs, df);
    if (df > 0 && termIdf < lowest) lowest = termIdf;
    if (df === 0) missing = true;
  }
  const edits = missing ? editsOf() : null;
  if (edits === null || !edits.some((e) => e > 0)) {
    for (let i = 0; i < stems.length; i++) terms.push({ stem: stems[i], idf: idf(docs, dfs[i]) });
    return terms;
  }
  for (let i = 0; i < stems.length; i++) {
    const stem = stems[i];
    if (dfs[i] > 0 || edits[i] === 0 || sources.some((s) => s.fresh !== null && s.fresh.df(stem) > 0)) {
      terms.push({ stem, idf: idf(docs, dfs[i]) });
      continue;
    }
    const close = closeTerms(stem, edits[i], sources, stems);
    // An unknown word with nothing close stays: it matches nothing, as before.
    if (close.length === 0) terms.push({ stem, idf: idf(docs, 0) });
    for (const c of close) {
      if (terms.some((t) => t.stem === c.stem)) continue;
      terms.push({ stem: c.stem, idf: FUZZY_WEIGHT * Math.min(idf(docs, c.df), lowest) });
    }
  }
  return terms;
}
