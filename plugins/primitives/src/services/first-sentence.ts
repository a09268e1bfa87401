/**
 * The first sentence of a text, as project's decision takes it: the decision is the first
 * sentence and its rationale the rest. A sentence ends at `.`, `!` or `?` followed by white space
 * (or the end), or at `。`, `！` or `？`, on the text's first line; a text whose first line has no
 * such end is one sentence.
 * A `.` after a common abbreviation ("Dr.", "e.g.", "vs.", "etc."), after a single capital letter
 * (an initial: "J. R. R. Tolkien") or after letters joined by dots ("U.S.", "a.m.") ends nothing.
 * The rules read only the text, so the same text is always cut in the same place.
 */

/** Abbreviations (lower case, without their final dot) after which a `.` does not end a sentence. */
export const ABBREVIATIONS: ReadonlySet<string> = new Set([
  // Titles and forms of address.
  'mr', 'mrs', 'ms', 'mx', 'dr', 'prof', 'sr', 'jr', 'st', 'rev', 'hon', 'gov', 'sen', 'rep', 'gen', 'col', 'lt', 'sgt', 'capt', 'cmdr', 'adm', 'pres', 'messrs', 'mme', 'mlle',
  // Latin and common short forms.
  'e.g', 'i.e', 'etc', 'vs', 'cf', 'al', 'viz', 'ca', 'approx', 'esp', 'incl', 'excl', 'resp', 'ibid', 'op', 'et',
  // Organisations, references and units written with a dot.
  'inc', 'ltd', 'co', 'corp', 'dept', 'univ', 'assn', 'bros', 'fig', 'figs', 'vol', 'vols', 'eq', 'eqs', 'ch', 'sec', 'pp', 'nr', 'ed', 'eds', 'ref', 'refs', 'ver', 'ft', 'mt', 'ave', 'blvd',
  // Months that are abbreviated (words such as "may" or "mar" are left out: they end sentences).
  'jan', 'feb', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec',
]);

/** A single capital letter: an initial. */
const INITIAL = /^\p{Lu}$/u;
/** Letters joined by dots ("U.S", "a.m", "e.g", "Ph.D" is not one): an abbreviation written with dots. */
const DOTTED = /^(?:\p{L}\.)+\p{L}$/u;
/** What a word may start with before its letters: opening quotes and brackets. */
const OPENING = /^[^\p{L}\p{N}]+/u;
const SPACE = /\s/;
/**
 * A sentence end: `.`, `!` or `?` followed by white space or the end of the line; or an ideographic
 * full stop or a full-width `!` or `?` (Chinese and Japanese put no space after them), with the
 * closing brackets and quotes right after it (「…。」).
 */
const END = /[.!?](?=\s|$)|[\u3002\uff61\uff01\uff1f][\p{Pe}\p{Pf}]*/gu;

/** Whether the word just before a `.` (without it) makes that dot part of an abbreviation. */
export function isAbbreviation(word: string): boolean {
  const w = word.replace(OPENING, '');
  return INITIAL.test(w) || DOTTED.test(w) || ABBREVIATIONS.has(w.toLowerCase());
}

export function firstSentence(text: string): { head: string; rest: string } {
  const t = text.trim();
  const newline = t.indexOf('\n');
  const line = newline === -1 ? t : t.slice(0, newline);
  for (const m of line.matchAll(END)) {
    const at = m.index;
    if (m[0] === '.') {
      let start = at;
      while (start > 0 && !SPACE.test(line[start - 1]!)) start--;
      if (isAbbreviation(line.slice(start, at))) continue;
    }
    const end = at + m[0].length;
    return { head: t.slice(0, end).trim(), rest: t.slice(end).trim() };
  }
  return { head: t, rest: '' };
}
