import type { Clock, Layer, Scope } from './types.js';
import { LAYERS } from './types.js';
import { checkNoControlChars, checkNoHiddenFormat, cutUnits, isBlank, overChars, toNfc, USER_ID_MAX } from '@memory-service/kernel';
import { validationError } from './errors.js';
import { foldText } from './retrieval/query.js';
import { delimiterJoins, groupedJoined, spelledApart } from './retrieval/word-delimiter.js';
import { lazyRegExp, UNSPACED } from './scripts.js';
import { isoOf } from './iso-time.js';

export { isoOf };

/** The clock's time as an ISO-8601 string (UTC, millisecond precision, sorts lexicographically). */
export function nowIso(clock: Clock): string {
  return isoOf(clock.now());
}

/** Normalise any accepted date string to the stored ISO form so string comparison is time order. */
export function toIso(value: string, field = 'since'): string {
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw validationError(field, `${field} is not a valid date: ${value}`, 'ISO-8601 date');
  return new Date(t).toISOString();
}

/** What checkScope takes as a user_id, as its error's `accepted` says it. */
export const USER_ID_RULE = `1 to ${USER_ID_MAX} characters (Unicode code points: an emoji is one), at least one visible`;

export function checkScope(scope: Scope): Scope {
  if (!scope || !LAYERS.includes(scope.layer as Layer)) {
    throw validationError('layer', `layer must be one of ${LAYERS.join(', ')}`, LAYERS);
  }
  // Counted as the tools' schema counts it (kernel USER_ID_MAX): in UTF-16 units, an id of 101 emoji passed the schema and was refused here.
  if (typeof scope.user_id !== 'string' || scope.user_id.length === 0 || overChars(scope.user_id, USER_ID_MAX) || isBlank(scope.user_id)) {
    throw validationError('user_id', `user_id must be a non-blank string of at most ${USER_ID_MAX} characters`, USER_ID_RULE);
  }
  return scope;
}

export function checkText(value: unknown, field: string, max: number, allowEmpty = false): string {
  if (typeof value !== 'string') throw validationError(field, `${field} must be a string`);
  if (!allowEmpty && isBlank(value)) throw validationError(field, `${field} must not be empty`, 'text with a visible character');
  // Characters are code points, as a user counts them: an emoji is one (docs/decisions.md).
  if (overChars(value, max)) throw validationError(field, `${field} is longer than ${max} characters`);
  return value;
}

export function clamp(v: number, lo: number, hi: number): number {
  if (!Number.isFinite(v)) return lo;
  return Math.min(hi, Math.max(lo, v));
}

/**
 * A store id is `<prefix>_<rowid>` (a prefix of lower-case letters, 1-15 digits): returns the
 * rowid, or null for any other shape, another prefix, or 0. Read character by character: dream
 * reads back every hit's id, and a regular expression with captures cost several times as much.
 */
export function parseId(prefix: string, id: string | number): number | null {
  if (typeof id === 'number') return Number.isSafeInteger(id) && id > 0 ? id : null;
  const s = String(id);
  const p = prefix.length;
  if (p === 0 || s.length < p + 2 || s.length > p + 16 || s.charCodeAt(p) !== 0x5f || !s.startsWith(prefix)) return null;
  for (let i = 0; i < p; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x61 || c > 0x7a) return null;
  }
  let n = 0;
  for (let i = p + 1; i < s.length; i++) {
    const d = s.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) return null;
    n = n * 10 + d;
  }
  return n > 0 ? n : null;
}

export function makeId(prefix: string, rowid: number | bigint): string {
  return `${prefix}_${rowid}`;
}

export function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined || text === '') return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** One character of a LIKE pattern: `_` (any one character) for a non-ASCII letter with case forms, escaped otherwise. */
function likeChar(c: string): string {
  if (c === '\\' || c === '%' || c === '_') return `\\${c}`;
  // SQLite's LIKE folds ASCII case only: "É" would miss "é", which wordsMatcher then takes.
  return c > '\x7f' && c.toLowerCase() !== c.toUpperCase() ? '_' : c;
}

