import { toEpisode, type EpisodeRow } from './episodes.js';
import { toFact, type FactRow } from './facts.js';
import { toNode, type GraphNodeRow } from './graph.js';
import type { ImportResult } from './scope-data.js';
import type { ShadowOrigin } from './shadow-bin.js';
import type { Stores } from './stores.js';
import type { Scope } from './types.js';
import { checkScope } from './util.js';
import type { WikiRow } from './wiki-row.js';

/** The reason a replace's Shadow Bin copies (and their audit rows) give. */
export const REPLACE_REASON = 'memory_data import replace';

/** Records archived per multi-row INSERT: 7 values a Shadow Bin row, 14 for its two audit rows (within SQLite's 32,766). */
const CHUNK = 500;
/** Most bytes of page text (the rows' `size`) read and archived per statement: a page holds up to 10,000,000 characters. */
const PAGE_CHUNK_BYTES = 16 * 1024 * 1024;

/** One record of the scope as its store answers it, the id its Shadow Bin entry names and its delete audit row. */
interface Archived {
  origin_id: string;
  content: unknown;
  /** The audit row of its deletion: target_type, target_id, detail. */
  deleted: [string, string, Record<string, unknown>];
}

/**
 * memory_data import replace: the target scope emptied with a statement per table, where it was
 * emptied a record at a time through each store's delete (about 10 s of the write lock at 48 MB:
 * a read, a transaction wrapper and several statements per record). What it leaves is what the
 * record-at-a-time path left: each fact, episode and graph node is archived in the Shadow Bin as its
 * store answers it (the same JSON), in id order, with the same audit rows in the same order (the
 * archive's, then the deletion's, record after record), each fact keeps one `delete` version (its
 * earlier versions go), the rows go by `DELETE ... WHERE layer = ? AND user_id = ?` (the triggers
 * keep the retrieval change log and the scope's write counter, as for a delete of each; foreign
 * keys take the episodes' tags and the nodes' edges). Wiki pages go by table too, each archived as
 * a read answers it (its file's text), with the audit rows, links, `delete` versions and removal
 * notes ShadowBin.deleteWikiPage wrote page after page; their files are removed after the commit
 * with the files the import writes (WikiStore.forgetFilesInBulk), so it runs inside
 * WikiStore.withFileWritesRecorded.
 */
export class ScopeClear {
  constructor(private readonly stores: Stores) {}

