/**
 * Query and document text to terms. Text is lower-cased, folded to ASCII where possible and split
 * into word tokens the way SQLite's unicode61 tokenizer splits it; English stop words and
 * one-character tokens are dropped from queries (and from the retrieval index's postings). For
 * plugins that keep FTS5 tables of their own, buildMatch turns a query into a MATCH expression in
 * which every term is quoted, so user punctuation (quotes, `*`, `AND(`, `NEAR`, `:`) can never
 * break the FTS syntax.
 */

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
/** Lower-cased word tokens with diacritics removed, in order (stop words kept), split like unicode61. */
export function wordTokens(text: string): string[] {
  const s = String(text);
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(s)) return s.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return (
    s
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/**
 * The joined forms of a text's hyphenated words (`de-stress` -> `destress`, `e-mail` -> `email`,
 * `check-in` -> `checkin`), lower-cased and folded as wordTokens folds: one text writes the
 * compound with a hyphen, another without, and each side also gets the other's spelling. Only
 * runs of letters joined by single hyphens count (not numbers: `2023-05-01` is a date).
 */
export function hyphenJoins(text: string): string[] {
  const s = String(text);
  if (s.indexOf('-') < 0) return [];
  // eslint-disable-next-line no-control-regex
  const ascii = /^[\x00-\x7f]*$/.test(s);
  const folded = ascii ? s.toLowerCase() : s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
  const runs = ascii ? folded.match(/(?<![a-z0-9-])[a-z]+(?:-[a-z]+)+(?![a-z0-9])/g) : folded.match(/(?<![\p{L}\p{N}-])\p{L}+(?:-\p{L}+)+(?![\p{L}\p{N}])/gu);
  if (!runs) return [];
  const out: string[] = [];
  for (const r of runs) {
    const joined = r.replace(/-/g, '');
    if (joined.length <= 64 && !out.includes(joined)) out.push(joined);
  }
  return out;
}

/** Whether a lower-cased word can be a query term: no stop word, two to 64 characters (one if a digit). */
export function isQueryWord(w: string): boolean {
  return !STOP_WORDS.has(w) && w.length <= 64 && (w.length >= 2 || /\d/.test(w));
}

/**
 * Nouns that, between an interrogative and "of" ("what kind of music", "which types of food"),
 * only ask for a category: the noun after "of" is what the question is about.
 */
const CATEGORY_NOUNS: ReadonlySet<string> = new Set(['kind', 'kinds', 'type', 'types', 'sort', 'sorts']);
const INTERROGATIVES: ReadonlySet<string> = new Set(['what', 'which']);

/** The content terms of a query: stop words and one-letter tokens dropped, duplicates removed, order kept. */
export function queryTerms(query: string): string[] {
  const out: string[] = [];
  const tokens = wordTokens(query);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (!isQueryWord(t)) continue;
    if (CATEGORY_NOUNS.has(t) && tokens[i + 1] === 'of' && INTERROGATIVES.has(tokens[i - 1] ?? '')) continue;
    if (!out.includes(t)) out.push(t);
    if (out.length >= MAX_QUERY_TERMS) return out;
  }
  for (const j of hyphenJoins(query)) {
    if (!isQueryWord(j) || out.includes(j)) continue;
    out.push(j);
    if (out.length >= MAX_QUERY_TERMS) break;
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

/** The OR-ed MATCH expression for a query, or null when no content term is left (empty or all stop words). */
export function buildMatch(query: string): { match: string; terms: string[] } | null {
  const terms = queryTerms(query);
  if (terms.length === 0) return null;
  return { match: ftsOr(terms), terms };
}
