import type { AuditLog } from './audit.js';
import type { StoreContext } from './context.js';
import type { Episode, EpisodeStore } from './episodes.js';
import { notFound, StoreError, validationError } from './errors.js';
import type { Fact, FactStore } from './facts.js';
import { derivedNodeIds, type GraphNode, type GraphStore } from './graph.js';
import type { Layer, Scope } from './types.js';
import { checkScope, checkText, makeId, parseId, parseJson } from './util.js';
import type { WikiPage, WikiStore } from './wiki.js';

/** The stores an archived record can come from and be restored into. */
export const SHADOW_ORIGINS = ['l4', 'l3', 'graph', 'wiki'] as const;
export type ShadowOrigin = (typeof SHADOW_ORIGINS)[number];

export interface ShadowEntry {
  id: string;
  layer: Layer;
  user_id: string;
  origin_store: ShadowOrigin;
  /** The fact key (l4), episode id (l3), node id (graph) or page title (wiki). */
  origin_id: string;
  content: unknown;
  reason: string;
  archived: string;
  restored: string | null;
}

export interface ShadowArchiveInput {
  origin_store: ShadowOrigin;
  origin_id: string;
  /** The record as returned by its store (JSON-serialisable). */
  content: unknown;
  reason: string;
}

interface Row {
  id: number;
  layer: Layer;
  user_id: string;
  origin_store: ShadowOrigin;
  origin_id: string;
  content: string;
  reason: string;
  archived: string;
  restored: string | null;
}

function toEntry(r: Row): ShadowEntry {
  return { ...r, id: makeId('bin', r.id), content: parseJson<unknown>(r.content, null) };
}

interface Targets {
  facts: FactStore;
  episodes: EpisodeStore;
  graph: GraphStore;
  wiki: WikiStore;
}

/** The Shadow Bin: a soft-delete archive of content taken before deletion, restorable into its origin store. */
export class ShadowBin {
  constructor(
    private readonly ctx: StoreContext,
    private readonly audit: AuditLog,
    private readonly targets: Targets,
  ) {}

