import { cutChars } from '@memory-service/kernel';
import type { AuditLog } from './audit.js';
import type { StoreContext } from './context.js';
import { validationError } from './errors.js';
import { memoryQuerySql, type MemoryQuery } from './memory-query.js';
import { facetSql, tagDimension } from './tags.js';
import { writtenText } from './thought-link.js';
import type { Layer, Scope } from './types.js';
import { checkScope, checkText, checkWordPattern, clamp, foldedTermsFilter, makeId, rowsMatching, wordFilterArgs, wordFilterSql, normalizeTags, parseId, parseJson, checkMatchPattern } from './util.js';

export interface Episode {
  id: string;
  layer: Layer;
  user_id: string;
  summary: string;
  emotional_weight: number;
  importance: number;
  tags: string[];
  meta: Record<string, unknown>;
  /** Neighbouring context (the thought just before this one), indexed at a low weight for retrieval. */
  context: string;
  created: string;
  access_count: number;
  last_access: string | null;
}

export interface EpisodeInput {
  summary: string;
  /** Neighbouring context indexed with the episode (e.g. the previous thought of the same conversation). */
  context?: string;
  emotional_weight?: number;
  tags?: string[];
  importance?: number;
  meta?: Record<string, unknown>;
}

export interface EpisodeListOptions {
  limit?: number;
  offset?: number;
  /** Faceted filter: same dimension OR, different dimensions AND. */
  tag?: string | string[];
  /** Only episodes created at or after this ISO time. */
  since?: string;
  /** Only episodes created at or before this ISO time. */
  until?: string;
}

interface Row {
  id: number;
  layer: Layer;
  user_id: string;
  summary: string;
  emotional_weight: number;
  importance: number;
  tags: string;
  meta: string;
  context: string | null;
  created: string;
  access_count: number;
  last_access: string | null;
}
/** A row of its table as SELECT * reads it. */
export type EpisodeRow = Row;

export const EPISODE_PREFIX = 'ep';
/** The tag of a dream marker: an episode that is an agent's note for its next session (docs/decisions.md). */
export const DREAM_MARKER_TAG = 'dream_marker';
/** Longest neighbouring context kept with an episode. */
export const EPISODE_CONTEXT_MAX_CHARS = 1000;

/** A record as its store answers it, from its table row (SELECT *). */
export function toEpisode(r: EpisodeRow): Episode {
  return {
    id: makeId(EPISODE_PREFIX, r.id),
    layer: r.layer,
    user_id: r.user_id,
    summary: r.summary,
    emotional_weight: r.emotional_weight,
    importance: r.importance,
    tags: parseJson<string[]>(r.tags, []),
    meta: parseJson<Record<string, unknown>>(r.meta, {}),
    context: r.context ?? '',
    created: r.created,
    access_count: r.access_count,
    last_access: r.last_access,
  };
}

/** L3 episodic memory. Ids are `ep_<n>`. Tags are also kept in `episode_tags` for indexed faceted filters. */
export class EpisodeStore {
  constructor(
    private readonly ctx: StoreContext,
    private readonly audit: AuditLog,
  ) {}

  /** Add an episode created at `created` (ISO; default now: memory_data import gives each its exported time). */
  add(scope: Scope, input: EpisodeInput, created?: string): Episode {
    checkScope(scope);
    const summary = checkText(input.summary, 'summary', this.ctx.config.maxTextChars);
    // Tags are printed on one line (lists, digests): a line break in one forged lines there.
    const tags = normalizeTags(input.tags, 'tags', { oneLine: true });
    const meta = input.meta ?? {};
    if (typeof meta !== 'object' || Array.isArray(meta)) throw validationError('meta', 'meta must be an object');
    return this.ctx.tx(() => this.insert(scope, null, summary, input, tags, meta, created ?? this.ctx.iso()));
  }

