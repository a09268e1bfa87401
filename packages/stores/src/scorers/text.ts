/**
 * Small text helpers shared by the scorers. Everything here is a pure function of
 * its input: no locale-dependent collation, no clock, no randomness.
 *
 * Patterns with Unicode property classes (\p{L}, \p{Lu}) compile to large matchers, and on a
 * request that follows idle time their code is out of the CPU's caches. Most texts are plain
 * ASCII, so each such pattern has an ASCII twin that gives the same result on an ASCII string
 * (\p{L} holds exactly A-Z and a-z of ASCII, \p{N} exactly 0-9, \p{Lu} exactly A-Z); a helper
 * uses the twin when the string it matches is ASCII (text.test.ts checks the pairs agree).
 */

const ASCII_ONLY = /^[^\u0080-\uffff]*$/;

/** Whether every character of the text is ASCII (the twins of TWIN_PATTERNS then apply). */
export function isAscii(text: string): boolean {
  return ASCII_ONLY.test(text);
}

/** Each Unicode pattern of the scorers with its ASCII twin: [unicode, ascii]. */
export const TWIN_PATTERNS = {
  /** A word: letters and digits, with inner apostrophes ("don't"). */
  word: [/[\p{L}\p{N}]+(?:'[\p{L}]+)*/gu, /[A-Za-z0-9]+(?:'[A-Za-z]+)*/g],
  /** A capitalised token. */
  capitalised: [/^\p{Lu}[\p{L}\p{N}'-]*$/u, /^[A-Z][A-Za-z0-9'-]*$/],
} as const;

/** Some capital letter (isAllCaps reads ASCII tokens by their character codes instead). */
const UPPER = /\p{Lu}/u;

/** The pattern of a pair for this string: the ASCII twin when the string is ASCII. */
function twin(pair: readonly [RegExp, RegExp], text: string): RegExp {
  return isAscii(text) ? pair[1] : pair[0];
}

/** Replaces typographic apostrophes with ASCII ones so patterns like "don't" match. */
export function normalize(text: string): string {
  return text.replace(/[\u2018\u2019\u02BC]/g, "'");
}

/** Word tokens (letters, digits and inner apostrophes) of a text, as written. */
export function wordsOf(text: string): string[] {
  return text.match(twin(TWIN_PATTERNS.word, text)) ?? [];
}

