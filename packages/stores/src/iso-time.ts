import { validationError } from './errors.js';

/**
 * Times are stored as ISO 8601 text in UTC (`2026-01-31T09:30:00.000Z`) and compared as text in
 * SQL, which is time order only while the year has four digits: toISOString writes year 10000 as
 * `+010000-...` and year -1 as `-000001-...`, which sort before every four-digit year. So every
 * time the stores keep or compare lies in ISO_MIN_MS..ISO_MAX_MS: a time read from a caller
 * outside it is refused (checkIsoTimestamp), and the clock's own stamps are clamped to it (util isoOf).
 */
export const ISO_MIN_MS = -62_167_219_200_000; // 0000-01-01T00:00:00.000Z
export const ISO_MAX_MS = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z
export const ISO_MIN = '0000-01-01T00:00:00.000Z';
export const ISO_MAX = '9999-12-31T23:59:59.999Z';
export const ISO_RANGE = `${ISO_MIN} to ${ISO_MAX}`;

const DAY_MS = 86_400_000;
let isoDay = -1;
let isoDayPrefix = '';

const pad2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`);

/**
 * The same string as `new Date(ms).toISOString()`, built in JavaScript with the date part kept
 * from the previous call: every write stamps a time, and on a request that follows idle time the
 * engine's own formatter (a runtime call) costs about three times as much. A time outside
 * ISO_MIN_MS..ISO_MAX_MS (a clock past 9999-12-31 or before year 0) is clamped to that range, so
 * every stamp sorts as time; times before 1970 and non-integers go to toISOString.
 */
export function isoOf(ms: number): string {
  if (ms > ISO_MAX_MS) ms = ISO_MAX_MS;
  else if (ms < ISO_MIN_MS) ms = ISO_MIN_MS;
  if (!Number.isInteger(ms) || ms < 0) return new Date(ms).toISOString();
  const day = Math.floor(ms / DAY_MS);
  if (day !== isoDay) {
    isoDayPrefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
    isoDay = day;
  }
  let rest = ms - day * DAY_MS;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = Math.floor(rest / 1000);
  const milli = rest - s * 1000;
  return `${isoDayPrefix}${pad2(h)}:${pad2(m)}:${pad2(s)}.${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}

/** What every time a tool or an import document gives is: the accepted forms, said once for every error and schema. */
export const ISO_TIMESTAMP_ACCEPTED =
  'an ISO 8601 date (2026-01-31) or date-time with Z or an offset (2026-01-31T09:30:00Z, 2026-01-31T09:30:00.250+02:00; ' +
  `a space for T, lower-case t and z, and +02 for +02:00 are accepted too), from ${ISO_MIN} to ${ISO_MAX} once in UTC`;

/** A tool's description of one time bound (memory_query, wiki_query): what it bounds, how a date alone is read, the forms. */
export function isoBoundDescription(what: string, dateOnly: DateOnly): string {
  const day = dateOnly === 'end' ? 'a date alone includes that whole day (UTC)' : 'a date alone starts at its midnight UTC';
  return `${what}, bound included; ${day}: ${ISO_TIMESTAMP_ACCEPTED}`;
}

/** How a date without a time is read: the first instant of that day (UTC), or its last (an `until` bound, so the day is included). */
export type DateOnly = 'start' | 'end';

const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?))?$/;

/**
 * The stored form (toISOString, which sorts as time) of an ISO 8601 / RFC 3339 timestamp: a date,
 * or a date-time with seconds and fraction optional and Z or an offset required (a time with no
 * zone would be read in the server's own). A day the month lacks (2026-02-30), an hour past 23, an
 * instant outside ISO_RANGE once in UTC, or anything else is an error naming `field` and the
 * accepted forms. A date alone is the start of that day in UTC, or with `dateOnly: 'end'` its last
 * millisecond (an `until` bound includes the whole day).
 */
export function checkIsoTimestamp(value: unknown, field: string, dateOnly: DateOnly = 'start'): string {
  const bad = (why = '') =>
    validationError(
      field,
      `${field} must be ${ISO_TIMESTAMP_ACCEPTED}${why}; got ${JSON.stringify(typeof value === 'string' ? value.slice(0, 100) : value)}`,
      ISO_TIMESTAMP_ACCEPTED,
    );
  if (typeof value !== 'string') throw bad();
  const m = ISO_RE.exec(value.trim());
  if (!m) throw bad();
  const [y, mo, d, h = 0, mi = 0, s = 0] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((v) => (v === undefined ? undefined : Number(v))) as number[];
  const ms = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  const offH = m[10] === undefined ? 0 : Number(m[10]);
  const offM = m[11] === undefined ? 0 : Number(m[11]);
  if (mo < 1 || mo > 12 || h > 23 || mi > 59 || s > 59 || offH > 23 || offM > 59) throw bad();
  const t = new Date(0);
  t.setUTCFullYear(y, mo - 1, d);
  if (t.getUTCFullYear() !== y || t.getUTCMonth() !== mo - 1 || t.getUTCDate() !== d) throw bad();
  t.setUTCHours(h, mi, s, ms);
  const offset = (m[9] === '-' ? -1 : 1) * (offH * 60 + offM) * 60_000;
  let at = t.getTime() - offset;
  if (m[4] === undefined && dateOnly === 'end') at += DAY_MS - 1;
  if (at < ISO_MIN_MS || at > ISO_MAX_MS) throw bad(` (${value.trim()} is outside that range in UTC)`);
  return new Date(at).toISOString();
}

/**
 * A since/until pair of stored times (checkIsoTimestamp's), checked in one place for every tool that
 * takes one: a since after its until is an error naming the since field (the range would match
 * nothing), whatever the tool.
 */
export function checkTimeRange(since: string | undefined, until: string | undefined, sinceField: string, untilField: string): void {
  if (since !== undefined && until !== undefined && since > until) {
    throw validationError(sinceField, `${sinceField} (${since}) is after ${untilField} (${until}): the range would match nothing`, `at or before ${until}`);
  }
}

/** A window of stored times, both ends included. */
export interface TimeWindow {
  since: string;
  until: string;
}

/**
 * The window of "recent" records (forget recent, memory_lucidity_purge, daily_brief's last 24
 * hours): the `spanMs` before now, up to now, never past it. A record dated after now (the clock stepped
 * back, or an imported future date) is not recent, so no window, whatever its size, holds it.
 */
export function recentWindow(nowMs: number, spanMs: number): TimeWindow {
  return { since: isoOf(nowMs - spanMs), until: isoOf(nowMs) };
}

/** The same window from a since already chosen (a store's deleteSince): up to now, never past it. */
export function windowUntilNow(sinceIso: string, nowMs: number): TimeWindow {
  return { since: sinceIso, until: isoOf(nowMs) };
}

/**
 * The age recency scoring uses for a record created at `createdMs`: its distance from now in
 * either direction, so a record dated in the future (up to full recency for one just ahead, a
 * clock stepped back) is never more recent than one written now, and one dated years ahead ranks
 * as one years old rather than as the newest.
 */
export function recencyAge(nowMs: number, createdMs: number): number {
  return Math.abs(nowMs - createdMs);
}