/**
 * A user pattern for `LIKE ? ESCAPE '\'`: its words in order, with anything between, and any
 * character in place of a non-ASCII letter that has case forms. A prefilter whose matches hold
 * every match of wordsMatcher.
 */
export function likePattern(pattern: string): string {
  const words = pattern.trim().split(/\s+/).map((w) => Array.from(w, likeChar).join(''));
  return `%${words.join('%')}%`;
}

/**
 * SQL true for a text holding a character beyond ASCII (its folded form, foldText, is more than its
 * lower case): more bytes than characters in UTF-8. SQLite counts both in C without a pattern
 * (a GLOB of `*[^\x01-\x7f]*` cost twice a LIKE over every row); a text with a NUL, whose
 * characters SQLite counts only up to it, is taken too, which a prefilter may.
 */
function beyondAsciiSql(column: string): string {
  return `length(${column}) <> octet_length(${column})`;
}

/**
 * The column without the separators retrieval joins runs over (`-`, `_`, `.`: word-delimiter.ts),
 * as wordFilterSql compares it: replace() copies every text it is given, so only a text holding
 * one goes through it (the same value for any text).
 */
function unseparatedSql(column: string): string {
  return `(CASE WHEN instr(${column}, '-') > 0 OR instr(${column}, '_') > 0 OR instr(${column}, '.') > 0 THEN replace(replace(replace(${column}, '-', ''), '_', ''), '.', '') ELSE ${column} END)`;
}

/**
 * The SQL prefilter of a word match (wordsMatcher) on `column`, for `wordFilterArgs(pattern)`: a
 * text of ASCII alone folds to its lower case, so SQLite's LIKE (which ignores ASCII case) with the
 * folded pattern takes every such row that can match; a text with any other character ("Café",
 * full-width "ＣＡＦＥ") may fold to the pattern without holding any of its characters, so it is
 * taken too and the exact folded check runs in JavaScript (rowsMatching). The LIKE compares the
 * text and the pattern without their separators (`-`, `_`, `.`), since the match also takes runs
 * joined over them ("email" is in "e-mail", "nodejs" in "Node.js"), and the pattern written apart
 * (word-delimiter.ts spelledApart: "250ms" as "250 ms", "03" as "3"), whose words in order the
 * text holds whenever it holds the pattern: a text holding the pattern still holds it with every
 * separator dropped from both. Matches are a superset.
 */
export function wordFilterSql(column: string): string {
  return `(${unseparatedSql(column)} LIKE ? ESCAPE '\\' OR ${beyondAsciiSql(column)})`;
}

/**
 * The parameter of wordFilterSql for a pattern: the LIKE of its folded head, its numbers grouped by
 * thousands joined (groupedJoined), written apart, without separators (wordFilterSql), and with
 * `%` between the thousands of a number of four digits or more ("12400" as "12%400"), so a text
 * holding the number grouped ("$12,400", "12'400") is taken too (wordsMatcher joins them), and
 * `%` for each ä, ö, ü ("Kündigung" as "k%ndigung"), so a text writing "Kuendigung" is taken too.
 */
export function wordFilterArgs(pattern: string): [string] {
  // Each ä, ö, ü of the pattern is `%` in the LIKE, so a text spelling it ae, oe, ue or u is taken too.
  const spelt = spelledApart(groupedJoined(pattern), false).replace(/[äöüÄÖÜ]/g, UMLAUT_MARK);
  const like = likePattern(foldedHead(spelt).replace(/[-_.]/g, '')).replaceAll(UMLAUT_MARK, '%');
  return [like.replace(/\d{4,}/g, (n) => n.replace(/\B(?=(\d{3})+$)/g, '%'))];
}

/** Stands for an umlaut of a pattern in wordFilterArgs until its LIKE is made (a character no fold or escape changes). */
const UMLAUT_MARK = '\u0001';

/**
 * Patterns longer than this many characters (folded) are matched without a pattern as long as
 * themselves: wordFilterArgs prefilters by their first LONG_PATTERN_HEAD characters and
 * wordsMatcher scans for them (scanWordsMatcher) instead of compiling a regular expression. Forget
 * exact matches a fact's whole value, which may be as long as a stored text (think.max_text_chars):
 * as a LIKE pattern it passed SQLite's pattern length limit (50 KB), and as a regular expression
 * it overflowed the stack. Shorter patterns are matched as they always were.
 */
