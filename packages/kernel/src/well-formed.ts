import { invalid, type MemoryError } from './errors.js';

/**
 * Tool arguments must be well-formed Unicode. JSON can carry an unpaired UTF-16 surrogate
 * ("\ud800"), which no UTF-8 store can hold: SQLite and the files would keep three replacement
 * characters instead, so the record saved would not be the one sent, and a later read or search
 * with the same text would not find it. Such input is refused, naming the field.
 *
 * So is U+0000 (NUL): JSON carries it ("\u0000") and the stores kept it, but SQLite's LIKE and
 * the C string functions stop at it, so a record holding one was found by dream and never
 * matched by forget's pattern, a memory that could not be forgotten.
 */

/** A code point of General Category Cs: in a u-mode pattern only an unpaired surrogate is one. */
const LONE_SURROGATE = /\p{Cs}/u;

type WellFormedString = string & { isWellFormed?: () => boolean };

/** Whether s holds no unpaired surrogate (String.prototype.isWellFormed where the runtime has it). */
export const isWellFormed: (s: string) => boolean =
  typeof (String.prototype as WellFormedString).isWellFormed === 'function'
    ? (s) => (s as WellFormedString).isWellFormed!()
    : (s) => !LONE_SURROGATE.test(s);

/** Whether s may be stored: well-formed and without NUL. */
function acceptable(s: string): boolean {
  return s.indexOf('\u0000') === -1 && isWellFormed(s);
}

function refused(field: string, s: string): MemoryError {
  const nul = s.indexOf('\u0000');
  if (nul !== -1) {
    return invalid(
      field,
      `must not contain NUL (U+0000): it holds one at index ${nul}; NUL is not accepted in text, leave it out`,
      'well-formed Unicode text without NUL (U+0000)',
    );
  }
  const at = s.search(LONE_SURROGATE);
  const unit = s.charCodeAt(at).toString(16).toUpperCase();
  return invalid(
    field,
    `must be well-formed Unicode text: it holds an unpaired UTF-16 surrogate (U+${unit}) at index ${at}; send the text as valid UTF-8 or with surrogates in pairs`,
    'well-formed Unicode text without NUL (U+0000)',
  );
}

/**
 * Throw a validation error naming the first string (or object key) in `value` that is not
 * well-formed or holds a NUL, as a dotted path (`payload.summary`, `tags.2`). Walks nested objects and arrays
 * with its own stack, so however deep the input it cannot overflow the call stack.
 */
export function checkWellFormed(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  // Tool arguments are mostly one flat object of scalars: checked in place, with no stack made.
  let stack: [unknown, string][] | undefined;
  if (!Array.isArray(value)) {
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      if (!acceptable(key)) throw refused('(a key)', key);
      const v = (value as Record<string, unknown>)[key];
      if (typeof v === 'string') {
        if (!acceptable(v)) throw refused(key, v);
      } else if (typeof v === 'object' && v !== null) {
        (stack ??= []).push([v, key]);
      }
    }
    if (!stack) return;
  } else {
    stack = [[value, '']];
  }
  while (stack.length) {
    const [node, path] = stack.pop()!;
    const at = (key: string) => (path ? `${path}.${key}` : key);
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) visit(node[i], at(String(i)), stack);
      continue;
    }
    for (const key of Object.keys(node as object)) {
      if (!acceptable(key)) throw refused(path ? `${path} (a key)` : '(a key)', key);
      visit((node as Record<string, unknown>)[key], at(key), stack);
    }
  }
}

function visit(v: unknown, field: string, stack: [unknown, string][]): void {
  if (typeof v === 'string') {
    if (!acceptable(v)) throw refused(field, v);
  } else if (typeof v === 'object' && v !== null) {
    stack.push([v, field]);
  }
}
