import type { StoreContext } from './context.js';
import type { Fact } from './facts.js';
import { lookupForms } from './identity-forms.js';
import type { Layer, Scope } from './types.js';
import { checkScope, makeId, parseId, parseJson } from './util.js';
import type { WikiPage } from './wiki.js';

/** Prefix of a fact version id (`fv_<n>`). */
export const FACT_VERSION_PREFIX = 'fv';
/** Prefix of a wiki page version id (`wv_<n>`). */
export const WIKI_VERSION_PREFIX = 'wv';

/**
 * What a version records: `create` (the record appeared), `update` (its value or importance, for a
 * page its content, type or tags, changed), `delete` (it was removed: the record's earlier versions
 * are removed with it and this one holds no value, so a forget leaves no copy behind; the Shadow Bin
 * is the archive of deleted content), `snapshot` (what it held when history began).
 */
export type VersionOp = 'create' | 'update' | 'delete' | 'snapshot';

export interface FactVersion {
  version_id: string;
  layer: Layer;
  user_id: string;
  key: string;
  entry_id: string;
  op: VersionOp;
  value: string;
  importance: number;
  source: string;
  metadata: Record<string, unknown>;
  /** Why it changed: the writer's reason (upsert, importance:agent_feedback, restore:fv_3, branch_merge:plan, ...). */
  reason: string;
  ts: string;
}

export interface WikiVersion {
  version_id: string;
  layer: Layer;
  user_id: string;
  title: string;
  page_id: string;
  op: VersionOp;
  wiki_type: string;
  tags: string[];
  content: string;
  reason: string;
  ts: string;
}

interface FactVersionRow extends Omit<FactVersion, 'version_id' | 'metadata'> {
  id: number;
  metadata: string;
}
interface WikiVersionRow extends Omit<WikiVersion, 'version_id' | 'tags'> {
  id: number;
  tags: string;
}

function toFactVersion(r: FactVersionRow): FactVersion {
  const { id, metadata, ...rest } = r;
  return { version_id: makeId(FACT_VERSION_PREFIX, id), ...rest, metadata: parseJson<Record<string, unknown>>(metadata, {}) };
}

function toWikiVersion(r: WikiVersionRow): WikiVersion {
  const { id, tags, ...rest } = r;
  return { version_id: makeId(WIKI_VERSION_PREFIX, id), ...rest, tags: parseJson<string[]>(tags, []) };
}

/**
 * The version history of L4 facts and wiki pages. FactStore and WikiStore write it inside the
 * transaction of each change (so no write of theirs can skip it, and a rolled-back change leaves no
 * version); memory_history reads it. Time comes from the store clock.
 */
export class VersionLog {
  constructor(private readonly ctx: StoreContext) {}