export const LONG_PATTERN_CHARS = 1000;
/** How many characters of a long pattern its SQL prefilter holds (LONG_PATTERN_CHARS). */
export const LONG_PATTERN_HEAD = 256;

/**
 * The text a prefilter's LIKE looks for: the pattern folded, or for a long one (over
 * LONG_PATTERN_CHARS folded) its first LONG_PATTERN_HEAD characters: every text holding the
 * pattern holds its start, so the rows taken are still a superset of the matches. The cut never
 * leaves half a surrogate pair (kernel cutUnits): a lone one reaches SQLite as U+FFFD, which the
 * stored text does not hold.
 */
function foldedHead(pattern: string): string {
  const folded = foldText(pattern);
  return folded.trim().length > LONG_PATTERN_CHARS ? cutUnits(folded.trim(), LONG_PATTERN_HEAD) : folded;
}

/**
 * Most distinct terms foldedTermsFilter puts in SQL. Each row is tested with a LIKE per term, so
 * the filter costs rows x terms: a forget of 4,000 records, whose refs are terms, spent over a
 * minute in it at 100,000 memories. Past this many, every row is read and the caller's own test
 * (which forget makes in one pass however many texts it has) decides.
 */
export const PREFILTER_MAX_TERMS = 32;

/**
 * The SQL prefilter of rows whose `columns` may hold any of `terms` folded (foldText), as plain
 * substrings: wordFilterSql's LIKE with each folded term on each column, and its test once per
 * column for the rows with a character beyond ASCII, which are all taken (the test that follows
 * folds them). `onlyIn` adds terms looked for in one column alone (a timeline event names a record
 * by a ref in its metadata, never in its summary); a column with no term is not tested. Empty terms
 * are dropped; with none left, or more than PREFILTER_MAX_TERMS for a column, null (no prefilter:
 * every row is read).
 * One LIKE per term, joined by OR: at most PREFILTER_MAX_TERMS per column keeps the chain far under
 * SQLite's expression depth limit of 1,000, which a forget of hundreds of records once passed, and
 * costs a third of what a JSON list of the terms read by json_each on every row did.
 */
export function foldedTermsFilter(
  columns: readonly string[],
  terms: readonly string[],
  onlyIn: Readonly<Record<string, readonly string[]>> = {},
): { sql: string; args: string[] } | null {
  const likes = (ts: readonly string[]) => ts.filter((t) => t.length > 0).map((t) => likePattern(foldedHead(t)));
  const shared = likes(terms);
  const parts: string[] = [];
  const args: string[] = [];
  for (const c of columns) {
    const mine = [...new Set([...shared, ...likes(onlyIn[c] ?? [])])];
    if (mine.length > PREFILTER_MAX_TERMS) return null;
    if (mine.length === 0) continue;
    parts.push(...mine.map(() => `${c} LIKE ? ESCAPE '\\'`), beyondAsciiSql(c));
    args.push(...mine);
  }
  return parts.length ? { sql: `(${parts.join(' OR ')})`, args } : null;
}

/**
 * The rows of a prefilter (wordFilterSql) that hold the pattern as whole words (wordsMatcher),
 * at most `limit` of them, read one at a time so the limit counts only rows kept.
 */
export function rowsMatching<R>(rows: Iterable<R>, pattern: string, texts: (row: R) => string[], limit: number): R[] {
  const matches = wordsMatcher(pattern);
  const out: R[] = [];
  for (const row of rows) {
    if (out.length >= limit) break;
    if (texts(row).some(matches)) out.push(row);
  }
  return out;
}

/** Whether a text holds a letter, digit or emoji (a retrieval term too): a pattern without one has no word to match. */
export function holdsWord(text: string): boolean {
  return /[\p{L}\p{N}\p{Extended_Pictographic}]/u.test(text);
}

/**
 * A pattern for a bulk delete by words (the stores' deleteMatching): it must hold a letter or
 * digit, or an emoji (a retrieval term of its own). One of punctuation alone ("-", ":") has no word to match and, taken as a bare substring,
 * matched nearly every record.
 */