  /**
   * Clear the neighbouring context of the scope's episodes whose context holds the pattern as whole words,
   * so forgotten text does not live on as another memory's context. Returns how many were cleared.
   */
  scrubContext(scope: Scope, pattern: string): number {
    checkScope(scope);
    checkMatchPattern(pattern, this.ctx.config.maxTextChars);
    return this.ctx.tx(() => {
      const candidates = this.ctx
        .stmt(`SELECT id, context FROM episodes WHERE layer = ? AND user_id = ? AND ${wordFilterSql('context')}`)
        .all(scope.layer, scope.user_id, ...wordFilterArgs(pattern)) as { id: number; context: string }[];
      const clear = this.ctx.stmt(`UPDATE episodes SET context = '' WHERE id = ?`);
      const hit = rowsMatching(candidates, pattern, (r) => [r.context], Infinity);
      for (const r of hit) clear.run(r.id);
      return hit.length;
    });
  }

  /**
   * Clear the neighbouring context of the scope's episodes that pass `test`, reading only those
   * whose context holds one of the folded `terms` (foldedTermsFilter; all of them when none is
   * given). Returns how many were cleared.
   */
  scrubContextWhere(scope: Scope, terms: readonly string[], test: (context: string) => boolean): number {
    checkScope(scope);
    const filter = foldedTermsFilter(['context'], terms);
    return this.ctx.tx(() => {
      const candidates = this.ctx
        .stmt(`SELECT id, context FROM episodes WHERE layer = ? AND user_id = ? AND context <> ''${filter ? ` AND ${filter.sql}` : ''}`)
        .all(scope.layer, scope.user_id, ...(filter?.args ?? [])) as { id: number; context: string }[];
      const clear = this.ctx.stmt(`UPDATE episodes SET context = '' WHERE id = ?`);
      const hit = candidates.filter((r) => test(r.context));
      for (const r of hit) clear.run(r.id);
      return hit.length;
    });
  }

  /** Re-insert an archived episode, keeping its id when that id is free (Shadow Bin restore). */
  restore(scope: Scope, ep: Episode): Episode {
    checkScope(scope);
    return this.ctx.tx(() => {
      const n = parseId(EPISODE_PREFIX, ep.id);
      const free = n !== null && !this.ctx.stmt('SELECT 1 FROM episodes WHERE id = ?').get(n);
      return this.insert(scope, free ? n : null, ep.summary, ep, normalizeTags(ep.tags, 'tags', { held: 'any' }), ep.meta ?? {}, ep.created, 'restore');
    });
  }

  get(scope: Scope, id: string): Episode | null {
    checkScope(scope);
    const n = parseId(EPISODE_PREFIX, id);
    if (n === null) return null;
    const r = this.ctx
      .stmt('SELECT * FROM episodes WHERE id = ? AND layer = ? AND user_id = ?')
      .get(n, scope.layer, scope.user_id) as Row | undefined;
    return r ? toEpisode(r) : null;
  }

  /** Newest first. */
  list(scope: Scope, opts: EpisodeListOptions = {}): Episode[] {
    const limit = clamp(Math.floor(opts.limit ?? 20), 0, 10_000);
    const offset = Math.max(0, Math.floor(opts.offset ?? 0));
    const { where, params } = this.listSql(scope, opts);
    const rows = this.ctx
      .stmt(`SELECT e.* FROM episodes e WHERE ${where} ORDER BY e.id DESC LIMIT ? OFFSET ?`)
      .all(...params, limit, offset) as Row[];
    return rows.map(toEpisode);
  }

  /** How many episodes list() pages through for the same filter (every page's `total`). */
  countListed(scope: Scope, opts: Pick<EpisodeListOptions, 'tag' | 'since'> = {}): number {
    const { where, params } = this.listSql(scope, opts);
    return this.ctx.stmt(`SELECT COUNT(*) FROM episodes e WHERE ${where}`).pluck(true).get(...params) as number;
  }

