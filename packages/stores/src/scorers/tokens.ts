/**
 * The service's single token estimator. Every token budget (dream summaries,
 * context inject, smart context, recap, wiki digests) goes through this function
 * so that budgets agree with each other.
 */

/** Characters per token assumed by {@link estimateTokens}. */
export const CHARS_PER_TOKEN = 4;

/**
 * Estimates tokens as `Math.ceil(chars / 4)`, where chars is the string length in
 * UTF-16 code units. This approximates BPE token counts for English prose; it
 * under-counts dense code and non-Latin scripts. The empty string costs 0 tokens.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}
