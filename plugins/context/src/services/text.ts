import { cutChars, overChars } from '@memory-service/kernel';

/** Longest excerpt of one memory in a context listing (characters). */
export const ITEM_CHARS = 240;

/** A compact single-line excerpt of at most `max` characters (code points). */
export function excerpt(text: string, max = ITEM_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return overChars(flat, max) ? `${cutChars(flat, max - 1)}…` : flat;
}
