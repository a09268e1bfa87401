/**
 * Lengths and cuts of user text in characters, meaning Unicode code points (what Python's len
 * counts), not the UTF-16 units of String.length: an emoji is one character, and a cut never
 * leaves half of one (a lone surrogate, stored as U+FFFD). A text with no high surrogate has as
 * many code points as units, so ASCII and most text take the fast path of one regex test.
 */
const HIGH_SURROGATE = /[\uD800-\uDBFF]/;

/** A low surrogate unit (the second half of a pair). */
function isLow(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** The number of characters (code points) in `text`; a lone surrogate counts as one. */
export function charLength(text: string): number {
  if (!HIGH_SURROGATE.test(text)) return text.length;
  let n = 0;
  for (let i = 0; i < text.length; i++, n++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && isLow(text.charCodeAt(i + 1))) i++;
  }
  return n;
}

/** Whether `text` has more than `max` characters; a text of at most `max` units never has. */
export function overChars(text: string, max: number): boolean {
  return text.length > max && charLength(text) > max;
}
/** The end index (in units) of the first `max` code points of `text`. */
function endOfChars(text: string, max: number): number {
  let i = 0;
  for (let n = 0; n < max && i < text.length; n++) {
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && isLow(text.charCodeAt(i + 1)) ? 2 : 1;
  }
  return i;
}


/** The first `max` characters (code points) of `text`: a surrogate pair is kept whole or left out. */
export function cutChars(text: string, max: number): string {
  if (max <= 0) return '';
  if (text.length <= max) return text;
  const head = text.slice(0, max);
  return HIGH_SURROGATE.test(head) ? text.slice(0, endOfChars(text, max)) : head;
}

/**
 * At most `max` units of `text`, cut before a surrogate pair rather than through it: for a cut
 * whose size is counted in units (a budget of bytes or tokens), not characters.
 */
export function cutUnits(text: string, max: number): string {
  if (max <= 0) return '';
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff && isLow(text.charCodeAt(max)) ? max - 1 : max);
}
