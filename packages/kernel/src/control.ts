import { invalid } from './errors.js';

/**
 * Control characters in user text: C0 (U+0000-U+001F), DEL (U+007F) and C1 (U+0080-U+009F),
 * General Category Cc. They show nothing, and a terminal or log that prints a name holding
 * "\u001b[31m" or "\u0007" obeys it; in a field meant to be one line a line break forges a
 * line of its own (a spec page's "Status:" line, a log line). A single-line text may hold none,
 * nor the Unicode line and paragraph separators U+2028 and U+2029 (categories Zl, Zp: line breaks
 * to every renderer that follows Unicode, and to JavaScript's own line terminators); a multi-line
 * text may hold line breaks (LF, CR only as part of CRLF, U+2028, U+2029) and tabs, no other.
 */
// eslint-disable-next-line no-control-regex -- the control characters are what is looked for
const ANY_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
// eslint-disable-next-line no-control-regex -- the control characters are what is looked for
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|\r(?!\n)/;

/** The index (in UTF-16 units) of the first control character `text` may not hold, or -1. */
export function controlCharAt(text: string, opts: { multiline?: boolean } = {}): number {
  return text.search(opts.multiline ? CONTROL_BUT_LINES : ANY_CONTROL);
}

/**
 * Throw a validation error naming `field` when `text` holds a control character: any, for a
 * single-line text; any but LF, CRLF and tab, for a multi-line one (`multiline: true`).
 */
export function checkNoControlChars(field: string, text: string, opts: { multiline?: boolean } = {}): void {
  const at = controlCharAt(text, opts);
  if (at === -1) return;
  const unit = `U+${text.charCodeAt(at).toString(16).toUpperCase().padStart(4, '0')}`;
  const allowed = opts.multiline
    ? 'a multi-line text may hold line breaks and tabs, no other control character (U+0000-U+001F, U+007F-U+009F)'
    : 'it is a single line of text, so it holds no control character (U+0000-U+001F, U+007F-U+009F), line breaks (U+2028 and U+2029 too) and tabs included';
  throw invalid(
    field,
    `must not contain control characters: it holds ${unit} at index ${at}; ${allowed}; leave it out`,
    opts.multiline ? 'text without control characters other than line breaks and tabs' : 'single-line text without control characters',
  );
}
