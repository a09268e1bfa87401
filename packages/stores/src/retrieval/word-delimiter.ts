/**
 * The extra terms of a text, beside its word tokens (query.ts wordTokens), in the manner of
 * Lucene's WordDelimiterGraphFilter with preserveOriginal and catenate: the same identifier,
 * number or name written another way gets the other spellings as terms, on the index side and on
 * the query side alike. They are terms, not tokens: a document's length (BM25's normalisation) is
 * its tokens only. Each rule is one function below; `delimiterTerms` gives them together.
 *
 * 1. Splits (`caseDigitPieces`): a run of letters and digits is cut where a lower-case letter meets
 *    an upper-case one (`fetchUserProfile`), before the last capital of a capital run followed by
 *    two lower-case letters (`HTTPClient`), and where letters meet digits (`250ms`, `LH456`,
 *    `GPT4`). A case cut needs two characters on each side; a letter-digit cut needs two letters on
 *    the letter side and must be the run's only letter-digit change: `k8s`, `i18n`, `b2b`, `a1`,
 *    `iOS`, `URLs`, ids and hashes stay whole; but a version's `v` comes off its number (`v14`).
 * 2. Joins (`delimiterJoins`): 2 to 4 runs of letters and digits separated by single `_`, `.` or
 *    `-` are also one term (`fetch_user_profile`, `Node.js`, `GPT-4`), and a run of letter words
 *    joined by hyphens alone at any length (`state-of-the-art`, as before); never when a separator
 *    has a digit on both sides (`1.2.3`, `2026-03-07`, `x86_64` stay apart).
 * 3. Numbers: a digit run with leading zeros also without them (`03` gives `3`; `0` and `000` stay),
 *    and a number grouped by thousands with `,`, `_`, an apostrophe or a thin or no-break space
 *    (`12,400`, `1_000_000`, `12'400`) also joined (`12400`); a dot or a plain space is not
 *    taken as grouping (`12.400` and `12 400` may be a decimal and two numbers).
 * 4. Symbols: each emoji (`\p{Extended_Pictographic}` with its modifiers, keycap and ZWJ sequence,
 *    variation selectors dropped) is a term, and 1 to 3 letters ending a word with `++` or `#`
 *    (`C++`, `C#`, `F#`).
 * 5. German (`umlautSpellings`): a word with ä, ö or ü also in its ae, oe, ue spelling, the usual
 *    keyboard spelling, in documents and queries alike (`Kündigungsfrist` is found by
 *    `Kuendigungsfrist`, and `Kuendigungsfrist` by `Kündigungsfrist`).
 *
 * `nameTerms` gives the stop words written as names (`Will`, `US`, `IT`, `WHO`), indexed and
 * searched as terms, where every other stop word is neither.
 */

import { hasUnspaced, lazyRegExp, UNSPACED } from '../scripts.js';
import { foldText, isQueryWord, MAX_WORD_CHARS, OPTIONAL_MARKS, STOP_WORDS } from './query.js';

// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/;
/**
 * ASCII text holding nothing a rule reads (a case change, a letter next to a digit, a separator
 * between two runs, a zero before a digit, a digit group, `+` or `#`) gives no term: most prose,
 * one test.
 */
const ASCII_HINT = /[a-z][A-Z]|[A-Z]{2}[a-z]|[A-Za-z][0-9]|[0-9][A-Za-z]|[A-Za-z0-9][._-][A-Za-z0-9]|(?<![A-Za-z0-9])0[0-9]|[0-9][,_'][0-9]{3}|\+\+|#/;
/** A chain of two runs or more: runs of letters and digits separated by single `_`, `.` or `-`. */
const ASCII_CHAIN = /[A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)+/g;
/**
 * A place in ASCII text where a chain rule 1, 2 or 3 reads begins or goes on: a case or letter-digit
 * change, a separator between two runs, a digit run's leading zero (asciiChains).
 */
const ASCII_READ_AT = /[a-z][A-Z]|[A-Z]{2}[a-z]|[A-Za-z][0-9]|[0-9][A-Za-z]|[A-Za-z0-9][._-][A-Za-z0-9]|(?<![A-Za-z0-9])0[0-9]/g;

function isAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}

function isSeparator(c: number): boolean {
  return c === 46 || c === 95 || c === 45;
}

/**
 * The chains of ASCII text a rule can read, whole (as ASCII_CHAIN would cut them): each place
 * ASCII_READ_AT finds, widened to its chain over letters, digits and single separators. Other
 * words are never cut out of the text, one search over it finds the few that are.
 */