/** Sentences split after `.`, `!`, `?`, `:` or `;` followed by whitespace, and at line breaks. */
export function splitSentences(text: string): string[] {
  return normalize(text)
    .split(/(?<=[.!?:;])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Weekday and month names (singular and plural); treated as dates, not as named entities. */
export const CALENDAR_WORDS: ReadonlySet<string> = new Set([
  'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday',
  'mondays', 'tuesdays', 'wednesdays', 'thursdays', 'fridays', 'saturdays', 'sundays',
  'january', 'february', 'march', 'april', 'may', 'june', 'july', 'august',
  'september', 'october', 'november', 'december',
]);

const FIRST_PERSON_CAPS: ReadonlySet<string> = new Set(['i', "i'm", "i've", "i'll", "i'd"]);

/**
 * Named-entity candidates: capitalised tokens (or acronyms) that are not the first
 * word of a sentence, not the pronoun "I" and not a weekday or month name. In a
 * sentence where at least half the tokens are in capitals (shouting), all-capital
 * tokens are not counted as acronyms.
 */
export function namedEntities(text: string): string[] {
  return isAscii(text) ? asciiEntities(text) : unicodeEntities(text);
}

/** What namedEntities strips from both ends of a token (asciiEntities does it by character codes). */
const TOKEN_EDGE = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;

/** namedEntities of any text: sentences from splitSentences, tokens split on white space and stripped. */
export function unicodeEntities(text: string): string[] {
  const out: string[] = [];
  for (const sentence of splitSentences(text)) {
    const tokens = sentence
      .split(/\s+/)
      .map((t) => t.replace(TOKEN_EDGE, ''))
      .filter((t) => t.length > 0);
    sentenceEntities(tokens, TWIN_PATTERNS.capitalised[0], out);
  }
  return out;
}

/**
 * namedEntities of an ASCII text in one scan of its characters, without the intermediate arrays
 * and strings of splitting (the same result, checked in text.test.ts). splitSentences cuts at a
 * run of white space that holds a line break or follows one of . ! ? : ; and a sentence's tokens
 * are its other runs of non-space characters, so a sentence ends exactly at such a run.
 */
export function asciiEntities(text: string): string[] {
  const out: string[] = [];
  let tokens: string[] = [];
  let last = 0;
  let i = 0;
  while (i < text.length) {
    let c = text.charCodeAt(i);
    if (isAsciiSpace(c)) {
      let lineBreak = false;
      while (i < text.length && isAsciiSpace((c = text.charCodeAt(i)))) {
        if (c === 0x0a) lineBreak = true;
        i++;
      }
      if (tokens.length > 0 && (lineBreak || isSentenceEnd(last))) {
        sentenceEntities(tokens, TWIN_PATTERNS.capitalised[1], out);
        tokens = [];
      }
      continue;
    }
    const from = i;
    while (i < text.length && !isAsciiSpace(text.charCodeAt(i))) i++;
    last = text.charCodeAt(i - 1);
    // Strip what is not a letter or digit from both ends.
    let a = from;
    let b = i;
    while (a < b && !isAsciiAlnum(text.charCodeAt(a))) a++;
    while (b > a && !isAsciiAlnum(text.charCodeAt(b - 1))) b--;
    if (b > a) tokens.push(text.slice(a, b));
  }
  if (tokens.length > 0) sentenceEntities(tokens, TWIN_PATTERNS.capitalised[1], out);
  return out;
}

/** \s of a regular expression, within ASCII: tab, line feed, vertical tab, form feed, carriage return, space. */
function isAsciiSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

function isAsciiAlnum(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/** . ! ? : ; (what splitSentences cuts after). */
function isSentenceEnd(c: number): boolean {
  return c === 0x2e || c === 0x21 || c === 0x3f || c === 0x3a || c === 0x3b;
}

/** The entities of one sentence's stripped, non-empty tokens, pushed to out. */
function sentenceEntities(tokens: readonly string[], capitalised: RegExp, out: string[]): void {
  let caps = 0;
  for (const t of tokens) if (isAllCaps(t)) caps++;
  const shouting = caps * 2 >= tokens.length;
  for (let i = 1; i < tokens.length; i++) {
    const token = tokens[i];
    // Most tokens start with an ASCII character other than A-Z, which neither pattern takes as a
    // capital: they are passed over without running the pattern.
    const first = token.charCodeAt(0);
    if (first < 0x80 && (first < 0x41 || first > 0x5a)) continue;
    if (!capitalised.test(token)) continue;
    if (shouting && isAllCaps(token)) continue;
    const lower = token.toLowerCase();
    if (FIRST_PERSON_CAPS.has(lower) || CALENDAR_WORDS.has(lower)) continue;
    out.push(token);
  }
}

/** A token of two or more characters with letters, all in capitals ("NASA", "HATE"). */
export function isAllCaps(token: string): boolean {
  if (token.length < 2) return false;
  // An ASCII token, by its character codes (it is called on every word of a text): some A-Z and,
  // since toUpperCase changes only a-z there, no a-z. Any other token takes the Unicode pattern.
  let upper = false;
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (c > 0x7f) return UPPER.test(token) && token === token.toUpperCase();
    if (c >= 0x61 && c <= 0x7a) return false;
    if (c >= 0x41 && c <= 0x5a) upper = true;
  }
  return upper;
}

/** One pattern that matches where any of the patterns matches (none may have flags): `some` in one pass. */
export function anyOf(patterns: readonly RegExp[]): RegExp {
  return new RegExp(patterns.map((p) => `(?:${p.source})`).join('|'));
}

/** Clamps to [0, 1]; NaN becomes 0. */
export function clamp01(x: number): number {
  if (Number.isNaN(x)) return 0;
  return Math.min(1, Math.max(0, x));
}

/** Rounds to 3 decimals so stored scores are stable and readable. */
export function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
