import { isQueryWord, wordTokens } from './query.js';
import { delimiterTerms, nameTerms } from './word-delimiter.js';
import { scoredText } from './score.js';
import { porterStem } from './stemmer.js';
import { WTF_SCALE } from './posting-walk.js';

/** Per column: the token count and the stems of the words a query can match. */
export function columnTerms(text: string): { length: number; stems: string[] } {
  const scored = scoredText(text);
  const words = wordTokens(scored);
  const stems: string[] = [];
  for (const w of words) if (isQueryWord(w)) stems.push(porterStem(w));
  // The other spellings of identifiers, numbers and symbols (`fetchUserProfile` also as fetch, user,
  // profile; `Node.js` as nodejs), and stop words written as names (word-delimiter.ts): they add
  // terms, not tokens to the length.
  for (const j of delimiterTerms(scored, true)) stems.push(porterStem(j));
  for (const n of nameTerms(scored)) stems.push(porterStem(n));
  return { length: words.length, stems };
}

/** Weighted term frequencies of a document's columns (column c weighs `weights[c]`), its weighted length and each column's token count. */
export function termFrequencies(weights: readonly number[], columns: readonly string[]): { tf: Map<string, number>; len: number; lengths: number[] } {
  const tf = new Map<string, number>();
  const lengths: number[] = [];
  let len = 0;
  for (let c = 0; c < weights.length; c++) {
    const { length, stems } = columnTerms(columns[c] ?? '');
    const w = weights[c];
    len += w * length;
    lengths.push(length);
    for (const s of stems) tf.set(s, (tf.get(s) ?? 0) + w);
  }
  return { tf, len, lengths };
}

/** A weighted term frequency as the postings keep it: times WTF_SCALE, rounded, at least 1. */
export function quantise(wtf: number): number {
  return Math.max(1, Math.round(wtf * WTF_SCALE));
}
