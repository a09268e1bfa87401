import { invalid } from './errors.js';

/**
 * Text that names a record (a user_id, a wiki title, a fact key) is compared as text: two names
 * that look the same must be the same string. Two things make them differ unseen: canonical
 * forms (é precomposed, or e and a combining accent, as macOS file names and some keyboards send
 * it), which toNfc makes one; and invisible format characters, which a name may not hold.
 */

/** Text of code points below U+0300 is in NFC already: none composes with another or decomposes. */
const MAY_CHANGE_IN_NFC = /[\u0300-\uffff]/;

/** `text` in Unicode NFC; a text below U+0300 (ASCII, Latin-1) is given back as it is, unread by ICU. */
export function toNfc(text: string): string {
  return MAY_CHANGE_IN_NFC.test(text) ? text.normalize('NFC') : text;
}

/**
 * Invisible format characters (General Category Cf) that no script needs to spell a word: soft
 * hyphen, zero-width space, word joiner and invisible operators, the deprecated format controls,
 * byte order mark, interlinear annotation, and the bidi embeddings, overrides and isolates, which
 * reorder what is shown ("invoice\u202Efdp.exe" shows as "invoiceexe.pdf"). The joiners (ZWJ,
 * ZWNJ: Persian, Indic conjuncts, emoji), the bidi marks (LRM, RLM, ALM: right-to-left text next to
 * digits and punctuation), tag letters (subdivision flags) and script-specific format characters
 * stay allowed.
 */
const HIDDEN_FORMAT = /[\u00ad\u200b\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/;

export const HIDDEN_FORMAT_ACCEPTED =
  'text without invisible format characters: soft hyphen, zero-width space, word joiner, byte order mark, bidi embedding, override and isolate controls ' +
  '(U+00AD, U+200B, U+202A-U+202E, U+2060-U+206F, U+FEFF, U+FFF9-U+FFFB); zero-width joiners and non-joiners and the bidi marks LRM, RLM and ALM are kept';

/** The index (in UTF-16 units) of the first invisible format character a name may not hold, or -1. */
export function hiddenFormatAt(text: string): number {
  return text.search(HIDDEN_FORMAT);
}

/** Throw a validation error naming `field` when `text` holds an invisible format character (HIDDEN_FORMAT). */
export function checkNoHiddenFormat(field: string, text: string): void {
  const at = hiddenFormatAt(text);
  if (at === -1) return;
  const unit = `U+${text.charCodeAt(at).toString(16).toUpperCase().padStart(4, '0')}`;
  throw invalid(
    field,
    `must not hold invisible format characters: it holds ${unit} at index ${at}, which shows nothing or reorders what is shown, so two names that look the same would differ; leave it out`,
    HIDDEN_FORMAT_ACCEPTED,
  );
}