  /** Record what `fact` holds now (or held when deleted). */
  recordFact(fact: Fact, op: VersionOp, reason: string): void {
    this.ctx
      .stmt(
        `INSERT INTO fact_versions (layer, user_id, key, entry_id, op, value, importance, source, metadata, reason, ts)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(fact.layer, fact.user_id, fact.key, fact.entry_id, op, fact.value, fact.importance, fact.source, JSON.stringify(fact.metadata ?? {}), reason, this.ctx.iso());
  }

  /** Record a fact's deletion: its earlier versions go, one `delete` version (without the value) stays. */
  recordFactDeletion(fact: Fact, reason: string): void {
    this.purge('facts', [fact.entry_id]);
    this.recordFact({ ...fact, value: '', metadata: {} }, 'delete', reason);
  }

  /** Record a page's deletion: its earlier versions go, one `delete` version (without the content) stays. */
  recordWikiDeletion(page: Pick<WikiPage, 'layer' | 'user_id' | 'title' | 'id' | 'wiki_type' | 'tags'>, reason: string): void {
    this.purge('wiki', [page.id]);
    this.recordWiki({ ...page, tags: [], content: '' }, 'delete', reason);
  }

  /** Record what `page` holds now (or held when deleted). */
  recordWiki(page: Pick<WikiPage, 'layer' | 'user_id' | 'title' | 'id' | 'wiki_type' | 'tags' | 'content'>, op: VersionOp, reason: string): void {
    this.ctx
      .stmt(
        `INSERT INTO wiki_page_versions (layer, user_id, title, page_id, op, wiki_type, tags, content, reason, ts)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(page.layer, page.user_id, page.title, page.id, op, page.wiki_type, JSON.stringify(page.tags ?? []), page.content, reason, this.ctx.iso());
  }

  /**
   * The versions of the scope's fact with this key (across every entry_id the key has had, as a
   * key deleted and written again gets a new one) or with this entry_id: newest first, a page of
   * `limit` from `offset`, with the total.
   */
  factHistory(scope: Scope, by: { key: string } | { entry_id: string }, limit = 50, offset = 0): { versions: FactVersion[]; total: number } {
    checkScope(scope);
    const col = 'key' in by ? 'key' : 'entry_id';
    const where = `layer = ? AND user_id = ? AND ${col} = ?`;
    const count = (v: string) => this.ctx.stmt(`SELECT COUNT(*) FROM fact_versions WHERE ${where}`).pluck(true).get(scope.layer, scope.user_id, v) as number;
    // A key in any canonical form, as FactStore takes it (lookupForms).
    const { form: val, found } = 'key' in by ? lookupForms(by.key, (k) => count(k) || undefined) : { form: by.entry_id, found: count(by.entry_id) };
    const total = found ?? 0;
    const rows = this.ctx
      .stmt(`SELECT * FROM fact_versions WHERE ${where} ORDER BY id DESC LIMIT ? OFFSET ?`)
      .all(scope.layer, scope.user_id, val, limit, offset) as FactVersionRow[];
    return { versions: rows.map(toFactVersion), total };
  }

  /** The versions of the scope's wiki page with this title, newest first, a page of `limit` from `offset`, with the total. */
  wikiHistory(scope: Scope, given: string, limit = 50, offset = 0): { versions: WikiVersion[]; total: number } {
    checkScope(scope);
    const where = 'layer = ? AND user_id = ? AND title = ?';
    const count = (t: string) => this.ctx.stmt(`SELECT COUNT(*) FROM wiki_page_versions WHERE ${where}`).pluck(true).get(scope.layer, scope.user_id, t) as number;
    // A title in any canonical form, as WikiStore takes it (lookupForms).
    const { form: title, found } = lookupForms(given, (t) => count(t) || undefined);
    const total = found ?? 0;
    const rows = this.ctx
      .stmt(`SELECT * FROM wiki_page_versions WHERE ${where} ORDER BY id DESC LIMIT ? OFFSET ?`)
      .all(scope.layer, scope.user_id, title, limit, offset) as WikiVersionRow[];
    return { versions: rows.map(toWikiVersion), total };
  }

  /** One fact version of the scope by id (fv_<n>), or null (unknown, malformed or another scope's). */
  factVersion(scope: Scope, versionId: string): FactVersion | null {
    checkScope(scope);
    const n = parseId(FACT_VERSION_PREFIX, versionId);
    if (n === null) return null;
    const r = this.ctx.stmt('SELECT * FROM fact_versions WHERE id = ? AND layer = ? AND user_id = ?').get(n, scope.layer, scope.user_id) as FactVersionRow | undefined;
    return r ? toFactVersion(r) : null;
  }

  /** One wiki page version of the scope by id (wv_<n>), or null. */
  wikiVersion(scope: Scope, versionId: string): WikiVersion | null {
    checkScope(scope);
    const n = parseId(WIKI_VERSION_PREFIX, versionId);
    if (n === null) return null;
    const r = this.ctx.stmt('SELECT * FROM wiki_page_versions WHERE id = ? AND layer = ? AND user_id = ?').get(n, scope.layer, scope.user_id) as WikiVersionRow | undefined;
    return r ? toWikiVersion(r) : null;
  }

  /**
   * Remove every version of these facts (entry ids) or pages (page ids): a time-window purge (forget
   * scope recent, memory_lucidity_purge) removes the records it deletes from the history too, as
   * those records were written inside the window and the purge means them gone.
   */
  purge(which: 'facts' | 'wiki', ids: readonly string[]): number {
    const stmt = which === 'facts' ? this.ctx.stmt('DELETE FROM fact_versions WHERE entry_id = ?') : this.ctx.stmt('DELETE FROM wiki_page_versions WHERE page_id = ?');
    let n = 0;
    for (const id of ids) n += stmt.run(id).changes;
    return n;
  }
}
