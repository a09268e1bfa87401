import { checkNoControlChars } from './control.js';
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
const FORMAT_ANYWHERE = String.raw`\u00ad\u200b\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb`;
/**
 * The Hangul fillers (U+115F, U+1160, U+3164, U+FFA0): letters that show nothing, so "alice\u3164"
 * looked like alice; refused anywhere, as the format characters above.
 */
const FILLERS = String.raw`\u115f\u1160\u3164\uffa0`;
/**
 * Default-ignorable marks that change how the character before them is drawn, and show nothing of
 * their own: the combining grapheme joiner, the Khmer inherent vowels, the Mongolian free variation
 * selectors and vowel separator, and the variation selectors (U+FE00-U+FE0F, U+E0100-U+E01EF).
 * After an emoji, a CJK ideograph or a Mongolian letter they are part of the spelling ("\u2764\uFE0F",
 * an ideographic variant); first, or right after a character that cannot take them (ASCII, white
 * space, another character that shows nothing) they only make a name differ unseen.
 */
const MARKS = String.raw`\u034f\u17b4\u17b5\u180b-\u180f\ufe00-\ufe0f\u{e0100}-\u{e01ef}`;
/** Tag characters (U+E0001, U+E0020-U+E007F): they follow a flag (U+1F3F4) or each other; first or after ASCII they show nothing. */
const TAGS = String.raw`\u{e0001}\u{e0020}-\u{e007f}`;
/** U+2800 (Braille pattern blank) shows as a blank: as white space, it may not come first or last. */
const BLANK_LIKE = String.raw`\u2800`;

/**
 * Where a name holds a character that shows nothing (or reorders what is shown) where it stands:
 * anywhere, a format character or a Hangul filler; first, a mark, a tag character or U+2800; last,
 * U+2800; right after an ASCII character, a mark (but the emoji selector of a keycap, "1\uFE0F\u20E3")
 * or a tag character; right after white space or a default-ignorable code point, a mark. Linear to
 * test (each alternative reads at most two characters back or ahead).
 */
const HIDDEN_FORMAT = new RegExp(
  String.raw`[${FORMAT_ANYWHERE}${FILLERS}]` +
    String.raw`|^[${MARKS}${TAGS}${BLANK_LIKE}]` +
    String.raw`|${BLANK_LIKE}$` +
    String.raw`|(?<=[\0-\x7f])(?!(?<=[0-9#*])\ufe0f\u20e3)[${MARKS}${TAGS}]` +
    String.raw`|(?<=[\s${BLANK_LIKE}\p{Default_Ignorable_Code_Point}])[${MARKS}]`,
  'u',
);

const ANYWHERE = new RegExp(`^[${FORMAT_ANYWHERE}${FILLERS}]$`, 'u');

export const HIDDEN_FORMAT_ACCEPTED =
  'text without invisible format characters: soft hyphen, zero-width space, word joiner, byte order mark, bidi embedding, override and isolate controls ' +
  '(U+00AD, U+200B, U+202A-U+202E, U+2060-U+206F, U+FEFF, U+FFF9-U+FFFB), nor Hangul fillers (U+115F, U+1160, U+3164, U+FFA0); ' +
  'the combining grapheme joiner, variation selectors and Mongolian and Khmer ones (U+034F, U+17B4, U+17B5, U+180B-U+180F, U+FE00-U+FE0F, U+E0100-U+E01EF) ' +
  'only after a character they modify (an emoji, a CJK ideograph, a Mongolian letter), not first nor after ASCII, white space or another invisible character; ' +
  'tag characters only after a flag, and the Braille blank U+2800 not first or last; zero-width joiners and non-joiners and the bidi marks LRM, RLM and ALM are kept';

/** The index (in UTF-16 units) of the first character that shows nothing where it stands (HIDDEN_FORMAT) a name may not hold, or -1. */
export function hiddenFormatAt(text: string): number {
  return text.search(HIDDEN_FORMAT);
}

/**
 * What a refusal says of the character HIDDEN_FORMAT found at `at`: its code point (U+XXXX), its
 * index and why ("U+3164 at index 5, which shows nothing").
 */
export function describeHiddenAt(text: string, at: number): string {
  const cp = text.codePointAt(at)!;
  const unit = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  const why = ANYWHERE.test(String.fromCodePoint(cp))
    ? 'which shows nothing or reorders what is shown'
    : cp === 0x2800
      ? 'a blank, which may not come first or last'
      : at === 0
        ? 'which shows nothing first in a name'
        : 'which shows nothing after the character before it';
  return `${unit} at index ${at}, ${why}`;
}

/** Throw a validation error naming `field` when `text` holds a character that shows nothing where it stands (HIDDEN_FORMAT). */
export function checkNoHiddenFormat(field: string, text: string): void {
  const at = hiddenFormatAt(text);
  if (at === -1) return;
  throw invalid(
    field,
    `must not hold invisible format characters: it holds ${describeHiddenAt(text, at)}, so two names that look the same would differ; leave it out`,
    HIDDEN_FORMAT_ACCEPTED,
  );
}

/**
 * The one rule for a new record name a person reads on one line (a fact key, a watch or
 * disclosure rule name; a new wiki title and a new tag take the same two checks, the control one
 * on every title): no control character, line breaks U+2028 and U+2029 included
 * (checkNoControlChars), and no character that shows nothing where it stands (checkNoHiddenFormat).
 * Each refusal is a validation error naming `field`, the character as U+XXXX and its index. Give it
 * the name as it will be stored (trimmed, in NFC), so the index is the stored name's.
 */
export function checkNewName(field: string, text: string): void {
  checkNoControlChars(field, text);
  checkNoHiddenFormat(field, text);
}