function asciiChains(s: string): string[] {
  const out: string[] = [];
  const re = ASCII_READ_AT;
  re.lastIndex = 0;
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    let a = m.index;
    let b = m.index;
    while (a > 0) {
      const c = s.charCodeAt(a - 1);
      if (isAlnum(c) || (isSeparator(c) && a >= 2 && isAlnum(s.charCodeAt(a - 2)))) a--;
      else break;
    }
    while (b < s.length) {
      const c = s.charCodeAt(b);
      if (isAlnum(c) || (isSeparator(c) && b + 1 < s.length && isAlnum(s.charCodeAt(b + 1)))) b++;
      else break;
    }
    out.push(s.slice(a, b));
    re.lastIndex = b;
  }
  return out;
}
const SPACED_RUN = '[\\p{L}\\p{N}][\\p{L}\\p{N}\\p{M}]*';
const CHAIN = new RegExp(`${SPACED_RUN}(?:[._-]${SPACED_RUN})+`, 'gu');
/** Any chain beyond ASCII, of one run or more. */
const ANY_CHAIN = new RegExp(`${SPACED_RUN}(?:[._-]${SPACED_RUN})*`, 'gu');
/** A chain beyond ASCII a rule can read: a case change (marks between), a letter next to a digit, a separator, a leading zero. */
const READ_BEYOND_ASCII = /\p{Ll}\p{M}*\p{Lu}|\p{Lu}\p{M}*\p{Lu}\p{M}*\p{Ll}|\p{L}\p{M}*\p{N}|\p{N}\p{L}|[._-]|^0/u;
/** A chain in text holding a script written without spaces: its runs leave that script out (it is cut into bigrams). */
const MIXED_CHAIN = lazyRegExp(() => {
  const alnum = `(?:(?!${UNSPACED})[\\p{L}\\p{N}])`;
  const run = `${alnum}(?:${alnum}|\\p{M})*`;
  return `${run}(?:[._-]${run})*`;
}, 'gu');
/** A piece of text between white space that holds a character beyond ASCII. */
// eslint-disable-next-line no-control-regex
const WIDE_PIECE = /\S*[^\x00-\x7f]\S*/g;
const SEPARATOR = /[._-]/;
const SEPARATOR_RUN = /[._-]/g;
/** A number grouped by thousands with one separator throughout (rule 3). */
const GROUPED = /(?<![\d.,_'’\u00a0\u202f\u2009])\d{1,3}([,_'’\u00a0\u202f\u2009])\d{3}(?:\1\d{3})*(?!\d|\1\d)/gu;
const GROUPED_HINT = /\d[,_'’\u00a0\u202f\u2009]\d{3}/u;
/** An emoji with its skin-tone modifiers, variation selector or keycap, and the rest of its ZWJ sequence (rule 4). */
const EMOJI = /\p{Extended_Pictographic}(?:\p{EMod}|\ufe0f|\u20e3)*(?:\u200d\p{Extended_Pictographic}(?:\p{EMod}|\ufe0f)*)*/gu;
const EMOJI_START = /^\p{Extended_Pictographic}/u;
/** A language name of 1 to 3 letters ending a word with `++` or `#` (rule 4). */
const SYMBOL_NAME = /(?<![\p{L}\p{N}\p{M}_])[A-Za-z]{1,3}(?:\+\+|#)(?![\p{L}\p{N}_+#])/gu;
/** Words holding ä, ö or ü (NFC), upper or lower case (rule 5). */
const UMLAUT_WORD = /[\p{L}\p{N}]*[äöüÄÖÜ][\p{L}\p{N}\p{M}]*/gu;
const UMLAUTS: Readonly<Record<string, string>> = { ä: 'ae', ö: 'oe', ü: 'ue', Ä: 'Ae', Ö: 'Oe', Ü: 'Ue' };

/** Whether a term of these rules can be searched: a query word (query.ts isQueryWord) or an emoji. */
function isTerm(t: string): boolean {
  return t.length <= MAX_WORD_CHARS && (isQueryWord(t) || EMOJI_START.test(t));
}

/**
 * The extra terms of a text (rules 1 to 5 above), folded and lower-cased as wordTokens gives
 * words, each once, in the order found; only terms a query can match. The same for a document and
 * a query.
 */
export function delimiterTerms(text: string): string[] {
  const s = String(text);
  const out: string[] = [];
  const add = (t: string): void => {
    if (isTerm(t) && !out.includes(t)) out.push(t);
  };
  const ascii = ASCII.test(s);
  if (ascii && !ASCII_HINT.test(s)) return out;
  // No chain crosses white space: in text beyond ASCII, its pieces of ASCII alone are read as ASCII
  // text is (no Unicode class to test at each character), the others as Unicode text.
  const wide = ascii ? '' : (s.match(WIDE_PIECE) ?? []).join(' ');
  const narrow = ascii ? s : s.replace(WIDE_PIECE, ' ');
  if (ascii || ASCII_HINT.test(narrow)) readChains(asciiChains(narrow), true, add);
  if (wide !== '') {
    // Letters keep their case (the splits read it); accents and format characters go as foldText drops them.
    const cased = wide.normalize('NFKD').replace(OPTIONAL_MARKS, '');
    const chains = cased.match(hasUnspaced(cased) ? MIXED_CHAIN() : ANY_CHAIN) ?? [];
    readChains(
      chains.filter((c) => READ_BEYOND_ASCII.test(c)),
      false,
      add,
    );
    for (const m of wide.matchAll(EMOJI)) add(m[0].replace(/\ufe0f/g, ''));
    for (const u of umlautSpellings(wide)) add(u);
  }
  if (GROUPED_HINT.test(s)) for (const m of s.matchAll(GROUPED)) add(ungrouped(m[0]));
  if (s.includes('+') || s.includes('#')) for (const m of s.matchAll(SYMBOL_NAME)) add(m[0].toLowerCase());
  return out;
}

/** The terms of rules 1 to 3 (splits, joins, unpadded numbers) of a text's chains, given to `add`. */
function readChains(chains: readonly string[] | null, ascii: boolean, add: (t: string) => void): void {
  for (const chain of chains ?? []) {
    const runs = chain.split(SEPARATOR_RUN);
    for (const run of runs) {
      const pieces = caseDigitPieces(run);
      if (pieces.length > 1) for (const p of pieces) add(fold(p, ascii));
      const unpadded = withoutLeadingZeros(run);
      if (unpadded !== null) add(unpadded);
    }
    const joined = joinChain(chain, runs);
    if (joined !== null) add(fold(joined, ascii));
  }
}

function fold(t: string, ascii: boolean): string {
  return ascii ? t.toLowerCase() : foldText(t);
}

/**
 * The joins of a text's chains (rule 2: `fetch_user_profile` -> `fetchuserprofile`, `Node.js` ->
 * `nodejs`, `e-mail` -> `email`), folded, each once: forget's word match (util.ts) writes a text
 * with them joined, so that what dream finds for a word, fuzzy forget with it deletes.
 */
export function delimiterJoins(text: string): string[] {
  const s = String(text);
  if (!SEPARATOR.test(s)) return [];
  const ascii = ASCII.test(s);
  const cased = ascii ? s : s.normalize('NFKD').replace(OPTIONAL_MARKS, '');
  const chains = ascii ? cased.match(ASCII_CHAIN) : cased.match(hasUnspaced(cased) ? MIXED_CHAIN() : CHAIN);
  const out: string[] = [];
  for (const chain of chains ?? []) {
    const joined = joinChain(chain, chain.split(SEPARATOR_RUN));
    if (joined === null) continue;
    const f = fold(joined, ascii);
    if (f.length <= MAX_WORD_CHARS && !out.includes(f)) out.push(f);
  }
  return out;
}

/** A number grouped by thousands (GROUPED) written without its separators (`12,400` -> `12400`). */
function ungrouped(number: string): string {
  return number.replace(/\D/g, '');
}

/**
 * A text with each number grouped by thousands written joined (rule 3: `$12,400` as `$12400`,
 * `1_000_000` as `1000000`; `12.400` and `12 400` stay), not folded; the text itself when it has
 * none. forget's word match (util.ts) tests a text and a pattern in this form too, so what dream
 * finds for a number, fuzzy forget with it deletes.
 */
export function groupedJoined(text: string): string {
  const s = String(text);
  return GROUPED_HINT.test(s) ? s.replace(GROUPED, ungrouped) : s;
}

/** Whether the character at `i` of a run is a digit (an ASCII one, or any \p{N}; a mark is none). */
function isDigitAt(run: string, i: number): boolean {
  const c = run.charCodeAt(i);
  if (c < 128) return c >= 48 && c <= 57;
  return /\p{N}/u.test(run[i]!);
}
const LETTERS_ONLY = /^[\p{L}\p{M}]+$/u;

/**
 * A chain's runs written together (rule 2), or null: 2 to 4 runs, or any number of letter words
 * joined by hyphens alone; never when a separator stands between two digits (a version, a date).
 */
function joinChain(chain: string, runs: readonly string[]): string | null {
  if (runs.length < 2) return null;
  for (let i = 1; i < runs.length; i++) if (isDigitAt(runs[i - 1]!, runs[i - 1]!.length - 1) && isDigitAt(runs[i]!, 0)) return null;
  if (runs.length > 4 && !(!/[._]/.test(chain) && runs.every((r) => LETTERS_ONLY.test(r)))) return null;
  return runs.join('');
}

/** A run of digits with leading zeros written without them (`03` -> `3`, `007` -> `7`; zeros alone stay), else null (rule 3). */
function withoutLeadingZeros(run: string): string | null {
  if (run.length < 2 || run.charCodeAt(0) !== 48 || !/^\d+$/.test(run) || /^0+$/.test(run)) return null;
  return run.replace(/^0+/, '');
}

const VERSION = /^[vV]\d+$/;
/** An ASCII run with a case or letter-digit change: the others have no cut. */
const ASCII_CHANGE = /[a-z][A-Z]|[A-Z]{2}[a-z]|[A-Za-z][0-9]|[0-9][A-Za-z]/;

const DIGIT = /^\p{N}/u;

const enum Kind {
  Upper,
  Lower,
  /** A letter without case (or a title-case one). */
  Other,
  Digit,
}

function kindOf(ch: string): Kind {
  const c = ch.charCodeAt(0);
  if (c < 128) {
    if (c >= 48 && c <= 57) return Kind.Digit;
    if (c >= 65 && c <= 90) return Kind.Upper;
    return Kind.Lower;
  }
  if (DIGIT.test(ch)) return Kind.Digit;
  // The letter without the marks after it.
  const base = String.fromCodePoint(ch.codePointAt(0)!);
  if (base.toLowerCase() !== base) return Kind.Upper;
  if (base.toUpperCase() !== base) return Kind.Lower;
  return Kind.Other;
}

/**
 * A run of letters and digits (original case) cut at case and letter-digit changes (rule 1), or
 * the run alone when no cut is allowed. Segments first: a change from lower to upper case, the
 * last capital of a capital run that two lower-case letters follow, a change between letters and
 * digits. A case cut is kept when both segments beside it have at least two characters; a
 * letter-digit cut when the letters on its side have at least two and it is the run's only
 * letter-digit change (an id or hash such as `w12ab` or `a5f3c9` stays whole). Marks stay with the
 * character before them. A `v` and digits alone (a version: `v14`) is cut after the `v`.
 */
export function caseDigitPieces(run: string): string[] {
  if (run.length < 3) return [run];
  // A version's `v` before its number (`v14` of v14.9.2) lets the number be found alone.
  if (VERSION.test(run)) return [run[0]!, run.slice(1)];
  const ascii = ASCII.test(run);
  if (ascii && !ASCII_CHANGE.test(run)) return [run];
  const chars = ascii ? run.split('') : (run.match(/\P{M}\p{M}*/gu) ?? []);
  if (chars.length < 3) return [run];
  const kinds = chars.map((c) => kindOf(c));
  // Segment starts, and whether each start is a letter-digit change.
  const starts: number[] = [0];
  const digitChange: boolean[] = [false];
  let changes = 0;
  for (let i = 1; i < kinds.length; i++) {
    const a = kinds[i - 1]!;
    const b = kinds[i]!;
    if ((a === Kind.Digit) !== (b === Kind.Digit)) {
      starts.push(i);
      digitChange.push(true);
      changes++;
    } else if (a === Kind.Lower && b === Kind.Upper) {
      starts.push(i);
      digitChange.push(false);
    } else if (a === Kind.Upper && b === Kind.Upper && kinds[i + 1] === Kind.Lower && kinds[i + 2] === Kind.Lower) {
      starts.push(i);
      digitChange.push(false);
    }
  }
  if (starts.length === 1) return [run];
  const segLength = (k: number): number => (k + 1 < starts.length ? starts[k + 1]! : chars.length) - starts[k]!;
  const cuts: number[] = [];
  for (let k = 1; k < starts.length; k++) {
    const before = segLength(k - 1);
    const after = segLength(k);
    if (digitChange[k]) {
      // With one letter-digit change, the letters are all of the run on their side (`mAh`).
      const letters = kinds[starts[k]!] === Kind.Digit ? starts[k]! : chars.length - starts[k]!;
      if (changes === 1 && letters >= 2) cuts.push(starts[k]!);
    } else if (before >= 2 && after >= 2) {
      cuts.push(starts[k]!);
    }
  }
  if (cuts.length === 0) return [run];
  const pieces: string[] = [];
  let from = 0;
  for (const c of [...cuts, chars.length]) {
    pieces.push(chars.slice(from, c).join(''));
    from = c;
  }
  return pieces;
}

const RUN = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;

/**
 * A text with its runs written apart as the split terms read them (rule 1: `fetchUserProfile` as
 * `fetch User Profile`, `250ms` as `250 ms`), digit runs without leading zeros (rule 3), and with
 * `umlauts`, ä, ö, ü spelled ae, oe, ue (rule 5); not folded. forget's word match (util.ts) tests
 * a text and a pattern in this form too, so what dream finds for a word, fuzzy forget with it
 * deletes. The text itself when nothing changes.
 */
export function spelledApart(text: string, umlauts: boolean): string {
  const s = String(text);
  if (ASCII.test(s) && !/[a-z][A-Z]|[A-Z]{2}[a-z]|[A-Za-z][0-9]|[0-9][A-Za-z]|(?<![A-Za-z0-9])0[0-9]/.test(s)) return s;
  const cased = ASCII.test(s) ? s : s.normalize('NFC');
  const apart = cased.replace(RUN, (run) => {
    const unpadded = withoutLeadingZeros(run);
    if (unpadded !== null) return unpadded;
    const pieces = caseDigitPieces(run);
    return pieces.length > 1 ? pieces.join(' ') : run;
  });
  return umlauts ? apart.replace(/[äöüÄÖÜ]/g, (c) => UMLAUTS[c]!) : apart;
}

/** A text's words holding ä, ö or ü, spelled with ae, oe, ue and folded (rule 5). */
export function umlautSpellings(text: string): string[] {
  // Precomposed, or a vowel with the combining diaeresis (U+0308) NFC composes.
  if (!/[äöüÄÖÜ]|\u0308/.test(text)) return [];
  const out: string[] = [];
  for (const m of text.normalize('NFC').matchAll(UMLAUT_WORD)) {
    const t = foldText(m[0].replace(/[äöüÄÖÜ]/g, (c) => UMLAUTS[c]!));
    if (!out.includes(t)) out.push(t);
  }
  return out;
}

/**
 * Stop words that are also given names, taken as names even at a sentence's start ("Will is the
 * new product manager"), where any other capitalised stop word is an ordinary one ("It is late").
 */
const GIVEN_NAMES: ReadonlySet<string> = new Set(['will', 'don']);
/** Stop words that search syntax writes in capitals as operators (`cats OR dogs`), not names. */
const OPERATORS: ReadonlySet<string> = new Set(['and', 'or', 'not']);
/** A capitalised or all-capital word of ASCII letters, whole (in ASCII text, and in any text). */
const ASCII_CAPITALISED = /(?<![A-Za-z0-9])[A-Z][A-Za-z]+(?![A-Za-z0-9])/g;
const CAPITALISED = /(?<![\p{L}\p{N}\p{M}])[A-Z][A-Za-z]+(?![\p{L}\p{N}\p{M}])/gu;

/**
 * The stop words of a text written as names, lower-cased, each once: in capitals of at least two
 * letters (`US`, `IT`, `WHO`; not the operators AND, OR, NOT), or capitalised and not at a sentence's start (`with Will`), or at
 * one for the stop words that are also given names (GIVEN_NAMES); never a contraction's head
 * (`Don't`). A sentence starts the text, a line, or follows `.`, `!`, `?`, `…` or `:` (quotes,
 * brackets and list marks between are skipped).
 */
export function nameTerms(text: string): string[] {
  const s = String(text);
  const out: string[] = [];
  for (const m of s.matchAll(ASCII.test(s) ? ASCII_CAPITALISED : CAPITALISED)) {
    const w = m[0];
    if (w.length > 10) continue;
    const lower = w.toLowerCase();
    if (!STOP_WORDS.has(lower) || out.includes(lower)) continue;
    const end = m.index + w.length;
    if (/^['’]t(?![\p{L}\p{N}])/u.test(s.slice(end, end + 3))) continue;
    const capitals = w === w.toUpperCase();
    if (capitals && OPERATORS.has(lower)) continue;
    if (capitals || GIVEN_NAMES.has(lower) || !atSentenceStart(s, m.index)) out.push(lower);
  }
  return out;
}

function atSentenceStart(s: string, at: number): boolean {
  for (let i = at - 1; i >= 0; i--) {
    const c = s[i]!;
    if (c === '\n' || c === '.' || c === '!' || c === '?' || c === '…' || c === ':') return true;
    if (!/[\s"'“”‘’«»()[\]*•-]/.test(c)) return false;
  }
  return true;
}