  /** The WHERE clause (over `episodes e`) of a listing: the scope, the faceted tags, the time. */
  private listSql(scope: Scope, opts: Pick<EpisodeListOptions, 'tag' | 'since' | 'until'>): { where: string; params: (string | number)[] } {
    checkScope(scope);
    const where = ['e.layer = ?', 'e.user_id = ?'];
    const params: (string | number)[] = [scope.layer, scope.user_id];
    const tagFilter = opts.tag === undefined ? [] : Array.isArray(opts.tag) ? opts.tag : [opts.tag];
    if (tagFilter.length > 0) {
      const f = facetSql(tagFilter, 'e.id', 'episode_tags', 'episode_id', scope.layer, scope.user_id);
      if (f.sql) {
        where.push(f.sql);
        params.push(...f.params);
      }
    }
    if (opts.since !== undefined) {
      where.push('e.created >= ?');
      params.push(opts.since);
    }
    if (opts.until !== undefined) {
      where.push('e.created <= ?');
      params.push(opts.until);
    }
    return { where: where.join(' AND '), params };
  }

  /**
   * The newest episode of the scope whose summary is exactly `summary` (case and white space as
   * stored), tagged `tag`, created from the ISO time `since` up to now, both included
   * (StoreContext.window: an episode dated after now, the clock stepped back or an imported future
   * date, is not a recent one); null when there is none. One lookup: the scope's episodes of the
   * window are read through the (layer, user_id, created) index and their summary compared in
   * SQLite, so nothing is loaded for the episodes that differ.
   */
  latestWithSummary(scope: Scope, summary: string, opts: { tag: string; since: string }): Episode | null {
    checkScope(scope);
    const w = this.ctx.window(opts.since);
    const row = this.ctx
      .stmt(
        `SELECT e.* FROM episodes e INDEXED BY episodes_created
         WHERE e.layer = ? AND e.user_id = ? AND e.created >= ? AND e.created <= ? AND e.summary = ?
           AND EXISTS (SELECT 1 FROM episode_tags t WHERE t.layer = e.layer AND t.user_id = e.user_id AND t.tag = ? AND t.episode_id = e.id)
         ORDER BY e.id DESC LIMIT 1`,
      )
      .get(scope.layer, scope.user_id, w.since, w.until, summary, opts.tag) as Row | undefined;
    return row ? toEpisode(row) : null;
  }

  /**
   * memory_query over the scope's episodes (memory-query.ts): newest created first, then the newest
   * id, a page of `limit` from `offset`, with the total matching. A read: no access is recorded.
   * content_like is the summary (it reads every episode of the scope the other filters leave).
   */
  query(scope: Scope, q: MemoryQuery): { episodes: Episode[]; total: number } {
    checkScope(scope);
    const { where, params, limit, offset } = memoryQuerySql(scope, q, 'episodes', { content: 'summary', tags: { table: 'episode_tags', fk: 'episode_id' } });
    const total = (this.ctx.stmt(`SELECT COUNT(*) AS n FROM episodes t WHERE ${where}`).get(...params) as { n: number }).n;
    const rows = this.ctx
      .stmt(`SELECT t.* FROM episodes t WHERE ${where} ORDER BY t.created DESC, t.id DESC LIMIT ? OFFSET ?`)
      .all(...params, limit, offset) as Row[];
    return { episodes: rows.map(toEpisode), total };
  }

  count(scope: Scope): number {
    checkScope(scope);
    return (
      this.ctx.stmt('SELECT COUNT(*) AS n FROM episodes WHERE layer = ? AND user_id = ?').get(scope.layer, scope.user_id) as {
        n: number;
      }
    ).n;
  }

  /** Set an episode's importance (clamped to 0.05..1.0, logged in importance_audit); null when absent. */
  setImportance(scope: Scope, id: string, importance: number, reason: string): Episode | null {
    checkScope(scope);
    return this.ctx.tx(() => {
      const ep = this.get(scope, id);
      if (!ep) return null;
      const next = Math.round(clamp(importance, 0.05, 1) * 10_000) / 10_000;
      if (next === ep.importance) return ep;
      this.ctx.stmt('UPDATE episodes SET importance = ? WHERE id = ?').run(next, parseId(EPISODE_PREFIX, id) as number);
      this.audit.logImportance(ep.id, ep.importance, next, reason);
      this.audit.log(scope, 'importance', 'episode', ep.id, { old: ep.importance, new: next, reason });
      return this.get(scope, id);
    });
  }

