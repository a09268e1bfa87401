import path from 'node:path';
import { checkNoControlChars, checkNoHiddenFormat, toNfc } from '@memory-service/kernel';
import type { AuditLog } from './audit.js';
import type { StoreContext } from './context.js';
import { notFound, validationError } from './errors.js';
import { lookupForms } from './identity-forms.js';
import { freeName } from './name-family.js';
import { idSegment, isInside, removeStaleTemps, safeJoin, slugify } from './paths.js';
import type { Layer, Scope } from './types.js';
import type { VersionLog } from './versions.js';
import { checkScope, checkText, makeId, normalizeTags, parseId, rowsMatching, wordFilterArgs, wordFilterSql, checkMatchPattern } from './util.js';
import { WikiFilesBehind } from './wiki-files.js';
import { MAX_PAGE_FILE_BYTES, pageFileStale, readPageFile } from './wiki-page-file.js';
import { wikiQuery, type WikiQuery, type WikiQueryResult } from './wiki-query.js';
import { reflectWiki, type WikiReflection } from './wiki-reflect.js';
import { INFO_COLS, toInfo, type WikiRow as Row } from './wiki-row.js';
import { WIKI_LINK_RELATIONS, checkWikiType, type WikiLinkRelation, type WikiType } from './wiki-types.js';

export interface WikiPageInfo {
  id: string;
  layer: Layer;
  user_id: string;
  title: string;
  wiki_type: WikiType;
  tags: string[];
  /** Relative to the data dir, with forward slashes. */
  path: string;
  created: string;
  updated: string;
  /** Bytes of the Markdown file. */
  size: number;
}

export interface WikiPage extends WikiPageInfo {
  content: string;
}

export interface WikiSaveInput {
  title: string;
  content: string;
  wiki_type: string;
  tags?: string[];
}

export interface WikiLinkRef {
  title: string;
  relation: WikiLinkRelation;
  created: string;
}

/**
 * Wiki pages: Markdown files under `<data_dir>/wiki/<layer>/<user>/<wiki_type>/<slug>.md`, plus
 * an index row (with the content, for full-text search) per page. Titles are unique per scope;
 * two titles with the same slug get distinct files (`-2`, `-3`, ...). Every path is slugged and
 * checked to stay inside the data dir.
 */
/** The longest wiki page title, in characters. */
export const WIKI_TITLE_MAX = 300;

export class WikiStore {
  /**
   * Pages saved or deleted in the transaction open now, by path, with the content their file will
   * hold once it commits (null: removed): a read inside that transaction sees its own writes.
   * Entries of another transaction (rolled back) are never read and are dropped at the next write.
   */
  private readonly unwritten = new Map<string, { tx: number; content: string | null }>();
  /** The transaction the entries of `unwritten` were noted in (all of them: another's are dropped at the first write of the next). */
  private unwrittenTx: number | null = null;
  /** The files that could not be written or removed after their commit, written again later. */
  readonly filesBehind: WikiFilesBehind;
  /** The page files over MAX_PAGE_FILE_BYTES a warning has named (once each). */
  private readonly warnedLarge = new Set<string>();
  /**
   * While a bulk writer runs (withFileWritesRecorded): the paths of the page files its saves owe
   * (noted in wiki_file_writes) and of those its deletes and moves owe (wiki_file_removals), done
   * after its commit a slice at a time (BulkPageFiles) instead of by a commit hook each.
   */
  private owed: { writes: string[]; removals: string[] } | null = null;

  constructor(
    private readonly ctx: StoreContext,
    private readonly audit: AuditLog,
    private readonly versions: VersionLog,
  ) {
    this.filesBehind = new WikiFilesBehind(ctx);
  }

  /**
   * The directory new pages of one scope are saved in. A page keeps the path its row holds: one
   * saved before idSegment gave an id its hash (docs/decisions.md) lies in the id's old folder.
   */
  scopeDir(scope: Scope): string {
    checkScope(scope);
    return safeJoin(this.ctx.dataDir, 'wiki', scope.layer, idSegment(scope.user_id));
  }

