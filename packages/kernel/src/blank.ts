/**
 * Blank text: nothing but white space and default-ignorable code points (zero-width space and
 * joiners, word joiner, soft hyphen, variation selectors, Hangul fillers, bidi marks). Such a text
 * shows nothing and holds no word a search could match, so a required text of only these is refused
 * as blank, as one of only spaces is.
 */
const SHOWS_SOMETHING = /[^\s\p{Default_Ignorable_Code_Point}]/u;

/** Whether `text` shows nothing: empty, or only white space and default-ignorable code points. */
export function isBlank(text: string): boolean {
  return !SHOWS_SOMETHING.test(text);
}