  /** How many episodes of the scope carry the tag, optionally only those created from the ISO time up to now (StoreContext.window). */
  countTagged(scope: Scope, tag: string, sinceIso?: string): number {
    checkScope(scope);
    const w = sinceIso === undefined ? null : this.ctx.window(sinceIso);
    return this.ctx
      .stmt(
        `SELECT COUNT(*) FROM episode_tags t JOIN episodes e ON e.id = t.episode_id
         WHERE t.layer = ? AND t.user_id = ? AND t.tag = ? AND (? IS NULL OR (e.created >= ? AND e.created <= ?))`,
      )
      .pluck(true)
      .get(scope.layer, scope.user_id, tag, w?.since ?? null, w?.since ?? null, w?.until ?? null) as number;
  }

  /** The scope's episodes just before and just after this one (by id), either null at an end. */
  neighbours(scope: Scope, id: string): { before: Episode | null; after: Episode | null } {
    checkScope(scope);
    const n = parseId(EPISODE_PREFIX, id);
    if (n === null) return { before: null, after: null };
    const b = this.ctx.stmt('SELECT * FROM episodes WHERE layer = ? AND user_id = ? AND id < ? ORDER BY id DESC LIMIT 1').get(scope.layer, scope.user_id, n) as Row | undefined;
    const a = this.ctx.stmt('SELECT * FROM episodes WHERE layer = ? AND user_id = ? AND id > ? ORDER BY id LIMIT 1').get(scope.layer, scope.user_id, n) as Row | undefined;
    return { before: b ? toEpisode(b) : null, after: a ? toEpisode(a) : null };
  }

  /**
   * Replace an episode's tags; returns the updated episode or null when absent. The tags it holds
   * already stay, even one stored before tags were checked, and so do those in `opts.held` (tags
   * other records held: memory_cleanup merging duplicates; 'any' for all).
   */
  setTags(scope: Scope, id: string, tags: string[], opts: { held?: readonly string[] | 'any' } = {}): Episode | null {
    checkScope(scope);
    return this.ctx.tx(() => {
      const ep = this.get(scope, id);
      if (!ep) return null;
      const held = opts.held === 'any' ? 'any' : [...ep.tags, ...(opts.held ?? [])];
      const clean = normalizeTags(tags, 'tags', { oneLine: true, held });
      const n = parseId(EPISODE_PREFIX, id) as number;
      this.ctx.stmt('UPDATE episodes SET tags = ? WHERE id = ?').run(JSON.stringify(clean), n);
      this.ctx.stmt('DELETE FROM episode_tags WHERE episode_id = ?').run(n);
      this.writeTags(scope, n, clean);
      this.audit.log(scope, 'update', 'episode', ep.id, { tags: clean });
      return this.get(scope, id);
    });
  }

  delete(scope: Scope, id: string): Episode | null {
    checkScope(scope);
    return this.ctx.tx(() => {
      const ep = this.get(scope, id);
      if (!ep) return null;
      this.ctx.stmt('DELETE FROM episodes WHERE id = ?').run(parseId(EPISODE_PREFIX, id));
      this.audit.log(scope, 'delete', 'episode', ep.id);
      return ep;
    });
  }

  /**
   * Episodes whose summary holds the pattern as whole words (folded: case, accents, full-width
   * forms; util.wordsMatcher), without deleting. A long thought's link is matched without the page
   * title and path it ends with (writtenText): those are the service's words, not the user's.
   */
  findMatching(scope: Scope, pattern: string, limit = 10_000): Episode[] {
    checkScope(scope);
    checkMatchPattern(pattern, this.ctx.config.maxTextChars);
    const rows = this.ctx
      .stmt(`SELECT * FROM episodes WHERE layer = ? AND user_id = ? AND ${wordFilterSql('summary')} ORDER BY id`)
      .iterate(scope.layer, scope.user_id, ...wordFilterArgs(pattern)) as IterableIterator<Row>;
    return rowsMatching(rows, pattern, (r) => [writtenText(r.summary)], limit).map(toEpisode);
  }

