/**
 * Small text helpers shared by the scorers. Everything here is a pure function of
 * its input: no locale-dependent collation, no clock, no randomness.
 */

/** Replaces typographic apostrophes with ASCII ones so patterns like "don't" match. */
export function normalize(text: string): string {
  return text.replace(/[\u2018\u2019\u02BC]/g, "'");
}

/** Lower-cased word tokens (letters, digits and inner apostrophes). */
export function lowerWords(text: string): string[] {
  return normalize(text).toLowerCase().match(/[\p{L}\p{N}]+(?:'[\p{L}]+)*/gu) ?? [];
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
  const out: string[] = [];
  for (const sentence of splitSentences(text)) {
    const tokens = sentence
      .split(/\s+/)
      .map((t) => t.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
      .filter((t) => t.length > 0);
    const shouting = tokens.filter(isAllCaps).length * 2 >= tokens.length;
    for (let i = 1; i < tokens.length; i++) {
      const token = tokens[i];
      if (!/^\p{Lu}[\p{L}\p{N}'-]*$/u.test(token)) continue;
      if (shouting && isAllCaps(token)) continue;
      const lower = token.toLowerCase();
      if (FIRST_PERSON_CAPS.has(lower) || CALENDAR_WORDS.has(lower)) continue;
      out.push(token);
    }
  }
  return out;
}

/** A token of two or more characters with letters, all in capitals ("NASA", "HATE"). */
export function isAllCaps(token: string): boolean {
  return token.length >= 2 && /\p{Lu}/u.test(token) && token === token.toUpperCase();
}

/** Number of patterns in `patterns` that match `text` at least once. */
export function countPatterns(text: string, patterns: readonly RegExp[]): number {
  let n = 0;
  for (const p of patterns) if (p.test(text)) n++;
  return n;
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
