import type { StoreContext } from './context.js';
import { validationError } from './errors.js';
import { checkIsoTimestamp, checkTimeRange, ISO_TIMESTAMP_ACCEPTED } from './iso-time.js';
import { facetGroups } from './tags.js';
import type { Scope } from './types.js';
import { checkScope, checkText, normalizeTags, wordFilterArgs, wordFilterSql, wordsMatcher } from './util.js';
import type { WikiPageInfo } from './wiki.js';
import { INFO_COLS, toInfo, type WikiRow } from './wiki-row.js';
import { checkWikiType } from './wiki-types.js';

export { checkIsoTimestamp, ISO_TIMESTAMP_ACCEPTED };

/** The most pages one wiki_query answers (the spec's query limit), and the default. */
export const WIKI_QUERY_MAX_LIMIT = 200;
export const WIKI_QUERY_DEFAULT_LIMIT = 50;
/** The longest content pattern, in characters. */
export const WIKI_QUERY_CONTENT_MAX = 1000;
/** The longest title pattern, in characters (the longest title: WIKI_TITLE_MAX). */
export const WIKI_QUERY_TITLE_MAX = 300;

/** The time fields of a wiki query, each an ISO 8601 timestamp, bounds included. */
export const WIKI_QUERY_RANGES = ['created_since', 'created_until', 'updated_since', 'updated_until'] as const;

/** A structured filter over the pages of a scope; every field left out matches every page. */
export interface WikiQuery {
  wiki_type?: string;
  /** Faceted: tags of one dimension (`dim:value`; a plain tag is its own) any of, dimensions all of. */
  tags?: readonly string[];
  /** Whole words of the title, folded (case, accents, full-width), as a phrase. */
  title?: string;
  /** Whole words of the content, folded, as a phrase. */
  content?: string;
  created_since?: string;
  created_until?: string;
  updated_since?: string;
  updated_until?: string;
  limit?: number;
  offset?: number;
}

export interface WikiQueryResult {
  /** Most recently updated first, then the newest id first. */
  pages: WikiPageInfo[];
  /** Every page matching, beyond this page of results too. */
  total: number;
}

function checkCount(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw validationError(field, `${field} must be a whole number from ${min} to ${max}`, `${min}..${max}`);
  }
  return value;
}

/** A text filter: a non-blank string of at most `max` characters. */
function checkPattern(value: unknown, field: string, max: number): string {
  return checkText(value, field, max).trim();
}

/**
 * The pages of the scope that match every filter given, most recently updated first (then the
 * newest id), `limit` of them from `offset`, with the total matching. Tags, type and times are
 * filtered in SQL; a title or content pattern is prefiltered in SQL (wordFilterSql, whose LIKE
 * escapes the pattern's `%`, `_` and `\`) and checked as whole words in JavaScript (wordsMatcher),
 * the rule forget's fuzzy scope and dream share. Content is the page's index copy.
 */
export function wikiQuery(ctx: StoreContext, scope: Scope, q: WikiQuery): WikiQueryResult {
  checkScope(scope);
  const limit = checkCount(q.limit ?? WIKI_QUERY_DEFAULT_LIMIT, 'limit', 1, WIKI_QUERY_MAX_LIMIT);
  const offset = checkCount(q.offset ?? 0, 'offset', 0, 1_000_000);
  const where = ['layer = ?', 'user_id = ?'];
  const args: unknown[] = [scope.layer, scope.user_id];
  if (q.wiki_type !== undefined) {
    where.push('wiki_type = ?');
    args.push(checkWikiType(q.wiki_type));
  }
  if (q.tags !== undefined) {
    if (Array.isArray(q.tags) && q.tags.length > 50) throw validationError('tags', 'tags must hold at most 50 tags');
    const groups = facetGroups(normalizeTags(q.tags, 'tags', { held: 'any' }));
    if (groups.length > 0) {
      // One clause of one shape however many tags (the statement cache is keyed by the SQL text):
      // no dimension of the filter lacks a tag of the page.
      where.push(
        'NOT EXISTS (SELECT 1 FROM json_each(?) AS g WHERE NOT EXISTS (SELECT 1 FROM json_each(wiki_pages.tags) AS t WHERE t.value IN (SELECT value FROM json_each(g.value))))',
      );
      args.push(JSON.stringify(groups));
    }
  }
  const times: Partial<Record<(typeof WIKI_QUERY_RANGES)[number], string>> = {};
  for (const field of WIKI_QUERY_RANGES) {
    if (q[field] === undefined) continue;
    const until = field.endsWith('until');
    const iso = checkIsoTimestamp(q[field], field, until ? 'end' : 'start');
    times[field] = iso;
    where.push(`${field.startsWith('created') ? 'created' : 'updated'} ${until ? '<=' : '>='} ?`);
    args.push(iso);
  }
  for (const col of ['created', 'updated'] as const) checkTimeRange(times[`${col}_since`], times[`${col}_until`], `${col}_since`, `${col}_until`);
  const matchers: ((r: WikiRow) => boolean)[] = [];
  const title = q.title === undefined ? undefined : checkPattern(q.title, 'title', WIKI_QUERY_TITLE_MAX);
  const content = q.content === undefined ? undefined : checkPattern(q.content, 'content', WIKI_QUERY_CONTENT_MAX);
  for (const [col, pattern] of [
    ['title', title],
    ['content', content],
  ] as const) {
    if (pattern === undefined) continue;
    where.push(wordFilterSql(col));
    args.push(...wordFilterArgs(pattern));
    const matches = wordsMatcher(pattern);
    matchers.push((r) => matches(r[col]));
  }
  const sql = `FROM wiki_pages WHERE ${where.join(' AND ')}`;
  if (matchers.length === 0) {
    const total = (ctx.stmt(`SELECT COUNT(*) AS n ${sql}`).get(...args) as { n: number }).n;
    const rows = ctx.stmt(`SELECT ${INFO_COLS} ${sql} ORDER BY updated DESC, id DESC LIMIT ? OFFSET ?`).all(...args, limit, offset) as WikiRow[];
    return { pages: rows.map(toInfo), total };
  }
  // The prefilter's rows are read one at a time: the total counts every match, the page keeps its slice.
  const cols = `${INFO_COLS}${content === undefined ? '' : ', content'}`;
  const rows = ctx.stmt(`SELECT ${cols} ${sql} ORDER BY updated DESC, id DESC`).iterate(...args) as IterableIterator<WikiRow>;
  const pages: WikiPageInfo[] = [];
  let total = 0;
  for (const r of rows) {
    if (!matchers.every((m) => m(r))) continue;
    if (total >= offset && pages.length < limit) pages.push(toInfo(r));
    total++;
  }
  return { pages, total };
}