  /**
   * The episodes of the scope whose metadata names this wiki page path (`wiki_path`: think's link to
   * a long thought's page), oldest first. The path is looked for in the stored JSON, then checked parsed.
   */
  namingWikiPath(scope: Scope, wikiPath: string): Episode[] {
    checkScope(scope);
    const rows = this.ctx
      .stmt('SELECT * FROM episodes WHERE layer = ? AND user_id = ? AND instr(meta, ?) > 0 ORDER BY id')
      .all(scope.layer, scope.user_id, JSON.stringify(wikiPath)) as Row[];
    return rows.map(toEpisode).filter((e) => e.meta.wiki_path === wikiPath);
  }

  /** Delete the episodes whose summary holds the pattern (which needs a letter or digit) as whole words; returns them. */
  deleteMatching(scope: Scope, pattern: string): Episode[] {
    checkWordPattern(pattern);
    return this.ctx.tx(() =>
      this.audit.deleteLogged(scope, 'episodes', 'episode', this.findMatching(scope, pattern), (ep) => ({
        rowid: parseId(EPISODE_PREFIX, ep.id),
        id: ep.id,
        detail: { pattern },
      })),
    );
  }

  /** Delete every episode created at or after the ISO time; returns the count. */
  deleteSince(scope: Scope, sinceIso: string): number {
    const w = this.ctx.window(sinceIso);
    sinceIso = w.since;
    checkScope(scope);
    return this.ctx.tx(() => {
      const n = this.ctx
        .stmt('DELETE FROM episodes WHERE layer = ? AND user_id = ? AND created >= ? AND created <= ?')
        .run(scope.layer, scope.user_id, w.since, w.until).changes;
      if (n > 0) this.audit.log(scope, 'delete_since', 'episode', `since:${sinceIso}`, { count: n });
      return n;
    });
  }

  /** Record a retrieval access on each episode id (ids of other stores are ignored). */
  touch(ids: readonly string[]): void {
    this.ctx.bumpAccess('episodes', EPISODE_PREFIX, ids);
  }

  private insert(
    scope: Scope,
    id: number | null,
    summary: string,
    input: { emotional_weight?: number; importance?: number; context?: string },
    tags: string[],
    meta: Record<string, unknown>,
    created: string,
    action = 'create',
  ): Episode {
    const context = typeof input.context === 'string' ? cutChars(input.context, EPISODE_CONTEXT_MAX_CHARS) : '';
    const info = this.ctx
      .stmt(
        `INSERT INTO episodes (id, layer, user_id, summary, emotional_weight, importance, tags, meta, context, created)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        scope.layer,
        scope.user_id,
        summary,
        clamp(input.emotional_weight ?? 0, 0, 1),
        clamp(input.importance ?? 0.5, 0, 1),
        JSON.stringify(tags),
        JSON.stringify(meta),
        context,
        created,
      );
    const n = Number(info.lastInsertRowid);
    this.writeTags(scope, n, tags);
    const epId = makeId(EPISODE_PREFIX, n);
    this.audit.log(scope, action, 'episode', epId, { tags });
    return {
      id: epId,
      layer: scope.layer,
      user_id: scope.user_id,
      summary,
      emotional_weight: clamp(input.emotional_weight ?? 0, 0, 1),
      importance: clamp(input.importance ?? 0.5, 0, 1),
      tags,
      meta,
      context,
      created,
      access_count: 0,
      last_access: null,
    };
  }

  private writeTags(scope: Scope, n: number, tags: string[]): void {
    const st = this.ctx.stmt('INSERT OR IGNORE INTO episode_tags (episode_id, layer, user_id, dimension, tag) VALUES (?, ?, ?, ?, ?)');
    for (const t of tags) st.run(n, scope.layer, scope.user_id, tagDimension(t), t);
  }
}
