/**
 * Scripts written without spaces between words: Chinese (Han), Japanese (Han, Hiragana,
 * Katakana, and the prolonged sound and repeat marks they share), Thai, Lao, Khmer and Myanmar.
 * No word boundary can be told there: forget's whole-word match asks for none (util.ts
 * wordsMatcher), and retrieval cuts their runs into overlapping two-character terms
 * (retrieval/query.ts wordTokens). Hangul is not among them: Korean puts spaces between words.
 * A character class, for building regular expressions with the `u` flag.
 */
export const UNSPACED = String.raw`[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}\u3006\u3031-\u3035\u30fc]`;

/**
 * A regular expression compiled on its first use: a class of Unicode scripts takes a millisecond
 * or more to compile, which every start would pay for patterns most texts never reach.
 */
export function lazyRegExp(source: () => string, flags: string): () => RegExp {
  let re: RegExp | undefined;
  return () => (re ??= new RegExp(source(), flags));
}

const HAS_UNSPACED = lazyRegExp(() => UNSPACED, 'u');

/** Whether a text holds any character of a script written without spaces. */
export function hasUnspaced(text: string): boolean {
  return HAS_UNSPACED().test(text);
}
