import type { Clock, Layer, Scope } from './types.js';
import { LAYERS } from './types.js';
import { validationError } from './errors.js';

/** The clock's time as an ISO-8601 string (UTC, millisecond precision, sorts lexicographically). */
export function nowIso(clock: Clock): string {
  return new Date(clock.now()).toISOString();
}

/** Normalise any accepted date string to the stored ISO form so string comparison is time order. */
export function toIso(value: string, field = 'since'): string {
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw validationError(field, `${field} is not a valid date: ${value}`, 'ISO-8601 date');
  return new Date(t).toISOString();
}

export function checkScope(scope: Scope): Scope {
  if (!scope || !LAYERS.includes(scope.layer as Layer)) {
    throw validationError('layer', `layer must be one of ${LAYERS.join(', ')}`, LAYERS);
  }
  if (typeof scope.user_id !== 'string' || scope.user_id.length === 0 || scope.user_id.length > 200) {
    throw validationError('user_id', 'user_id must be a non-empty string of at most 200 characters');
  }
  return scope;
}

export function checkText(value: unknown, field: string, max: number, allowEmpty = false): string {
  if (typeof value !== 'string') throw validationError(field, `${field} must be a string`);
  if (!allowEmpty && value.trim().length === 0) throw validationError(field, `${field} must not be empty`);
  if (value.length > max) throw validationError(field, `${field} is longer than ${max} characters`);
  return value;
}

export function clamp(v: number, lo: number, hi: number): number {
  if (!Number.isFinite(v)) return lo;
  return Math.min(hi, Math.max(lo, v));
}

/** A store id is `<prefix>_<rowid>`; returns the rowid or null for anything else. */
export function parseId(prefix: string, id: string | number): number | null {
  if (typeof id === 'number') return Number.isSafeInteger(id) && id > 0 ? id : null;
  const m = /^([a-z]+)_(\d{1,15})$/.exec(String(id));
  if (!m || m[1] !== prefix) return null;
  const n = Number(m[2]);
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

/** Escape a user pattern for `LIKE ? ESCAPE '\'` as a case-insensitive substring match. */
export function likePattern(pattern: string): string {
  return `%${pattern.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export function normalizeTags(tags: unknown, field = 'tags'): string[] {
  if (tags === undefined || tags === null) return [];
  if (!Array.isArray(tags)) throw validationError(field, `${field} must be a list of strings`);
  const out: string[] = [];
  for (const t of tags) {
    if (typeof t !== 'string') throw validationError(field, `${field} must be a list of strings`);
    const v = t.trim();
    if (v.length === 0) continue;
    if (v.length > 200) throw validationError(field, `a tag is longer than 200 characters`);
    if (!out.includes(v)) out.push(v);
  }
  return out;
}