  /** Empty the scope (inside the import's transaction), counting into `res`. */
  clear(scope: Scope, res: ImportResult): void {
    checkScope(scope);
    const s = this.stores;
    const c = s.ctx;
    const args = [scope.layer, scope.user_id] as const;
    const now = c.iso();
    if (!s.wiki.forgetFilesInBulk([])) throw new Error('ScopeClear.clear runs inside WikiStore.withFileWritesRecorded (its page files are removed with the import\'s)');

    // Facts: archived, each with its delete version (importance and source kept, value and metadata
    // not), its earlier versions purged after (so the new versions take the ids they took before).
    const facts = this.archiveAll(scope, 'l4', 'facts', now, (r) => {
      const f = toFact(r as FactRow);
      return { origin_id: f.key, content: f, deleted: ['fact', f.entry_id, { key: f.key }] };
    });
    if (facts > 0) {
      // The first fact's earlier versions go before the inserts, as the record-at-a-time delete
      // purged each fact's just before its own insert: the new versions then take the same ids even
      // when that fact's versions held the highest id (later facts' inserts are above them anyway).
      c.stmt(`DELETE FROM fact_versions WHERE entry_id = (SELECT 'fact_' || MIN(id) FROM facts WHERE layer = ? AND user_id = ?)`).run(...args);
      const first = c
        .stmt(
          `INSERT INTO fact_versions (layer, user_id, key, entry_id, op, value, importance, source, metadata, reason, ts)
           SELECT layer, user_id, key, 'fact_' || id, 'delete', '', importance, source, '{}', 'delete', ? FROM facts WHERE layer = ? AND user_id = ? ORDER BY id`,
        )
        .run(now, ...args);
      const firstNew = Number(first.lastInsertRowid) - first.changes + 1;
      c.stmt(`DELETE FROM fact_versions WHERE id < ? AND entry_id IN (SELECT 'fact_' || id FROM facts WHERE layer = ? AND user_id = ?)`).run(firstNew, ...args);
      c.stmt('DELETE FROM facts WHERE layer = ? AND user_id = ?').run(...args);
    }
    res.cleared.facts = facts;

    const episodes = this.archiveAll(scope, 'l3', 'episodes', now, (r) => {
      const e = toEpisode(r as EpisodeRow);
      return { origin_id: e.id, content: e, deleted: ['episode', e.id, {}] };
    });
    if (episodes > 0) c.stmt('DELETE FROM episodes WHERE layer = ? AND user_id = ?').run(...args);
    res.cleared.episodes = episodes;

    res.cleared.graph_edges = c.stmt('SELECT COUNT(*) FROM graph_edges WHERE layer = ? AND user_id = ?').pluck(true).get(...args) as number;
    const nodes = this.archiveAll(scope, 'graph', 'graph_nodes', now, (r) => {
      const n = toNode(r as GraphNodeRow);
      return { origin_id: n.node_id, content: n, deleted: ['graph_node', n.node_id, {}] };
    });
    // The nodes' edges go with them (ON DELETE CASCADE), as deleteNode's did.
    if (nodes > 0) c.stmt('DELETE FROM graph_nodes WHERE layer = ? AND user_id = ?').run(...args);
    res.cleared.graph_nodes = nodes;
    res.archived += facts + episodes + nodes;

    res.cleared.wiki_links = c.stmt('SELECT COUNT(*) FROM wiki_links WHERE layer = ? AND user_id = ?').pluck(true).get(...args) as number;
    const paths: string[] = [];
    const pages = this.archiveAll(scope, 'wiki', 'wiki_pages', now, (r) => {
      const row = r as WikiRow;
      paths.push(row.path);
      const p = s.wiki.pageOfRow(row);
      return { origin_id: p.title, content: p, deleted: ['wiki_page', p.id, { title: row.title, path: row.path }] };
    });
    if (pages > 0) this.removePages(scope, paths);
    res.cleared.wiki_pages = pages;
    res.archived += pages;
  }

  /**
   * Delete the scope's pages (archived by now), as WikiStore's delete did one by one: the links from
   * or to their titles, their files after the commit (noted now), each page's earlier versions
   * replaced by one `delete` version (reason `delete`, tags and content empty), then the rows.
   */
  private removePages(scope: Scope, paths: readonly string[]): void {
    const c = this.stores.ctx;
    const args = [scope.layer, scope.user_id] as const;
    const titles = 'SELECT title FROM wiki_pages WHERE layer = ? AND user_id = ?';
    c.stmt(`DELETE FROM wiki_links WHERE layer = ? AND user_id = ? AND (from_title IN (${titles}) OR to_title IN (${titles}))`).run(...args, ...args, ...args);
    this.stores.wiki.forgetFilesInBulk(paths);
    // As for facts: the first page's earlier versions go first, the other pages' after the inserts.
    c.stmt(`DELETE FROM wiki_page_versions WHERE page_id = (SELECT 'wiki_' || MIN(id) FROM wiki_pages WHERE layer = ? AND user_id = ?)`).run(...args);
    const first = c
      .stmt(
        `INSERT INTO wiki_page_versions (layer, user_id, title, page_id, op, wiki_type, tags, content, reason, ts)
         SELECT layer, user_id, title, 'wiki_' || id, 'delete', wiki_type, '[]', '', 'delete', ? FROM wiki_pages WHERE layer = ? AND user_id = ? ORDER BY id`,
      )
      .run(c.iso(), ...args);
    const firstNew = Number(first.lastInsertRowid) - first.changes + 1;
    c.stmt(`DELETE FROM wiki_page_versions WHERE id < ? AND page_id IN (SELECT 'wiki_' || id FROM wiki_pages WHERE layer = ? AND user_id = ?)`).run(firstNew, ...args);
    c.stmt('DELETE FROM wiki_pages WHERE layer = ? AND user_id = ?').run(...args);
  }

