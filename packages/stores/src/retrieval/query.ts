/**
 * Query and document text to terms. Text is lower-cased, folded to ASCII where possible and split
 * into word tokens the way SQLite's unicode61 tokenizer splits it, except that runs of scripts
 * written without spaces (Chinese, Japanese, Thai...) become overlapping character bigrams;
 * English stop words and one-character tokens (but digits and single characters of those scripts)
 * are dropped from queries (and from the retrieval index's postings). For
 * plugins that keep FTS5 tables of their own, buildMatch turns a query into a MATCH expression in
 * which every term is quoted, so user punctuation (quotes, `*`, `AND(`, `NEAR`, `:`) can never
 * break the FTS syntax.
 */

import { cutUnits } from '@memory-service/kernel';
import { hasUnspaced, lazyRegExp, UNSPACED } from '../scripts.js';
import { delimiterTerms, nameTerms } from './word-delimiter.js';

export const STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above after again against all also am an and any are aren as at be because been before being below
between both but by can cannot could couldn did didn do does doesn doing don down during each few for from further
had hadn has hasn have haven having he her here hers herself him himself his how i if in into is isn it its itself
just let ll me might more most much must mustn my myself no nor not now of off on once only or other ought our ours
ourselves out over own re same shall shan she should shouldn so some such than that the their theirs them themselves
then there these they this those through to too under until up upon us ve very was wasn we were weren what when where
which while who whom whose why will with would wouldn you your yours yourself yourselves s t d m o y
get got ever really quite yes yeah ok okay oh`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

/** Largest number of distinct terms kept from one query. */
export const MAX_QUERY_TERMS = 32;
/** A letter, digit or mark of a script written without spaces. */
const UNSPACED_CHAR = `(?:(?=[\\p{L}\\p{N}\\p{M}])${UNSPACED})`;
/**
 * In text holding a script written without spaces: a run of that script (marks that follow its
 * letters included, as Japanese voiced sound marks after NFKD or Thai vowel and tone marks), or a
 * run of other letters and digits, which is a word token as unicode61 would cut it.
 */
const MIXED_TOKEN = lazyRegExp(
  () => `(${UNSPACED_CHAR}(?:${UNSPACED_CHAR}|\\p{M})*)|(?:(?!${UNSPACED})[\\p{L}\\p{N}])(?:(?!${UNSPACED})[\\p{L}\\p{N}\\p{M}])*`,
  'gu',
);
/**
 * A word of scripts written with spaces: a letter or digit, then letters, digits and marks. Marks
 * are part of a word, as unicode61 counts them: Devanagari, Bengali or Tamil vowel signs and
 * viramas sit inside words, and splitting there left one-letter pieces that no query could find.
 */
const SPACED_WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;
/** The characters of a run, each with the marks that follow it. */
const CHARACTER = /\P{M}\p{M}*|\p{M}+/gu;

/**
 * Marks a writer may leave out, removed as accents are: the combining diacritics U+0300-U+036F
 * ("Café" is "Cafe"), Hebrew points and cantillation, Arabic harakat and Quranic marks, and the
 * Arabic tatweel (a stretch of the line, not a letter): "שָׁלוֹם" is "שלום", as most text writes it.
 * Other marks (Indic vowel signs, viramas) are letters of the word and stay.
 */
// Each mark stands alone in the class on purpose: none is meant combined with a character before it.
// eslint-disable-next-line no-misleading-character-class
export const OPTIONAL_MARKS = /[\u0300-\u036f\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7\u0610-\u061a\u0640\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e8\u06ea-\u06ed]|\p{Cf}/gu;
/**
 * Letters with no decomposition that are written as plain Latin (or, for the final sigma, as the
 * other form of the same letter) where a keyboard lacks them: "Straße" is found by "strasse",
 * "Łódź" by "lodz", "smørrebrød" by "smorrebrod".
 */
const LETTER_FOLDS: Readonly<Record<string, string>> = { ß: 'ss', ı: 'i', ł: 'l', ø: 'o', æ: 'ae', œ: 'oe', đ: 'd', ð: 'd', þ: 'th', ħ: 'h', ς: 'σ' };
const FOLDED_LETTER = /[ßıłøæœđðþħς]/g;

/**
 * Text as retrieval compares it: compatibility forms decomposed (NFKD: full-width "ＣＡＦＥ" is
 * "CAFE", the ligature "ﬁ" is "fi"), optional marks (OPTIONAL_MARKS) and invisible format
 * characters (Unicode Cf: a soft hyphen or zero-width space inside a word) removed, lower-cased,
 * and the letters of LETTER_FOLDS written plain. forget's word match (util.ts wordsMatcher) folds
 * with it too, so what dream finds for a word, fuzzy forget with that word deletes.
 */
export function foldText(text: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(text)) return text.toLowerCase();
  return text
    .normalize('NFKD')
    .replace(OPTIONAL_MARKS, '')
    .toLowerCase()
    .replace(FOLDED_LETTER, (c) => LETTER_FOLDS[c]!);
}

/** Longest word kept whole, in UTF-16 units: a longer one is cut to its first MAX_WORD_CHARS. */
export const MAX_WORD_CHARS = 64;

/**
 * Words over MAX_WORD_CHARS cut to their first MAX_WORD_CHARS (one less where that would split a
 * surrogate pair), in place: a German compound of 80 letters was dropped, and no query found it.
 */
function cutLongWords(words: string[]): string[] {
  for (let i = 0; i < words.length; i++) if (words[i]!.length > MAX_WORD_CHARS) words[i] = cutUnits(words[i]!, MAX_WORD_CHARS);
  return words;
}

/**
 * Lower-cased word tokens with diacritics removed, in order (stop words kept), split like
 * unicode61. A run of a script written without spaces (scripts.ts: Chinese, Japanese, Thai...)
 * has no word boundaries to split at, so it becomes its overlapping character bigrams (a run of
 * one character stays one token), as Lucene's CJK analyzer does: a query word of two or more
 * characters then matches inside longer text. Text without such a character pays one test.
 */
export function wordTokens(text: string): string[] {
  const s = String(text);
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(s)) return cutLongWords(s.toLowerCase().match(/[a-z0-9]+/g) ?? []);
  const folded = foldText(s);
  if (!hasUnspaced(folded)) return cutLongWords(folded.match(SPACED_WORD) ?? []);
  const out: string[] = [];
  for (const m of folded.matchAll(MIXED_TOKEN())) {
    if (m[1] === undefined) {
      out.push(m[0]);
      continue;
    }
    const chars = m[1].match(CHARACTER)!;
    if (chars.length === 1) out.push(chars[0]!);
    for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
  }
  return cutLongWords(out);
}

/**
 * Whether a lower-cased word can be a query term: no stop word, two to MAX_WORD_CHARS characters (one if a
 * digit, or a character of a script written without spaces: a Chinese word can be one character).
 */
export function isQueryWord(w: string): boolean {
  return !STOP_WORDS.has(w) && w.length <= MAX_WORD_CHARS && (w.length >= 2 || /\d/.test(w) || (w.charCodeAt(0) > 0x7f && hasUnspaced(w)));
}

/**
 * Nouns that, between an interrogative and "of" ("what kind of music", "which types of food"),
 * only ask for a category: the noun after "of" is what the question is about.
 */
const CATEGORY_NOUNS: ReadonlySet<string> = new Set(['kind', 'kinds', 'type', 'types', 'sort', 'sorts']);
const INTERROGATIVES: ReadonlySet<string> = new Set(['what', 'which']);

/**
 * The content terms of a query: stop words and one-letter tokens dropped, duplicates removed, order
 * kept; then the extra terms the index also holds (word-delimiter.ts: `fetch_user_profile` gives
 * `fetchuserprofile`, `250ms` gives `250` and `ms`, `C++`, emoji, `Kündigung` also as `kuendigung`,
 * stop words written as names).
 */
export function queryTerms(query: string, opts: { names?: boolean } = {}): string[] {
  const out: string[] = [];
  const tokens = wordTokens(query);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (!isQueryWord(t)) continue;
    if (CATEGORY_NOUNS.has(t) && tokens[i + 1] === 'of' && INTERROGATIVES.has(tokens[i - 1] ?? '')) continue;
    if (!out.includes(t)) out.push(t);
    if (out.length >= MAX_QUERY_TERMS) return out;
  }
  // The other spellings of its identifiers, numbers and symbols, and its stop words written as names (word-delimiter.ts).
  const names = opts.names ?? true;
  for (const j of [...delimiterTerms(query), ...(names ? nameTerms(query) : [])]) {
    if (out.includes(j)) continue;
    out.push(j);
    if (out.length >= MAX_QUERY_TERMS) return out;
  }
  // A query of stop words alone ("who is will") searches them as the names they may be.
  if (out.length === 0 && names) {
    for (const t of tokens) {
      if (t.length < 2 || !STOP_WORDS.has(t) || out.includes(t)) continue;
      out.push(t);
      if (out.length >= MAX_QUERY_TERMS) break;
    }
  }
  return out;
}

/** One quoted FTS5 string per term, so no user character is ever read as query syntax. */
export function ftsQuote(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

/** `"a" OR "b" ...` */
export function ftsOr(terms: readonly string[]): string {
  return terms.map(ftsQuote).join(' OR ');
}

/**
 * The OR-ed MATCH expression for a query, or null when no content term is left (empty or all stop
 * words). No stop word is searched as a name: an FTS5 table holds every word, names or not.
 */
export function buildMatch(query: string): { match: string; terms: string[] } | null {
  const terms = queryTerms(query, { names: false });
  if (terms.length === 0) return null;
  return { match: ftsOr(terms), terms };
}
