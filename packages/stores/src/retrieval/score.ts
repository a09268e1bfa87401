import { MAX_WORD_CHARS, wordTokens } from './query.js';
import { stemMayChangeStart, stemWord } from './stemmer.js';

/** BM25 parameters (the usual defaults, as in FTS5). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/** Bonus per adjacent query-term pair found within NEAR_WINDOW tokens, times the pair's smaller idf. */
export const PROXIMITY_WEIGHT = 0.3;
export const NEAR_WINDOW = 6;
/** Characters of one column read for scoring; longer text is scored on its head. */
export const SCORE_MAX_CHARS = 20_000;

export interface QueryTerm {
  stem: string;
  idf: number;
}

/** The part of a column that is scored: its first SCORE_MAX_CHARS characters. */
export function scoredText(text: string): string {
  return text.length > SCORE_MAX_CHARS ? text.slice(0, SCORE_MAX_CHARS) : text;
}

/** Stemmed tokens of a text (its scored part), as the index tokenises it. */
export function stemTokens(text: string): string[] {
  return wordTokens(scoredText(text)).map(stemWord);
}

function isAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}

/** Whether s[start, end), lower-cased, begins with the lower-case prefix p. */
function startsWithLower(s: string, start: number, end: number, p: string): boolean {
  if (end - start < p.length) return false;
  for (let k = 0; k < p.length; k++) {
    let c = s.charCodeAt(start + k);
    if (c >= 65 && c <= 90) c += 32;
    if (c !== p.charCodeAt(k)) return false;
  }
  return true;
}