  /**
   * Archive every row of the scope in `table` (in id order) in the Shadow Bin under `origin`, writing for each
   * its archive audit row and then its delete audit row, CHUNK records to a statement. The rows
   * themselves are left to the caller's DELETE. Answers how many were archived.
   */
  private archiveAll(scope: Scope, origin: ShadowOrigin, table: 'facts' | 'episodes' | 'graph_nodes' | 'wiki_pages', now: string, record: (r: unknown) => Archived): number {
    const c = this.stores.ctx;
    let n = 0;
    let chunk: Archived[] = [];
    const flush = () => {
      if (chunk.length === 0) return;
      const bins: unknown[] = [];
      for (const a of chunk) bins.push(scope.layer, scope.user_id, origin, a.origin_id, JSON.stringify(a.content ?? null), REPLACE_REASON, now);
      const info = this.insert('shadow_bin', ['layer', 'user_id', 'origin_store', 'origin_id', 'content', 'reason', 'archived'], chunk.length, bins);
      // One statement into an AUTOINCREMENT table: its rows took consecutive ids, in the order given.
      let bin = Number(info.lastInsertRowid) - chunk.length + 1;
      const audits: unknown[] = [];
      for (const a of chunk) {
        audits.push('archive', 'shadow_bin', `bin_${bin++}`, scope.layer, scope.user_id, now, JSON.stringify({ origin_store: origin, origin_id: a.origin_id, reason: REPLACE_REASON }));
        audits.push('delete', a.deleted[0], a.deleted[1], scope.layer, scope.user_id, now, JSON.stringify(a.deleted[2]));
      }
      this.insert('audit_log', ['action', 'target_type', 'target_id', 'layer', 'user_id', 'ts', 'detail'], chunk.length * 2, audits);
      n += chunk.length;
      chunk = [];
    };
    // A chunk of rows at a time (a statement's iterator must not be open while the connection
    // writes, and the whole scope read at once would be a second copy of it in memory), each chunk a
    // range of the rowid: the scope's indexes on facts and nodes are not in id order.
    // Pages are cut by their text's bytes too, so a chunk of large pages stays within PAGE_CHUNK_BYTES (one page over it is a chunk of its own).
    const sized = table === 'wiki_pages';
    const rows = c.stmt(`SELECT id, ${sized ? 'size' : '0'} AS size FROM ${table} WHERE layer = ? AND user_id = ? ORDER BY id`).raw(true).all(scope.layer, scope.user_id) as [number, number][];
    const page = c.stmt(`SELECT * FROM ${table} WHERE id >= ? AND id <= ? AND +layer = ? AND +user_id = ? ORDER BY id`);
    for (let i = 0; i < rows.length; ) {
      let j = i + 1;
      for (let bytes = rows[i]![1]; j < rows.length && j - i < CHUNK && bytes + rows[j]![1] <= PAGE_CHUNK_BYTES; j++) bytes += rows[j]![1];
      for (const r of page.all(rows[i]![0], rows[j - 1]![0], scope.layer, scope.user_id)) chunk.push(record(r));
      flush();
      i = j;
    }
    return n;
  }

  /** INSERT `rows` rows of `cols` (values flat, in order) as one statement (the full chunk's is cached). */
  private insert(table: string, cols: readonly string[], rows: number, values: unknown[]) {
    const one = `(${cols.map(() => '?').join(', ')})`;
    const sql = `INSERT INTO ${table} (${cols.join(', ')}) VALUES ${Array.from({ length: rows }, () => one).join(', ')}`;
    const c = this.stores.ctx;
    return (rows === CHUNK || rows === CHUNK * 2 ? c.stmt(sql) : c.db.prepare(sql)).run(...values);
  }
}
