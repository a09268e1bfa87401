import { toNfc } from '@memory-service/kernel';
import { validationError } from './errors.js';
import { facetSql } from './tags.js';
import type { Scope } from './types.js';
import { checkIsoTimestamp, checkTimeRange } from './iso-time.js';

/** The most records one memory_query answers (the spec's query limit), and the default. */
export const MEMORY_QUERY_MAX_LIMIT = 200;
export const MEMORY_QUERY_DEFAULT_LIMIT = 50;
/** The longest key_like / content_like substring, in characters. */
export const MEMORY_QUERY_LIKE_MAX = 500;
/** What memory_query reads: core memory (L4 facts) or episodes (L3). */
export const MEMORY_QUERY_TARGETS = ['core', 'episodes'] as const;
export type MemoryQueryTarget = (typeof MEMORY_QUERY_TARGETS)[number];

/**
 * A read-only filter over the facts or episodes of a scope; every field left out matches every
 * record. key_like and content_like are plain substrings (not LIKE patterns: % and _ are literal),
 * matched ignoring ASCII case. Times are ISO 8601 (checkIsoTimestamp), bounds included.
 */
export interface MemoryQuery {
  importance_min?: number;
  importance_max?: number;
  /** Core memory only: a substring of the fact's key. */
  key_like?: string;
  /** A substring of the fact's value or the episode's summary. */
  content_like?: string;
  created_since?: string;
  created_until?: string;
  /** Episodes only: faceted tags, same dimension any of, different dimensions all of. */
  tag?: string | readonly string[];
  limit?: number;
  offset?: number;
}

/** The pattern for `LIKE ? ESCAPE '\'` that holds `text` as a plain substring: its \, % and _ escaped. */
export function substringLike(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function checkImportance(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw validationError(field, `${field} must be a number from 0 to 1`, '0..1');
  }
  return value;
}

function checkSubstring(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MEMORY_QUERY_LIKE_MAX) {
    throw validationError(field, `${field} must be a plain substring of 1 to ${MEMORY_QUERY_LIKE_MAX} characters`, `1..${MEMORY_QUERY_LIKE_MAX} characters`);
  }
  return value;
}

function checkCount(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw validationError(field, `${field} must be a whole number from ${min} to ${max}`, `${min}..${max}`);
  }
  return value;
}

export interface MemoryQuerySql {
  /** Conditions joined by AND, each with `?` parameters only. */
  where: string;
  params: (string | number)[];
  limit: number;
  offset: number;
}

/**
 * The checked WHERE clause of a memory query over one table (alias `t`): the scope first, so the
 * (layer, user_id, ...) indexes are used; user text only ever reaches SQL as a parameter.
 */
export function memoryQuerySql(
  scope: Scope,
  q: MemoryQuery,
  target: MemoryQueryTarget,
  cols: { content: string; key?: string; tags?: { table: string; fk: string } },
): MemoryQuerySql {
  const where = ['t.layer = ?', 't.user_id = ?'];
  const params: (string | number)[] = [scope.layer, scope.user_id];
  const min = q.importance_min === undefined ? undefined : checkImportance(q.importance_min, 'importance_min');
  const max = q.importance_max === undefined ? undefined : checkImportance(q.importance_max, 'importance_max');
  if (min !== undefined && max !== undefined && min > max) throw validationError('importance_min', 'importance_min must not be above importance_max', `0..${max}`);
  if (min !== undefined) {
    where.push('t.importance >= ?');
    params.push(min);
  }
  if (max !== undefined) {
    where.push('t.importance <= ?');
    params.push(max);
  }
  const since = q.created_since === undefined ? undefined : checkIsoTimestamp(q.created_since, 'created_since');
  const until = q.created_until === undefined ? undefined : checkIsoTimestamp(q.created_until, 'created_until', 'end');
  checkTimeRange(since, until, 'created_since', 'created_until');
  if (since !== undefined) {
    where.push('t.created >= ?');
    params.push(since);
  }
  if (until !== undefined) {
    where.push('t.created <= ?');
    params.push(until);
  }
  if (q.key_like !== undefined) {
    if (!cols.key) throw validationError('key_like', `key_like applies to target core only, not ${target}`, ['core']);
    where.push(`t.${cols.key} LIKE ? ESCAPE '\\'`);
    // Keys are stored in NFC (fact keys), so the pattern is taken in NFC too: one sent decomposed finds them.
    params.push(substringLike(toNfc(checkSubstring(q.key_like, 'key_like'))));
  }
  if (q.content_like !== undefined) {
    where.push(`t.${cols.content} LIKE ? ESCAPE '\\'`);
    params.push(substringLike(checkSubstring(q.content_like, 'content_like')));
  }
  if (q.tag !== undefined) {
    if (!cols.tags) throw validationError('tag', `tag applies to target episodes only, not ${target}`, ['episodes']);
    const tags = typeof q.tag === 'string' ? [q.tag] : q.tag;
    if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string' || t.length > 200) || tags.length > 50) {
      throw validationError('tag', 'tag must be a tag or a list of at most 50 tags of at most 200 characters', 'faceted tags dimension:value');
    }
    const f = facetSql(tags, 't.id', cols.tags.table, cols.tags.fk, scope.layer, scope.user_id);
    if (f.sql) {
      where.push(f.sql);
      params.push(...f.params);
    }
  }
  const limit = q.limit === undefined ? MEMORY_QUERY_DEFAULT_LIMIT : checkCount(q.limit, 'limit', 1, MEMORY_QUERY_MAX_LIMIT);
  const offset = q.offset === undefined ? 0 : checkCount(q.offset, 'offset', 0, 1_000_000);
  return { where: where.join(' AND '), params, limit, offset };
}