/** Robertson/Lucene idf, always positive: ln(1 + (N - df + 0.5) / (df + 0.5)). */
export function idf(docs: number, df: number): number {
  const n = Math.max(docs, df);
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/**
 * The proximity bonus of one document: for each adjacent pair of query terms found within
 * NEAR_WINDOW tokens of each other in one column, PROXIMITY_WEIGHT times the pair's smaller idf.
 * BM25 itself comes from the retrieval index (term-index.ts), which scores exactly like
 * bm25Score below.
 */
export function proximityBonus(terms: readonly QueryTerm[], columns: readonly (readonly string[])[]): number {
  let bonus = 0;
  for (let i = 0; i + 1 < terms.length; i++) {
    const a = terms[i];
    const b = terms[i + 1];
    if (columns.some((tokens) => near(tokens, a.stem, b.stem))) bonus += PROXIMITY_WEIGHT * Math.min(a.idf, b.idf);
  }
  return bonus;
}

/**
 * proximityBonus over the columns' stemTokens, in one pass per text and without building token
 * arrays: each query term's latest position is kept, and a pair is found when one of its terms
 * turns up within NEAR_WINDOW tokens of the other's latest. Same answer, summed in the same order.
 * Made once per search, used for each candidate.
 *
 * Most words are never stemmed: the Porter stemmer only rewrites a word's ending (at most the last
 * two letters of the stem differ from the word: y to i, an added e), and the Russian one only
 * removes endings, so a word whose stem is S begins with S less its last two letters, and a word
 * that begins with none of those prefixes cannot be a query term. In ASCII text such a word is not
 * even cut out or lower-cased. An Arabic word may lose its article (stemmer-ar.ts), so it is
 * always stemmed.
 */
export class ProximityScorer {
  private readonly stems: string[];
  private readonly prefixes: string[];
  /**
   * The prefixes by their first character code, as linked lists: `firstOf[c]` is the first prefix
   * starting with c (lower-case ASCII), `nextOf[k]` the one after prefix k, -1 ending each. A word
   * is checked against the few prefixes that can start it: a long question has up to 32 terms,
   * and a long page's every word was checked against all of them. Two arrays a search, not a list
   * per letter.
   */
  private readonly firstOf = new Int32Array(128).fill(-1);
  private readonly nextOf: Int32Array;
  // Typed arrays: the same hidden class whatever the query, so V8's optimized code for the scorer
  // is not thrown away when a query with one term (no pairs) comes after longer ones.
  private readonly pairWeight: Float64Array;
  private readonly last: Float64Array;
  private readonly found: Uint8Array;
  private left = 0;

  constructor(terms: readonly QueryTerm[]) {
    this.stems = [];
    this.prefixes = [];
    for (const t of terms) {
      this.stems.push(t.stem);
      this.prefixes.push(t.stem.slice(0, Math.max(1, t.stem.length - 2)));
    }
    this.nextOf = new Int32Array(this.prefixes.length).fill(-1);
    for (let k = this.prefixes.length - 1; k >= 0; k--) {
      const c = this.prefixes[k].charCodeAt(0);
      if (c >= 128) continue;
      this.nextOf[k] = this.firstOf[c];
      this.firstOf[c] = k;
    }
    const pairs = Math.max(0, terms.length - 1);
    this.pairWeight = new Float64Array(pairs);
    for (let i = 0; i < pairs; i++) this.pairWeight[i] = PROXIMITY_WEIGHT * Math.min(terms[i].idf, terms[i + 1].idf);
    this.last = new Float64Array(terms.length);
    this.found = new Uint8Array(pairs);
  }

  /** The bonus of one document, given its columns' texts. */
  bonus(texts: readonly string[]): number {
    const pairs = this.pairWeight.length;
    if (pairs === 0) return 0;
    this.found.fill(0);
    this.left = pairs;
    for (const text of texts) {
      if (this.left === 0) break;
      this.last.fill(-Infinity);
      this.scan(scoredText(text));
    }
    let bonus = 0;
    for (let i = 0; i < pairs; i++) if (this.found[i] === 1) bonus += this.pairWeight[i];
    return bonus;
  }

  private scan(s: string): void {
    const { prefixes } = this;
    // eslint-disable-next-line no-control-regex
    if (!/^[\x00-\x7f]*$/.test(s)) {
      const words = wordTokens(s);
      for (let pos = 0; pos < words.length && this.left > 0; pos++) {
        const w = words[pos];
        if (prefixes.some((p) => w.startsWith(p)) || stemMayChangeStart(w)) this.see(pos, stemWord(w));
      }
      return;
    }
    // ASCII: the runs of letters and digits wordTokens would give, scanned in place.
    const n = s.length;
    let i = 0;
    let pos = 0;
    while (i < n && this.left > 0) {
      if (!isAlnum(s.charCodeAt(i))) {
        i++;
        continue;
      }
      const start = i;
      let first = s.charCodeAt(i);
      if (first >= 65 && first <= 90) first += 32;
      while (i < n && isAlnum(s.charCodeAt(i))) i++;
      // Only a prefix with the word's first letter can match it (a prefix is at least one letter).
      const { nextOf } = this;
      for (let k = this.firstOf[first]; k !== -1; k = nextOf[k]) {
        if (startsWithLower(s, start, i, prefixes[k])) {
          this.see(pos, stemWord(s.slice(start, Math.min(i, start + MAX_WORD_CHARS)).toLowerCase()));
          break;
        }
      }
      pos++;
    }
  }

  private see(pos: number, stem: string): void {
    const { stems, last, found } = this;
    const m = stems.length;
    for (let t = 0; t < m; t++) {
      if (stems[t] !== stem) continue;
      last[t] = pos;
      if (t > 0 && found[t - 1] === 0 && pos - last[t - 1] <= NEAR_WINDOW) {
        found[t - 1] = 1;
        this.left--;
      }
      if (t + 1 < m && found[t] === 0 && pos - last[t + 1] <= NEAR_WINDOW) {
        found[t] = 1;
        this.left--;
      }
    }
  }
}

/** Largest proximity bonus a document holding the terms flagged in `mask` (bit i: terms[i]) can get. */
export function proximityBound(terms: readonly QueryTerm[], mask: number): number {
  let bound = 0;
  for (let i = 0; i + 1 < terms.length; i++) {
    if (hasTerm(mask, i) && hasTerm(mask, i + 1)) bound += PROXIMITY_WEIGHT * Math.min(terms[i].idf, terms[i + 1].idf);
  }
  return bound;
}

/** Bit i of a term mask; terms past the 31st are taken as present. */
function hasTerm(mask: number, i: number): boolean {
  return i >= 31 || (mask & (1 << i)) !== 0;
}

/**
 * BM25 of one document made of weighted columns (BM25F: weighted term frequencies against the
 * weighted document length), against query terms whose idf is computed over all searched
 * sources together, so scores of different sources are comparable; plus the proximity bonus.
 */
export function bm25Score(
  terms: readonly QueryTerm[],
  columns: readonly { tokens: readonly string[]; weight: number; avgLen: number }[],
): number {
  let dl = 0;
  let avgdl = 0;
  for (const c of columns) {
    dl += c.weight * c.tokens.length;
    avgdl += c.weight * c.avgLen;
  }
  if (avgdl <= 0) avgdl = Math.max(dl, 1);
  const norm = BM25_K1 * (1 - BM25_B + (BM25_B * dl) / avgdl);
  let score = 0;
  for (const t of terms) {
    let tf = 0;
    for (const c of columns) {
      let n = 0;
      for (const tok of c.tokens) if (tok === t.stem) n++;
      tf += c.weight * n;
    }
    if (tf > 0) score += (t.idf * tf * (BM25_K1 + 1)) / (tf + norm);
  }
  return score + proximityBonus(terms, columns.map((c) => c.tokens));
}

function near(tokens: readonly string[], a: string, b: string): boolean {
  let lastA = -Infinity;
  let lastB = -Infinity;
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i] === a) lastA = i;
    if (tokens[i] === b) lastB = i;
    if (Number.isFinite(lastA) && Number.isFinite(lastB) && Math.abs(lastA - lastB) <= NEAR_WINDOW) return true;
  }
  return false;
}