  /**
   * Add a page, or update the page with this title in the scope. A new page, or a change of its
   * content, type or tags, writes a version (VersionLog) with `reason` (default `save`).
   */
  save(scope: Scope, input: WikiSaveInput, reason = 'save'): WikiPage & { created_new: boolean } {
    checkScope(scope);
    const given = checkText(input.title, 'title', WIKI_TITLE_MAX).trim();
    // A title is one line: every listing and digest (memory_context, CONTEXT.md, wiki_summarize)
    // prints it on one, where a line break would forge a heading or an item of its own.
    checkNoControlChars('title', given);
    const content = checkText(input.content, 'content', this.ctx.config.maxTextChars, true);
    const wikiType = checkWikiType(input.wiki_type);
    return this.ctx.tx(() => {
      const now = this.ctx.iso();
      const { form: title, found: before } = this.lookup(scope, given);
      // A new title may not hold what shows nothing or reorders what is shown (invoice<U+202E>fdp.exe
      // shows as invoiceexe.pdf); a page stored so before is still updated.
      if (!before) checkNoHiddenFormat('title', title);
      // Tags are one line too: wiki_summarize's digest prints them on a page's line. A tag the page
      // holds already is kept, even one stored before tags were checked.
      const tags = normalizeTags(input.tags, 'tags', { oneLine: true, held: before ? toInfo(before).tags : [] });
      const size = Buffer.byteLength(content, 'utf8');
      let rel = before?.path ?? '';
      if (!before || before.wiki_type !== wikiType) rel = this.freePath(scope, wikiType, title);
      safeJoin(this.ctx.dataDir, rel);
      if (before) {
        this.ctx
          .stmt('UPDATE wiki_pages SET wiki_type = ?, tags = ?, path = ?, content = ?, updated = ?, size = ? WHERE id = ?')
          .run(wikiType, JSON.stringify(tags), rel, content, now, size, before.id);
      } else {
        this.ctx
          .stmt(
            `INSERT INTO wiki_pages (layer, user_id, title, wiki_type, tags, path, content, created, updated, size)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(scope.layer, scope.user_id, title, wikiType, JSON.stringify(tags), rel, content, now, now, size);
      }
      // The file is written once the row is committed: a save rolled back (or never committed) must
      // not leave its text in the file, which reads take over the row. A file that cannot be
      // written then fails nothing: the row is stored, and the file is written again later. Another
      // process saving or deleting this page at the same moment may write its file after this one
      // (outside the lock): mirror reads the row again after the write and follows it.
      const moved = before && before.path !== rel ? before.path : null;
      this.holdUntilCommit(rel, content);
      if (moved) this.holdUntilCommit(moved, null);
      if (this.owed !== null) {
        this.filesBehind.oweWrite(rel);
        this.owed.writes.push(rel);
      } else this.ctx.whenCommitted(() => this.filesBehind.mirror(rel, 'writing the page file', { content, updated: now }));
      if (moved) this.removeFileAfterCommit(moved, 'removing the moved page file');
      // The file will hold exactly `content`: the row is read back for its id and dates, not the file.
      const page: WikiPage = { ...toInfo(this.row(scope, title) as Row), content };
      this.audit.log(scope, before ? 'update' : 'create', 'wiki_page', page.id, { title, wiki_type: wikiType, path: rel });
      if (!before || before.content !== content || before.wiki_type !== wikiType || before.tags !== JSON.stringify(tags)) {
        this.versions.recordWiki(page, before ? 'update' : 'create', reason);
      }
      return { ...page, created_new: !before };
    });
  }

  /**
   * Run fn in one transaction with the page file each of its saves owes noted in the database
   * (wiki_file_writes), in that transaction: a bulk writer (memory_data import) writes more pages
   * than the start repair's look at the newest saves covers (repairRecent), and a replace gives
   * rows older times than the files of the text they replace. The notes are cleared once the files
   * are written after the commit; a process stopped first leaves them to the next start
   * (WikiFilesBehind.finishWrites), which writes each file from its row whatever its time. Single
   * saves note nothing: repairRecent covers them, and a save stays one write.
   */
  withFileWritesRecorded<T>(fn: () => T): T {
    return this.ctx.tx(() => {
      const outer = this.owed;
      const owed = { writes: [] as string[], removals: [] as string[] };
      this.owed = owed;
      try {
        const out = fn();
        // The files are made to hold their rows after the commit, a slice of them per turn of the
        // event loop, and their notes cleared as they are (BulkPageFiles).
        this.ctx.whenCommitted(() => this.filesBehind.bulk.add(owed.writes, owed.removals));
        return out;
      } finally {
        this.owed = outer;
      }
    });
  }

  /**
   * `base` when the scope has no page of that title, else a free `base-<n>` (n >= 2; name-family.ts):
   * a few lookups in the title index however many pages share the base.
   */
  freeTitle(scope: Scope, base: string): string {
    checkScope(scope);
    if (typeof base !== 'string') throw validationError('title', 'title must be a string');
    // Titles are stored trimmed and in NFC (save), so the family is probed as they are stored.
    const head = toNfc(base.trim());
    const taken = this.ctx.stmt('SELECT 1 FROM wiki_pages WHERE layer = ? AND user_id = ? AND title = ?');
    return freeName(head, '', (title) => taken.get(scope.layer, scope.user_id, title) !== undefined);
  }

  getByTitle(scope: Scope, title: string): WikiPage | null {
    const r = this.row(scope, title);
    return r ? this.withFileContent(r) : null;
  }

  /**
   * The pages with this title in every scope (no content), oldest first: for records that are
   * global (a project), whose pages each user keeps in their own wiki space.
   */
  listByTitle(title: string): WikiPageInfo[] {
    const t = checkText(title, 'title', WIKI_TITLE_MAX).trim();
    const stmt = this.ctx.stmt(`SELECT ${INFO_COLS} FROM wiki_pages WHERE title = ? ORDER BY id`);
    const rows = lookupForms(t, (form) => {
      const found = stmt.all(form) as Row[];
      return found.length > 0 ? found : undefined;
    }).found;
    return (rows ?? []).map(toInfo);
  }

  /**
   * Pages of the scope carrying `tag` whose content holds the pattern as whole words (folded as the
   * other stores' findMatching: util.wordsMatcher), without deleting; at most `limit`.
   */
  findMatching(scope: Scope, pattern: string, tag: string, limit = 10_000): WikiPage[] {
    checkScope(scope);
    checkMatchPattern(pattern, this.ctx.config.maxTextChars);
    const rows = this.ctx
      .stmt(`SELECT * FROM wiki_pages WHERE layer = ? AND user_id = ? AND ${wordFilterSql('content')} ORDER BY id`)
      .iterate(scope.layer, scope.user_id, ...wordFilterArgs(pattern)) as IterableIterator<Row>;
    const tagged = (function* () {
      for (const r of rows) if (toInfo(r).tags.includes(tag)) yield r;
    })();
    return rowsMatching(tagged, pattern, (r) => [r.content], limit).map((r) => this.withFileContent(r));
  }

  /** Read a page by its path (relative to the data dir, as listed); null when absent or outside the scope. */
  read(scope: Scope, pagePath: string): WikiPage | null {
    checkScope(scope);
    if (typeof pagePath !== 'string' || pagePath.length === 0) throw validationError('path', 'path must be a non-empty string');
    const abs = safeJoin(this.ctx.dataDir, pagePath);
    // The row must belong to the scope (the query below); the folder is checked only down to the
    // layer, since a page keeps its path when its user's folder moved (scopeDir).
    if (!isInside(safeJoin(this.ctx.dataDir, 'wiki', scope.layer), abs)) return null;
    const rel = path.relative(path.resolve(this.ctx.dataDir), abs).split(path.sep).join('/');
    const r = this.ctx
      .stmt('SELECT * FROM wiki_pages WHERE path = ? AND layer = ? AND user_id = ?')
      .get(rel, scope.layer, scope.user_id) as Row | undefined;
    return r ? this.withFileContent(r) : null;
  }

  /** Page index rows (no content), most recently updated first. */
  list(scope: Scope, opts: { wiki_type?: string; limit?: number; offset?: number } = {}): WikiPageInfo[] {
    checkScope(scope);
    const limit = Math.max(0, Math.floor(opts.limit ?? 1000));
    const offset = Math.max(0, Math.floor(opts.offset ?? 0));
    if (opts.wiki_type !== undefined) {
      const t = checkWikiType(opts.wiki_type);
      return (
        this.ctx
          .stmt(
            `SELECT ${INFO_COLS} FROM wiki_pages WHERE layer = ? AND user_id = ? AND wiki_type = ?
             ORDER BY updated DESC, id DESC LIMIT ? OFFSET ?`,
          )
          .all(scope.layer, scope.user_id, t, limit, offset) as Row[]
      ).map(toInfo);
    }
    return (
      this.ctx
        .stmt(`SELECT ${INFO_COLS} FROM wiki_pages WHERE layer = ? AND user_id = ? ORDER BY updated DESC, id DESC LIMIT ? OFFSET ?`)
        .all(scope.layer, scope.user_id, limit, offset) as Row[]
    ).map(toInfo);
  }

  /** Pages of the scope, of one type when `wiki_type` is given. */
  count(scope: Scope, wiki_type?: string): number {
    checkScope(scope);
    if (wiki_type !== undefined) {
      const t = checkWikiType(wiki_type);
      return (
        this.ctx.stmt('SELECT COUNT(*) AS n FROM wiki_pages WHERE layer = ? AND user_id = ? AND wiki_type = ?').get(scope.layer, scope.user_id, t) as {
          n: number;
        }
      ).n;
    }
    return (
      this.ctx.stmt('SELECT COUNT(*) AS n FROM wiki_pages WHERE layer = ? AND user_id = ?').get(scope.layer, scope.user_id) as {
        n: number;
      }
    ).n;
  }

  /**
   * The pages of the scope matching a structured filter (type, faceted tags, whole words of the
   * title or content, created and updated ranges), most recently updated first, `limit` (at most
   * 200, default 50) from `offset`, with the total matching (wiki-query.ts). Reads only.
   */
  query(scope: Scope, filter: WikiQuery = {}): WikiQueryResult {
    return wikiQuery(this.ctx, scope, filter);
  }

  /**
   * A deterministic digest of the scope's pages changed in the last `periodHours` (1 to 8760) up
   * to `nowMs`, the clock's time by default (wiki-reflect.ts). Reads only.
   */
  reflect(scope: Scope, periodHours = 24, nowMs: number = this.ctx.clock.now()): WikiReflection {
    return reflectWiki(this.ctx, scope, periodHours, nowMs);
  }

  /** The index rows (no content) of the pages of the scope with these ids (`wiki_<n>`, as search hits name them); others are left out. */
  infoByIds(scope: Scope, ids: readonly string[]): Map<string, WikiPageInfo> {
    checkScope(scope);
    const out = new Map<string, WikiPageInfo>();
    const get = this.ctx.stmt(`SELECT ${INFO_COLS} FROM wiki_pages WHERE id = ? AND layer = ? AND user_id = ?`);
    for (const id of ids) {
      const n = parseId('wiki', id);
      const r = n === null ? undefined : (get.get(n, scope.layer, scope.user_id) as Omit<Row, 'content'> | undefined);
      if (r) out.set(id, toInfo(r));
    }
    return out;
  }

  /**
   * The page of the scope at `pagePath`, exactly as listed (relative to the data dir, forward
   * slashes, under `wiki/`). Anything else is an error naming `path`: an absolute path, a `.` or
   * `..` segment, a backslash or NUL, or a path that is no page of this scope (another layer's or
   * user's page included). Nothing outside the data dir is ever read.
   */
  pageAt(scope: Scope, pagePath: unknown): WikiPage {
    checkScope(scope);
    const accepted = 'a page path as wiki_list, wiki_search or wiki_add return it (wiki/<layer>/<user>/<wiki_type>/<slug>.md)';
    if (typeof pagePath !== 'string' || pagePath.length === 0) throw validationError('path', `path must be ${accepted}`, accepted);
    const segments = pagePath.split('/');
    const wellFormed =
      !/[\\\0]/.test(pagePath) &&
      !path.isAbsolute(pagePath) &&
      !path.win32.isAbsolute(pagePath) &&
      segments[0] === 'wiki' &&
      segments.every((seg) => seg !== '' && seg !== '.' && seg !== '..');
    if (!wellFormed) throw validationError('path', `path must be ${accepted}; got ${JSON.stringify(pagePath.slice(0, 200))}`, accepted);
    // A guard only: a well-formed relative path under wiki/ never leaves the data dir.
    safeJoin(this.ctx.dataDir, pagePath);
    const r = this.ctx.stmt('SELECT * FROM wiki_pages WHERE path = ? AND layer = ? AND user_id = ?').get(pagePath, scope.layer, scope.user_id) as
      | Row
      | undefined;
    if (!r) throw notFound(`wiki page of layer ${scope.layer}, user_id ${JSON.stringify(scope.user_id)}`, pagePath.slice(0, 300), 'path');
    return this.withFileContent(r);
  }

  /** Delete a page (file, index row and its links); returns the deleted page. */
  delete(scope: Scope, title: string): WikiPage | null {
    checkScope(scope);
    return this.ctx.tx(() => {
      const r = this.row(scope, title);
      if (!r) return null;
      const page = this.withFileContent(r);
      this.remove(scope, r, 'delete');
      return page;
    });
  }

  /**
   * Delete every page of the scope created at or after the ISO time (file, index row and links),
   * except those `keep` spares; returns the deleted pages (no content). A page created before and
   * only updated since stays, as FactStore.deleteSince keeps such a fact.
   */
  deleteSince(scope: Scope, sinceIso: string, keep: (page: WikiPageInfo) => boolean = () => false): WikiPageInfo[] {
    const w = this.ctx.window(sinceIso);
    checkScope(scope);
    return this.ctx.tx(() => {
      // created <= updated, so the updated index narrows the read to the pages touched since.
      const rows = this.ctx
        .stmt(`SELECT ${INFO_COLS} FROM wiki_pages WHERE layer = ? AND user_id = ? AND updated >= ? AND created >= ? AND created <= ? ORDER BY id`)
        .all(scope.layer, scope.user_id, w.since, w.since, w.until) as Omit<Row, 'content'>[];
      const out: WikiPageInfo[] = [];
      for (const r of rows) {
        const page = toInfo(r);
        if (keep(page)) continue;
        this.remove(scope, r, null);
        out.push(page);
      }
      return out;
    });
  }

  /**
   * Create a typed link between two pages of the scope (idempotent: `created_new` is false when it
   * existed). A missing page is an error naming `fields.from` or `fields.to`.
   */
  link(
    scope: Scope,
    from_title: string,
    to_title: string,
    relation: WikiLinkRelation,
    fields: { from: string; to: string } = { from: 'from_title', to: 'to_title' },
  ): WikiLinkRef & { created_new: boolean } {
    checkScope(scope);
    if (!(WIKI_LINK_RELATIONS as readonly string[]).includes(relation)) {
      throw validationError('relation', `relation must be one of ${WIKI_LINK_RELATIONS.join(', ')}`, WIKI_LINK_RELATIONS);
    }
    return this.ctx.tx(() => {
      const from = this.row(scope, from_title);
      if (!from) throw notFound('wiki page', from_title, fields.from);
      const to = this.row(scope, to_title);
      if (!to) throw notFound('wiki page', to_title, fields.to);
      const inserted = this.ctx
        .stmt(
          `INSERT OR IGNORE INTO wiki_links (layer, user_id, from_title, to_title, relation, created)
           VALUES (?, ?, ?, ?, ?, ?)`,
        )
        .run(scope.layer, scope.user_id, from.title, to.title, relation, this.ctx.iso()).changes > 0;
      if (inserted) this.audit.log(scope, 'link', 'wiki_page', makeId('wiki', from.id), { to: to.title, relation });
      const r = this.ctx
        .stmt('SELECT created FROM wiki_links WHERE layer = ? AND user_id = ? AND from_title = ? AND to_title = ? AND relation = ?')
        .get(scope.layer, scope.user_id, from.title, to.title, relation) as { created: string };
      return { title: to.title, relation, created: r.created, created_new: inserted };
    });
  }

  /** In-links (pages pointing here) and out-links of a page. */
  links(scope: Scope, given: string): { in: WikiLinkRef[]; out: WikiLinkRef[] } {
    checkScope(scope);
    // Links name pages by their stored titles: the page's, or the NFC form of one since deleted.
    const title = this.row(scope, given)?.title ?? toNfc(given.trim());
    const out = this.ctx
      .stmt(
        `SELECT to_title AS title, relation, created FROM wiki_links WHERE layer = ? AND user_id = ? AND from_title = ?
         ORDER BY id`,
      )
      .all(scope.layer, scope.user_id, title) as WikiLinkRef[];
    const inn = this.ctx
      .stmt(
        `SELECT from_title AS title, relation, created FROM wiki_links WHERE layer = ? AND user_id = ? AND to_title = ?
         ORDER BY id`,
      )
      .all(scope.layer, scope.user_id, title) as WikiLinkRef[];
    return { in: inn, out };
  }

  private row(scope: Scope, title: string): Row | undefined {
    return this.lookup(scope, title).found;
  }

  /**
   * Titles are stored trimmed and in NFC and looked up so, so "Café" precomposed and decomposed
   * name one page (lookupForms: a page stored before in another form keeps it).
   */
  private lookup(scope: Scope, title: string): { form: string; found: Row | undefined } {
    checkScope(scope);
    if (typeof title !== 'string') throw validationError('title', 'title must be a string');
    const stmt = this.ctx.stmt('SELECT * FROM wiki_pages WHERE layer = ? AND user_id = ? AND title = ?');
    return lookupForms(title.trim(), (form) => stmt.get(scope.layer, scope.user_id, form) as Row | undefined);
  }

  /**
   * Write again from their rows the files of the last pages saved that a stopped process left
   * behind: a page's file is written just after its commit, so a process killed in between leaves
   * a new page with no file, or an updated page's file with its previous text (older than the row;
   * a file edited by hand since is newer, and kept). An empty file is written again whatever its
   * time when the row is not empty (a disk that failed can leave the files written last with 0
   * bytes): see pageFileStale. The pages are those of the newest `entries`
   * audit entries up to `upTo` (the newest when this process started: later saves are its own),
   * which commit with their saves; the temp files of writes killed in their folders are removed.
   * Returns the files written.
   */
  repairRecent(upTo: number, entries = 256): number {
    const ids = this.ctx
      .stmt(
        `SELECT DISTINCT target_id FROM (SELECT target_id, target_type FROM audit_log WHERE id <= ? ORDER BY id DESC LIMIT ?) WHERE target_type = 'wiki_page'`,
      )
      .pluck(true)
      .all(upTo, entries) as string[];
    const dirs = new Set<string>();
    let written = 0;
    for (const id of ids) {
      const n = parseId('wiki', id);
      const r = n === null ? undefined : (this.ctx.stmt('SELECT * FROM wiki_pages WHERE id = ?').get(n) as Row | undefined);
      if (!r) continue;
      const abs = safeJoin(this.ctx.dataDir, r.path);
      dirs.add(path.dirname(abs));
      if (!pageFileStale(abs, r.content, r.updated)) continue;
      // One file that cannot be written does not stop the others: it is tried again later. Another
      // process may save the page in between: mirror follows its row.
      if (this.filesBehind.mirror(r.path, 'repairing the page file', { content: r.content, updated: r.updated })) written++;
    }
    for (const dir of dirs) removeStaleTemps(dir);
    return written;
  }

  /**
   * Delete a page's row and links, and its file once the transaction commits (inside one). Its
   * history keeps one `delete` version with `reason`, or nothing when reason is null (a time-window
   * purge, which means every trace of the page gone).
   */
  private remove(scope: Scope, r: Omit<Row, 'content'>, reason: string | null): void {
    this.ctx.stmt('DELETE FROM wiki_pages WHERE id = ?').run(r.id);
    this.ctx
      .stmt('DELETE FROM wiki_links WHERE layer = ? AND user_id = ? AND (from_title = ? OR to_title = ?)')
      .run(scope.layer, scope.user_id, r.title, r.title);
    this.holdUntilCommit(r.path, null);
    this.removeFileAfterCommit(r.path, 'removing the page file');
    this.audit.log(scope, 'delete', 'wiki_page', makeId('wiki', r.id), { title: r.title, path: r.path });
    const info = toInfo(r);
    if (reason === null) this.versions.purge('wiki', [info.id]);
    else this.versions.recordWikiDeletion(info, reason);
  }

  /**
   * Remove the file at `rel` once the open transaction commits (WikiFilesBehind.removeAfterCommit),
   * or, inside a bulk writer, with the files it owes (noted in wiki_file_removals either way).
   */
  private removeFileAfterCommit(rel: string, what: string): void {
    if (this.owed === null) return this.filesBehind.removeAfterCommit(rel, what);
    this.filesBehind.oweRemoval(rel);
    this.owed.removals.push(rel);
  }

  /**
   * Inside a bulk writer (ScopeClear: a replace), note that the pages at `paths` are deleted by the
   * caller's statements: each file's removal is noted (wiki_file_removals) and done after the
   * commit with the files the writer owes, and reads in the transaction find no text for its path. Answers whether a bulk writer runs (false:
   * the caller deletes page by page instead).
   */
  forgetFilesInBulk(paths: readonly string[]): boolean {
    if (this.owed === null) return false;
    for (const rel of paths) {
      this.holdUntilCommit(rel, null);
      this.filesBehind.oweRemoval(rel);
      this.owed.removals.push(rel);
    }
    return true;
  }

  /** The page of a row as a read answers it (its file's text when the file holds any; see withFileContent). */
  pageOfRow(r: Row): WikiPage {
    return this.withFileContent(r);
  }

  /** Note what the file at `rel` will hold once the open transaction commits (nothing outside one). */
  private holdUntilCommit(rel: string, content: string | null): void {
    const tx = this.ctx.openTransaction();
    if (tx === null) return;
    // Dropped all at once when the transaction changed: a sweep of the map at every write made a
    // bulk writer (a replace deleting and writing thousands of pages) grow with their square.
    if (this.unwrittenTx !== tx) {
      this.unwritten.clear();
      this.unwrittenTx = tx;
    }
    this.unwritten.set(rel, { tx, content });
    this.ctx.whenCommitted(() => this.unwritten.delete(rel));
  }

  /**
   * The page's Markdown file is canonical (a hand edit is read); the index copy stands in when the
   * file is gone, empty while the row is not (the file is written again from the row), or over
   * MAX_PAGE_FILE_BYTES (never read; a warning names it once).
   */
  private withFileContent(r: Row): WikiPage {
    const pending = this.unwritten.get(r.path);
    if (pending !== undefined && pending.content !== null && pending.tx === this.ctx.openTransaction()) return { ...toInfo(r), content: pending.content };
    // The file could not be written after the commit: it holds an older text, or none.
    if (this.filesBehind.has(r.path)) return { ...toInfo(r), content: r.content };
    const abs = safeJoin(this.ctx.dataDir, r.path);
    const file = readPageFile(abs);
    if (file.state === 'text') return { ...toInfo(r), content: file.text };
    if (file.state === 'empty' && r.content !== '') this.filesBehind.rewrite(r.path, 'writing again the empty page file', { content: r.content, updated: r.updated });
    if (file.state === 'too_large' && !this.warnedLarge.has(r.path)) {
      this.warnedLarge.add(r.path);
      this.ctx.logger.warn(
        `wiki page file ${r.path} is ${file.size} bytes, over ${MAX_PAGE_FILE_BYTES}: it is not read, and reads and exports of page ${JSON.stringify(r.title)} take its stored text (save the page, or replace the file with a smaller one)`,
      );
    }
    return { ...toInfo(r), content: r.content };
  }

  /** A path for a new file of this title, distinct from every other page's path: `<slug>.md`, else a free `<slug>-<n>.md` (name-family.ts). */
  private freePath(scope: Scope, wikiType: WikiType, title: string): string {
    const head = ['wiki', scope.layer, idSegment(scope.user_id), wikiType, slugify(title)].join('/');
    const taken = this.ctx.stmt('SELECT 1 FROM wiki_pages WHERE path = ?');
    const rel = freeName(head, '.md', (name) => taken.get(name) !== undefined);
    safeJoin(this.ctx.dataDir, rel);
    return rel;
  }
}
