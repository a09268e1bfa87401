import { cutChars, overChars } from '@memory-service/kernel';
import type { Hit } from '@memory-service/stores';

/** Longest excerpt of one memory in a context listing (characters). */
export const ITEM_CHARS = 240;

/** A compact single-line excerpt of at most `max` characters (code points). */
export function excerpt(text: string, max = ITEM_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return overChars(flat, max) ? `${cutChars(flat, max - 1)}…` : flat;
}

/**
 * A retrieval hit's text after its title (a fact's key, a page's title, a node's type), unless the
 * text already starts with it: an L4 hit's text is `key: value`, which "key: key: value" repeated.
 */
export function titledText(h: Pick<Hit, 'title' | 'text'>): string {
  return h.title && !h.text.startsWith(`${h.title}: `) ? `${h.title}: ${h.text}` : h.text;
}
