import { isQueryWord, wordTokens } from './query.js';
import { delimiterTerms, nameTerms } from './word-delimiter.js';
import { scoredText } from './score.js';
import { stemWord } from './stemmer.js';
import { WTF_SCALE } from './posting-walk.js';

/** Per column: the token count and the stems of the words a query can match. */
export function columnTerms(text: string): { length: number; stems: string[] } {
  const scored = scoredText(text);
  const words = wordTokens(scored);
  const stems: string[] = [];
  for (const w of words) if (isQueryWord(w)) stems.push(stemWord(w));
  // The other spellings of identifiers, numbers and symbols (`fetchUserProfile` also as fetch, user,
  // profile; `Node.js` as nodejs), and stop words written as names (word-delimiter.ts): they add
  // terms, not tokens to the length.
  for (const j of delimiterTerms(scored)) stems.push(stemWord(j));
  for (const n of nameTerms(scored)) stems.push(stemWord(n));
  return { length: words.length, stems };
}

/**
 * A question mark, in the scripts that have their own: a context holding one asks something.
 * (The Greek question mark is a semicolon once normalised to NFC, so it cannot be told apart.)
 */
const QUESTION_MARK = /[?\uFF1F\u061F\u055E\u1367\u2E2E]/u;

/** Whether a context text asks something: holds a question mark. */
export function asksSomething(text: string): boolean {
  return QUESTION_MARK.test(text);
}

/**
 * A document's postings: per stem the value its posting keeps (postingValue), its weighted length
 * and each column's token count. Column c weighs `weights[c]`; the first `own` columns are the
 * document's own text, the others its context (an episode's neighbouring thoughts). A term counts
 * as the document's own (its posting's own flag) when an own column holds it, or a context column
 * that asks something: an answer is found through the question it answers, which is often in the
 * thoughts just before it, while a note that merely followed another shares none of its subject.
 */
export function postingTerms(weights: readonly number[], own: number, columns: readonly string[]): { tf: Map<string, number>; len: number; lengths: number[] } {
  const wtf = new Map<string, number>();
  const owned = new Set<string>();
  const lengths: number[] = [];
  let len = 0;
  for (let c = 0; c < weights.length; c++) {
    const { length, stems } = columnTerms(columns[c] ?? '');
    const w = weights[c];
    len += w * length;
    lengths.push(length);
    const counts = c < own || asksSomething(columns[c] ?? '');
    for (const s of stems) {
      wtf.set(s, (wtf.get(s) ?? 0) + w);
      if (counts) owned.add(s);
    }
  }
  const flagged = own < weights.length;
  const tf = new Map<string, number>();
  for (const [s, f] of wtf) tf.set(s, postingValue(f, flagged, owned.has(s)));
  return { tf, len, lengths };
}

/** A weighted term frequency as the postings keep it: times WTF_SCALE, rounded, at least 1. */
export function quantise(wtf: number): number {
  return Math.max(1, Math.round(wtf * WTF_SCALE));
}

/**
 * The value a posting keeps: the quantised frequency; in an index with context columns (`flagged`)
 * that times 2, plus 1 when the term counts as the document's own (postingTerms; see OWN_FLAG in
 * posting-walk.ts).
 */
export function postingValue(wtf: number, flagged: boolean, own: boolean): number {
  const q = quantise(wtf);
  return flagged ? 2 * q + (own ? 1 : 0) : q;
}