export function checkWordPattern(pattern: unknown, field = 'pattern'): string {
  const p = checkText(pattern, field, 10_000);
  if (!holdsWord(p)) {
    throw validationError(field, `${field} must hold at least one letter or digit (or an emoji): punctuation alone would match almost every memory`, 'a word or phrase');
  }
  return p;
}

/**
 * A pattern for a store's findMatching or scrubContext: a string of at most 10,000 characters, or
 * of the stores' text limit (think.max_text_chars) when that is higher, since forget exact looks
 * for a fact's whole value, which may be that long. Long patterns are matched without a pattern
 * of their length (LONG_PATTERN_CHARS).
 */
export function checkMatchPattern(pattern: unknown, maxTextChars: number): string {
  return checkText(pattern, 'pattern', Math.max(10_000, maxTextChars));
}

// In scripts written without spaces between words (scripts.ts) no word boundary can be told, so none is asked for.
/** A letter, digit or mark of a script that puts spaces between words. */
const SPACED_WORD_CHAR = `(?!${UNSPACED})[\\p{L}\\p{N}\\p{M}]`;
const STARTS_WITH_WORD = lazyRegExp(() => `^${SPACED_WORD_CHAR}`, 'u');
const ENDS_WITH_WORD = lazyRegExp(() => `${SPACED_WORD_CHAR}$`, 'u');

/**
 * A test of whether a text holds `pattern` as whole words, folded as retrieval folds both
 * (foldText: case, accents, full-width and other compatibility forms, so "cafe" and "ＣＡＦＥ" are
 * in "Café au lait"): where the pattern starts or ends with a letter or digit, the text must not
 * go on with another there ("cat" is in "My cat's bowl" and "cat-food", not in "vacation" or
 * "education"), and a run of white space in the pattern matches any run. In scripts written
 * without spaces (Chinese, Japanese, Thai...) no boundary is asked for, but the pattern must not
 * end inside a character with marks ("カ" is not in "ガ", which folds to カ and a voicing mark),
 * as retrieval keeps such a character whole. The other spellings retrieval indexes and searches
 * (word-delimiter.ts) match too, in the text and in the pattern: runs joined over `-`, `_`, `.`
 * ("email" is in "e-mail", "nodejs" in "Node.js"; joinedRuns) and written apart ("user" and
 * "fetch user profile" are in "fetchUserProfile", "250 ms" in "250ms", "3" in "2026-03-07",
 * "Kuendigung" in "Kündigung" and "Kündigung" in "Kuendigung"; spelledApart). Used after a prefilter (wordFilterSql), whose
 * matches are a superset.
 */
export function wordsMatcher(pattern: string): (text: string) => boolean {
  return matchingFolded(pattern, (p) => (p.length > LONG_PATTERN_CHARS ? foldedScan(p) : foldedRegExp(p)));
}

/**
 * The forms of a pattern a text is tested against, folded and trimmed: the pattern, with its runs
 * joined (joinedRuns) when it has any, written apart (spelledApart) when that differs, and also
 * with ä, ö, ü spelled ae, oe, ue when it has any (as retrieval's query side searches both
 * spellings); and the same of the pattern with its numbers grouped
 * by thousands joined (groupedJoined: "12,400" as "12400") when it has any. A pattern that folding
 * would empty keeps its own characters: an empty one matches everything.
 */
function patternForms(pattern: string): string[] {
  const folded = foldText(pattern).trim();
  if (!holdsWord(folded)) return [pattern.trim()];
  const forms: string[] = [];
  const grouped = groupedJoined(pattern);
  for (const p of grouped === pattern ? [pattern] : [pattern, grouped]) {
    const f = foldText(p).trim();
    const joined = joinedRuns(p, f);
    const apart = foldText(spelledApart(p, false)).trim();
    const umlauts = foldText(spelledApart(p, true)).trim();
    for (const form of [f, joined?.trim(), apart, umlauts]) if (form !== undefined && !forms.includes(form)) forms.push(form);
  }
  return forms;
}