  archive(scope: Scope, input: ShadowArchiveInput): ShadowEntry {
    checkScope(scope);
    if (!(SHADOW_ORIGINS as readonly string[]).includes(input.origin_store)) {
      throw validationError('origin_store', `origin_store must be one of ${SHADOW_ORIGINS.join(', ')}`, SHADOW_ORIGINS);
    }
    const originId = checkText(input.origin_id, 'origin_id', 1000);
    const reason = checkText(input.reason ?? '', 'reason', 2000, true);
    const content = JSON.stringify(input.content ?? null);
    return this.ctx.tx(() => {
      const archived = this.ctx.iso();
      const info = this.ctx
        .stmt(
          `INSERT INTO shadow_bin (layer, user_id, origin_store, origin_id, content, reason, archived)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(scope.layer, scope.user_id, input.origin_store, originId, content, reason, archived);
      // The row as get() would read it back, without reading it (a mass forget archives row by row).
      const row: Row = { id: Number(info.lastInsertRowid), layer: scope.layer, user_id: scope.user_id, origin_store: input.origin_store, origin_id: originId, content, reason, archived, restored: null };
      const entry = toEntry(row);
      this.audit.log(scope, 'archive', 'shadow_bin', entry.id, { origin_store: input.origin_store, origin_id: originId, reason });
      return entry;
    });
  }

  get(id: string): ShadowEntry | null {
    const n = parseId('bin', id);
    if (n === null) return null;
    const r = this.ctx.stmt('SELECT * FROM shadow_bin WHERE id = ?').get(n) as Row | undefined;
    return r ? toEntry(r) : null;
  }

  /** Archived entries of the scope, newest first; restored ones only when asked. */
  list(scope: Scope, opts: { limit?: number; includeRestored?: boolean; origin_store?: ShadowOrigin } = {}): ShadowEntry[] {
    checkScope(scope);
    const limit = Math.max(0, Math.floor(opts.limit ?? 100));
    const where = ['layer = ?', 'user_id = ?'];
    const params: (string | number)[] = [scope.layer, scope.user_id];
    if (!opts.includeRestored) where.push('restored IS NULL');
    if (opts.origin_store !== undefined) {
      where.push('origin_store = ?');
      params.push(opts.origin_store);
    }
    const rows = this.ctx
      .stmt(`SELECT * FROM shadow_bin WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ?`)
      .all(...params, limit) as Row[];
    return rows.map(toEntry);
  }

  count(scope: Scope): number {
    checkScope(scope);
    return (
      this.ctx
        .stmt('SELECT COUNT(*) AS n FROM shadow_bin WHERE layer = ? AND user_id = ? AND restored IS NULL')
        .get(scope.layer, scope.user_id) as { n: number }
    ).n;
  }

  /**
   * Re-insert an archived record into its origin store (keeping its id where that id is free)
   * and mark the entry restored. Returns the restored record.
   */
  restore(id: string): { entry: ShadowEntry; record: Fact | Episode | GraphNode | WikiPage } {
    return this.ctx.tx(() => {
      const entry = this.get(id);
      if (!entry) throw notFound('shadow bin entry', id);
      if (entry.restored) {
        throw new StoreError('STORES_ERR_CONFLICT', `shadow bin entry ${id} was already restored at ${entry.restored}`);
      }
      const scope: Scope = { layer: entry.layer, user_id: entry.user_id };
      const c = entry.content as Record<string, unknown>;
      if (typeof c !== 'object' || c === null) throw validationError('content', `shadow bin entry ${id} holds no record`);
      let record: Fact | Episode | GraphNode | WikiPage;
      switch (entry.origin_store) {
        case 'l4':
          record = this.targets.facts.restore(scope, c as unknown as Fact);
          break;
        case 'l3':
          record = this.targets.episodes.restore(scope, c as unknown as Episode);
          break;
        case 'graph':
          record = this.targets.graph.restore(scope, c as unknown as GraphNode);
          break;
        case 'wiki': {
          const p = c as unknown as WikiPage;
          record = this.targets.wiki.save(scope, { title: p.title, content: p.content, wiki_type: p.wiki_type, tags: p.tags });
          break;
        }
      }
      const now = this.ctx.iso();
      this.ctx.stmt('UPDATE shadow_bin SET restored = ? WHERE id = ?').run(now, parseId('bin', id));
      this.audit.log(scope, 'restore', 'shadow_bin', entry.id, { origin_store: entry.origin_store, origin_id: entry.origin_id });
      return { entry: { ...entry, restored: now }, record };
    });
  }

  /**
   * Delete the wiki page with this title, archiving it first (content, type, tags) when `archive`:
   * one transaction, so a page is never deleted unarchived nor archived and kept. Its links go with
   * it (counted in `links`). Null when the scope has no such page.
   */
  deleteWikiPage(scope: Scope, title: string, archive: boolean, reason = 'wiki_delete'): { page: WikiPage; entry: ShadowEntry | null; links: number } | null {
    checkScope(scope);
    return this.ctx.tx(() => {
      const page = this.targets.wiki.getByTitle(scope, title);
      if (!page) return null;
      const linked = this.targets.wiki.links(scope, page.title);
      const entry = archive ? this.archive(scope, { origin_store: 'wiki', origin_id: page.title, content: page, reason }) : null;
      this.targets.wiki.delete(scope, page.title);
      // A link from the page to itself is one row, listed both in and out.
      return { page, entry, links: linked.out.length + linked.in.filter((l) => l.title !== page.title).length };
    });
  }

  /**
   * Drop the archived copies of one fact: the entries of its key that hold the same entry_id (the
   * same fact) or the same value. A different fact that held the key earlier (the key was freed and
   * reused for another value) keeps its copy. The archived copies of the graph nodes those copies
   * (and the fact, when its metadata is given) name as made from it (metadata derived_nodes) go
   * too: forget archives such a node beside the fact, with content that words the fact's text
   * differently, so nothing else finds it. Returns how many entries were removed.
   */
  purgeFactCopies(scope: Scope, fact: Pick<Fact, 'key' | 'entry_id' | 'value'> & { metadata?: Record<string, unknown> }): number {
    checkScope(scope);
    return this.ctx.tx(() => {
      const rows = this.ctx
        .stmt(
          `SELECT id, content FROM shadow_bin WHERE layer = ? AND user_id = ? AND origin_store = 'l4' AND origin_id = ?
             AND (json_extract(content, '$.entry_id') = ? OR json_extract(content, '$.value') = ?)`,
        )
        .all(scope.layer, scope.user_id, fact.key, fact.entry_id, fact.value) as Pick<Row, 'id' | 'content'>[];
      const del = this.ctx.stmt('DELETE FROM shadow_bin WHERE id = ?');
      for (const r of rows) del.run(r.id);
      if (rows.length > 0) this.audit.log(scope, 'purge', 'shadow_bin', `l4:${fact.key}`, { count: rows.length, entry_id: fact.entry_id });
      const metas = [...rows.map((r) => parseJson<{ metadata?: unknown }>(r.content, {})?.metadata), fact.metadata];
      const nodes = new Set(metas.flatMap(derivedNodeIds));
      let n = rows.length;
      for (const id of nodes) n += this.purgeFor(scope, 'graph', id);
      return n;
    });
  }

  /**
   * Drop the scope's archived entries from `origin_store` whose content `holds` accepts (each read:
   * the test is the caller's, e.g. forget exact's text match); returns how many were removed.
   */
  purgeHolding(scope: Scope, origin_store: ShadowOrigin, holds: (content: unknown) => boolean): number {
    checkScope(scope);
    return this.ctx.tx(() => {
      const rows = this.ctx
        .stmt('SELECT id, origin_id, content FROM shadow_bin WHERE layer = ? AND user_id = ? AND origin_store = ?')
        .all(scope.layer, scope.user_id, origin_store) as Pick<Row, 'id' | 'origin_id' | 'content'>[];
      const del = this.ctx.stmt('DELETE FROM shadow_bin WHERE id = ?');
      let n = 0;
      for (const r of rows) {
        if (!holds(parseJson<unknown>(r.content, null))) continue;
        del.run(r.id);
        this.audit.log(scope, 'purge', 'shadow_bin', `${origin_store}:${r.origin_id}`, { count: 1 });
        n++;
      }
      return n;
    });
  }

  /** Drop every archived entry of the scope for one origin record; returns how many were removed. */
  purgeFor(scope: Scope, origin_store: ShadowOrigin, key_or_id: string): number {
    checkScope(scope);
    return this.ctx.tx(() => {
      const n = this.ctx
        .stmt('DELETE FROM shadow_bin WHERE layer = ? AND user_id = ? AND origin_store = ? AND origin_id = ?')
        .run(scope.layer, scope.user_id, origin_store, key_or_id).changes;
      if (n > 0) this.audit.log(scope, 'purge', 'shadow_bin', `${origin_store}:${key_or_id}`, { count: n });
      return n;
    });
  }
}