/**
 * A test of a text, folded, against each form of the pattern (patternForms) with `make`'s test of a
 * folded text, and again with the text's runs joined (joinedRuns) and written apart (spelledApart
 * with umlauts spelled ae, oe, ue, as retrieval's document side) when they differ; then all of it
 * again with the text's numbers grouped by thousands joined (groupedJoined: "$12,400" as
 * "$12400") when it has any: the spellings retrieval indexes beside the words (word-delimiter.ts).
 */
function matchingFolded(pattern: string, make: (form: string) => (folded: string) => boolean): (text: string) => boolean {
  const tests = patternForms(pattern).map(make);
  const matches = (text: string): boolean => {
    const folded = foldText(text);
    if (tests.some((t) => t(folded))) return true;
    const joined = joinedRuns(text, folded);
    if (joined !== null && tests.some((t) => t(joined))) return true;
    const apart = spelledApart(text, true);
    return apart !== text && tests.some((t) => t(foldText(apart)));
  };
  return (text) => {
    if (matches(text)) return true;
    const grouped = groupedJoined(text);
    return grouped !== text && matches(grouped);
  };
}

/**
 * A folded text with the runs retrieval also indexes joined (word-delimiter.ts delimiterJoins:
 * "e-mail" as "email", "Node.js" as "nodejs", "fetch_user_profile" as "fetchuserprofile", never a
 * version or a date) written joined, or null when it has none. Each joined form replaces its
 * spellings with separators in the text, so the list of what joins stays retrieval's.
 */
function joinedRuns(text: string, folded: string): string | null {
  const joins = delimiterJoins(text);
  if (joins.length === 0) return null;
  let out = folded;
  for (const j of joins) out = out.replace(new RegExp(Array.from(j, escapeRegExp).join('[._-]?'), 'gu'), j);
  return out === folded ? null : out;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** wordsMatcher's test of a folded text by a regular expression, for a folded form of the pattern. */
function foldedRegExp(p: string): (folded: string) => boolean {
  const body = p.split(/\s+/).map(escapeRegExp).join('\\s+');
  const head = STARTS_WITH_WORD().test(p) ? `(?<!${SPACED_WORD_CHAR})` : '';
  const tail = ENDS_WITH_WORD().test(p) ? `(?!${SPACED_WORD_CHAR})` : /[\p{L}\p{N}\p{M}]$/u.test(p) ? '(?!\\p{M})' : '';
  const re = new RegExp(head + body + tail, 'iu');
  return (folded) => re.test(folded);
}

/**
 * A list of tags trimmed, in Unicode NFC (so "café" sent precomposed or decomposed is one tag, as
 * fact keys and wiki titles are), blanks and repeats dropped, each at most 200 characters. A tag
 * holding an invisible format character (zero-width space, bidi override: kernel
 * checkNoHiddenFormat) is an error naming it (`tags.<index>`), as in a key or a title: "work" and
 * "wo<U+200B>rk" looked like one tag and were two. A tag in `held` (the record's own tags, stored
 * before tags were checked) is kept as it is; `held: 'any'` keeps every such tag (a filter, which
 * writes nothing, and a Shadow Bin restore of a record as it was). With `oneLine` (a wiki page's
 * tags, printed on one line of a Markdown digest) a control character, line breaks and tabs
 * included, is an error naming the tag (kernel checkNoControlChars).
 */
export function normalizeTags(tags: unknown, field = 'tags', opts: { oneLine?: boolean; held?: readonly string[] | 'any' } = {}): string[] {
  if (tags === undefined || tags === null) return [];
  if (!Array.isArray(tags)) throw validationError(field, `${field} must be a list of strings`);
  const out: string[] = [];
  for (const [i, t] of tags.entries()) {
    if (typeof t !== 'string') throw validationError(field, `${field} must be a list of strings`);
    const v = toNfc(t.trim());
    // A tag of spaces or zero-width characters alone shows nothing: dropped, as an empty one is.
    if (isBlank(v)) continue;
    if (overChars(v, 200)) throw validationError(field, `a tag is longer than 200 characters`);
    // A tag printed on a digest's line (wiki_summarize) must not break it into a forged heading.
    if (opts.oneLine) checkNoControlChars(`${field}.${i}`, v);
    if (opts.held !== 'any' && !opts.held?.includes(v)) checkNoHiddenFormat(`${field}.${i}`, v);
    if (!out.includes(v)) out.push(v);
  }
  return out;
}

/**
 * Whether a trigger keyword (a disclosure rule's, a watch rule's) is in a text folded with
 * foldText: the keyword is folded the same way, as dream and fuzzy forget fold both sides, so
 * "café" precomposed or decomposed, "Straße" and "strasse", "İSTANBUL" and "istanbul" match. A
 * keyword that folds to nothing (a lone accent) is in no text.
 */
export function keywordInFolded(foldedText: string, keyword: string): boolean {
  const k = foldText(keyword);
  return k !== '' && foldedText.includes(k);
}

/**
 * Whether a name given by a caller (a watch rule's sender) is the name an event carries, both
 * trimmed and folded with foldText as keywordInFolded folds (NFC or NFD, case, accents, ß as ss, İ
 * as i): equality of the folded forms, never a part of one. A name that folds to nothing (a lone
 * accent, a soft hyphen) is no name, so it equals none.
 */
export function foldedNameEquals(name: string, other: string): boolean {
  const a = foldText(name.trim());
  return a !== '' && a === foldText(other.trim());
}

/** The key of one scope (layer and user_id) in the in-memory maps of the stores. */
export function scopeKey(layer: string, userId: string): string {
  return `${layer}\u0000${userId}`;
}

/** The code point that ends just before index `i` of a text ('' at its start). */
function codePointBefore(text: string, i: number): string {
  if (i <= 0) return '';
  const low = text.charCodeAt(i - 1);
  if (low >= 0xdc00 && low <= 0xdfff && i >= 2) {
    const high = text.charCodeAt(i - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.slice(i - 2, i);
  }
  return text[i - 1]!;
}

/** The code point that starts at index `i` of a text ('' at its end). */
function codePointAt(text: string, i: number): string {
  if (i >= text.length) return '';
  return String.fromCodePoint(text.codePointAt(i)!);
}

const IS_SPACED_WORD_CHAR = lazyRegExp(() => `^${SPACED_WORD_CHAR}$`, 'u');
const IS_MARK = lazyRegExp(() => '^\\p{M}$', 'u');

/**
 * The test of wordsMatcher without a regular expression, for a pattern of any length: the folded
 * pattern, its runs of white space made one space, is looked for with indexOf in the text folded
 * and collapsed the same way, and each place it stands is checked for the same word boundaries
 * (no letter, digit or mark of a spaced script just before a pattern that starts with one, or
 * just after one that ends with one; no mark after a pattern ending in a character of a script
 * without spaces), other spellings matched as wordsMatcher matches them. Linear in the text for each
 * place the pattern starts; wordsMatcher uses it for patterns over LONG_PATTERN_CHARS, whose
 * regular expression overflowed the stack.
 */
export function scanWordsMatcher(pattern: string): (text: string) => boolean {
  return matchingFolded(pattern, foldedScan);
}

/** scanWordsMatcher's test of a folded text, for a folded form of the pattern. */
function foldedScan(form: string): (folded: string) => boolean {
  const p = form.replace(/\s+/g, ' ');
  const first = codePointAt(p, 0);
  const last = codePointBefore(p, p.length);
  const head = first !== '' && IS_SPACED_WORD_CHAR().test(first);
  const tail = last !== '' && IS_SPACED_WORD_CHAR().test(last);
  const tailMark = !tail && /[\p{L}\p{N}\p{M}]$/u.test(p);
  return (folded) => {
    const t = folded.replace(/\s+/g, ' ');
    for (let i = t.indexOf(p); i >= 0; i = t.indexOf(p, i + 1)) {
      if (head && IS_SPACED_WORD_CHAR().test(codePointBefore(t, i))) continue;
      const after = codePointAt(t, i + p.length);
      if (tail && IS_SPACED_WORD_CHAR().test(after)) continue;
      if (tailMark && IS_MARK().test(after)) continue;
      return true;
    }
    return false;
  };
}
