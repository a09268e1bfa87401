import fs from 'node:fs';
import { toNfc } from '@memory-service/kernel';
import { StoreError, validationError, notFound } from './errors.js';
import { idSegment, safeJoin } from './paths.js';
import {
  SCOPE_DOC_FORMAT,
  SCOPE_DOC_KINDS,
  SCOPE_DOC_VERSION,
  checkScopeDocument,
  type DocSession,
  type ScopeDocKind,
  type ScopeDocument,
} from './scope-doc.js';
import { ScopeClear } from './scope-clear.js';
import { ScopeDataExtras } from './scope-data-extra.js';
import { emitDocJson, ExportFileWriter, partsOf, type DocHeader, type DocParts, type KindRecords } from './scope-export.js';
import { ImportRefs } from './scope-import-refs.js';
import type { Stores } from './stores.js';
import type { Scope } from './types.js';
import { checkScope, makeId, parseId, parseJson } from './util.js';
import type { WikiType } from './wiki-types.js';
import { nodeTypeOf, normalizeContent, type GraphRelation } from './graph.js';
import type { WikiLinkRelation } from './wiki-types.js';
import type { FactSource } from './facts.js';

/** The folder of the data dir that holds export files. */
export const EXPORTS_DIR = 'exports';
/** An export whose JSON is larger than this is written to a file instead of returned inline. */
export const EXPORT_INLINE_MAX_BYTES = 1_000_000;
/** The largest export file an import reads. */
export const EXPORT_FILE_MAX_BYTES = 64 * 1024 * 1024;
/** An export file name an import accepts: a plain name in the exports folder, ending .json. */
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}\.json$/;

export const IMPORT_MODES = ['merge', 'replace'] as const;
export type ImportMode = (typeof IMPORT_MODES)[number];

export type KindCounts = Record<ScopeDocKind, number>;

export interface ImportResult {
  mode: ImportMode;
  imported: KindCounts;
  /** merge: records left out because the target holds them (same key, title, or the same record). */
  skipped: KindCounts;
  /** replace: records of the target cleared first (facts, episodes, graph nodes and wiki pages archived in the Shadow Bin). */
  cleared: KindCounts;
  /** replace: items of the target's L1 ring removed (the ring is no kind of the document: not archived, not in previous_export). */
  cleared_l1: number;
  archived: number;
  /** Standing queries the document names as an older build did (with `_` or `-`), imported under these names. */
  renamed_standing_queries: { from: string; to: string }[];
}

const zero = (): KindCounts => Object.fromEntries(SCOPE_DOC_KINDS.map((k) => [k, 0])) as KindCounts;

/** The ISO time a record keeps, or now for one the document gives none. */
const at = (t: string, now: string) => (t === '' ? now : t);

/**
 * memory_data: a (layer, user_id) scope as one versioned JSON document (scope-doc.ts), and that
 * document written into a scope. Import checks the whole document first and writes in one
 * transaction through the stores' own writes (so the retrieval log, the wiki files and the audit
 * trail follow), then gives each record the times the document holds: an imported memory keeps
 * its age.
 */
export class ScopeData {
  private readonly extras: ScopeDataExtras;

  constructor(private readonly stores: Stores) {
    this.extras = new ScopeDataExtras(stores);
  }

  /**
   * The scope as a document's parts (scope-export.ts): its header, then each kind's records in the
   * document's order, read from the database as they are written. The rows of the kinds that grow
   * with a memory (facts, episodes, links, nodes, edges, events, sessions, scratchpad) are read one
   * at a time (a statement's iterator: their records ask the database nothing more); wiki pages one
   * page at a time by title; the later kinds a kind at a time (ScopeDataExtras.exportKinds).
   */
  exportParts(scope: Scope): DocParts {
    checkScope(scope);
    const c = this.stores.ctx;
    const wiki = this.stores.wiki;
    const kind = (k: ScopeDocKind, sql: string, record: (r: Record<string, any>) => object): KindRecords => [
      k,
      function* () {
        for (const r of c.stmt(sql).iterate(scope.layer, scope.user_id)) yield record(r as Record<string, any>);
      },
    ];
    return {
      header: { format: SCOPE_DOC_FORMAT, version: SCOPE_DOC_VERSION, exported_at: c.iso(), layer: scope.layer, user_id: scope.user_id },
      kinds: [
        kind('facts', 'SELECT * FROM facts WHERE layer = ? AND user_id = ? ORDER BY id', (r) => ({
          entry_id: makeId('fact', r.id),
          key: r.key,
          value: r.value,
          importance: r.importance,
          source: r.source as FactSource,
          metadata: parseJson<Record<string, unknown>>(r.metadata, {}),
          created: r.created,
          updated: r.updated,
        })),
        kind('episodes', 'SELECT * FROM episodes WHERE layer = ? AND user_id = ? ORDER BY id', (r) => ({
          id: makeId('ep', r.id),
          summary: r.summary,
          emotional_weight: r.emotional_weight,
          importance: r.importance,
          tags: parseJson<string[]>(r.tags, []),
          meta: parseJson<Record<string, unknown>>(r.meta, {}),
          context: r.context ?? '',
          created: r.created,
        })),
        [
          'wiki_pages',
          function* () {
            // The titles first: a page is read through the wiki (another query) while the pages are written.
            const titles = (c.stmt('SELECT id, title FROM wiki_pages WHERE layer = ? AND user_id = ? ORDER BY id').all(scope.layer, scope.user_id) as { title: string }[]).map((r) => r.title);
            for (const title of titles) {
              // The page as a read sees it (its file's text when the file is newer than the row).
              const p = wiki.getByTitle(scope, title)!;
              yield { id: p.id, path: p.path, title: p.title, wiki_type: p.wiki_type as WikiType, tags: p.tags, content: p.content, created: p.created, updated: p.updated };
            }
          },
        ],
        kind('wiki_links', 'SELECT * FROM wiki_links WHERE layer = ? AND user_id = ? ORDER BY id', (r) => ({
          from_title: r.from_title,
          to_title: r.to_title,
          relation: r.relation as WikiLinkRelation,
          created: r.created,
        })),
        kind('graph_nodes', 'SELECT * FROM graph_nodes WHERE layer = ? AND user_id = ? ORDER BY id', (r) => ({
          node_id: makeId('node', r.id),
          content: r.content,
          node_type: r.node_type,
          tags: parseJson<string[]>(r.tags, []),
          confidence: r.confidence,
          created: r.created,
        })),
        kind('graph_edges', 'SELECT * FROM graph_edges WHERE layer = ? AND user_id = ? ORDER BY id', (r) => ({
          from: makeId('node', r.from_id),
          to: makeId('node', r.to_id),
          relation: r.relation as GraphRelation,
          strength: r.strength,
          created: r.created,
        })),
        kind('timeline', 'SELECT * FROM timeline_events WHERE layer = ? AND user_id = ? ORDER BY id', (r) => ({
          type: r.type,
          summary: r.summary,
          metadata: parseJson<Record<string, unknown>>(r.metadata, {}),
          created: r.created,
        })),
        kind('sessions', 'SELECT * FROM sessions WHERE layer = ? AND user_id = ? ORDER BY id', (r) => ({
          id: makeId('sess', r.id),
          status: r.status,
          started: r.started,
          ended: r.ended,
          summary: r.summary,
          topics: parseJson<string[]>(r.topics, []),
          state_deltas: parseJson<unknown>(r.state_deltas, {}),
          quality: r.quality,
          quality_detail: parseJson<Record<string, unknown> | null>(r.quality_detail, null),
        })),
        kind('scratchpad', 'SELECT key, content, created, updated FROM scratchpad WHERE layer = ? AND user_id = ? ORDER BY seq', (r) => ({
          key: r.key,
          content: r.content,
          created: r.created,
          updated: r.updated,
        })),
        ...this.extras.exportKinds(scope),
      ],
    };
  }

  /** The scope as one document in memory (an inline export, the import benchmark); exportTo writes a large one without holding it. */
  exportScope(scope: Scope): ScopeDocument {
    const parts = this.exportParts(scope);
    const doc: Record<string, unknown> = { ...parts.header };
    for (const [k, records] of parts.kinds) doc[k] = [...records()];
    return doc as unknown as ScopeDocument;
  }

  /**
   * memory_data export without the document in memory whole: its JSON is produced a record at a
   * time (scope-export.ts). With `inlineMax` a number, the records are kept while the JSON is at
   * most that many bytes and come back as `doc`; past it, what was produced goes to an export
   * file and the rest follows it there, nothing of it kept. With `inlineMax` null it is written to
   * a file from the start. `file` is the file's name in exports/, `bytes` the JSON's size either way.
   */
  exportTo(scope: Scope, inlineMax: number | null): { counts: KindCounts; bytes: number; doc?: ScopeDocument; file?: string } {
    const parts = this.exportParts(scope);
    const counts = zero();
    const out = {
      file: inlineMax === null ? this.exportFile(parts.header) : null,
      held: [] as string[],
      heldBytes: 0,
      records: inlineMax === null ? null : (new Map() as Map<ScopeDocKind, object[]> | null),
    };
    const emit = (text: string) => {
      if (out.file) return out.file.write(text);
      out.held.push(text);
      out.heldBytes += Buffer.byteLength(text, 'utf8');
      if (out.heldBytes <= inlineMax!) return;
      // Over the inline limit: a file from here on, and nothing of the document kept in memory.
      out.file = this.exportFile(parts.header);
      for (const t of out.held) out.file.write(t);
      out.held = [];
      out.records = null;
    };
    const keep = (k: ScopeDocKind, record: object) => {
      counts[k]++;
      if (!out.records) return;
      const list = out.records.get(k);
      if (list) list.push(record);
      else out.records.set(k, [record]);
    };
    try {
      emitDocJson(parts, emit, keep);
    } catch (err) {
      out.file?.abort();
      throw err;
    }
    if (out.file) {
      const bytes = out.file.bytes;
      return { counts, bytes, file: out.file.commit() };
    }
    const doc: Record<string, unknown> = { ...parts.header };
    for (const [k] of parts.kinds) doc[k] = out.records?.get(k) ?? [];
    return { counts, bytes: out.heldBytes, doc: doc as unknown as ScopeDocument };
  }

  /**
   * The scope written to an export file that is named only by commit (import replace's
   * previous_export, taken before the import and kept once it went through); abort removes it.
   */
  exportPending(scope: Scope): { counts: KindCounts; commit: () => string; abort: () => void } {
    const parts = this.exportParts(scope);
    const counts = zero();
    const file = this.exportFile(parts.header);
    try {
      emitDocJson(parts, (t) => file.write(t), (k) => counts[k]++);
    } catch (err) {
      file.abort();
      throw err;
    }
    return { counts, commit: () => file.commit(), abort: () => file.abort() };
  }

  /** Records of each kind in a document. */
  static counts(doc: ScopeDocument): KindCounts {
    return Object.fromEntries(SCOPE_DOC_KINDS.map((k) => [k, doc[k].length])) as KindCounts;
  }

  /** Write a document to `<data_dir>/exports/<layer>-<user_id slug>-<time>.json` (a free name), a record at a time; returns the file name and bytes. */
  writeFile(doc: ScopeDocument): { file: string; bytes: number } {
    const file = this.exportFile(doc);
    try {
      emitDocJson(partsOf(doc, SCOPE_DOC_KINDS), (t) => file.write(t));
    } catch (err) {
      file.abort();
      throw err;
    }
    const bytes = file.bytes;
    return { file: file.commit(), bytes };
  }

  /** The writer of an export file of the document with this header: `<layer>-<user_id slug>-<time>` in exports/. */
  private exportFile(header: DocHeader): ExportFileWriter {
    const stamp = header.exported_at.replace(/[-:.]/g, '');
    return new ExportFileWriter(safeJoin(this.stores.ctx.dataDir, EXPORTS_DIR), `${header.layer}-${idSegment(header.user_id)}-${stamp}`);
  }

  /** The parsed JSON of an export file in `<data_dir>/exports/`; errors name `field`. */
  readFile(name: string, field = 'file'): unknown {
    return this.parseFile(name, fs.readFileSync(this.exportFilePath(name, field), 'utf8'), field);
  }

  /**
   * readFile, reading the file without blocking the event loop (memory_data import: a 48 MB file
   * took about 0.4 s to read, while an HTTP server answered nothing). Parsing stays synchronous.
   */
  async readFileAsync(name: string, field = 'file'): Promise<unknown> {
    return this.parseFile(name, await fs.promises.readFile(this.exportFilePath(name, field), 'utf8'), field);
  }

  /** The path of an export file an import may read: a plain .json name in exports/, an existing file within the size limit. */
  private exportFilePath(name: string, field: string): string {
    if (typeof name !== 'string' || !FILE_NAME.test(name) || name.includes('..')) {
      throw validationError(field, `${field} must be the name of a .json file in ${EXPORTS_DIR}/ (letters, digits, '.', '_', '-'), as export returned it`, 'an export file name');
    }
    const file = safeJoin(this.stores.ctx.dataDir, EXPORTS_DIR, name);
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (!st || !st.isFile()) throw notFound(`export file in ${EXPORTS_DIR}/`, name, field);
    if (st.size > EXPORT_FILE_MAX_BYTES) throw validationError(field, `${field} is larger than ${EXPORT_FILE_MAX_BYTES} bytes`, `at most ${EXPORT_FILE_MAX_BYTES} bytes`);
    return file;
  }

  private parseFile(name: string, text: string, field: string): unknown {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw validationError(field, `${field} ${name} is not valid JSON: ${(err as Error).message}`, 'a memory_data export');
    }
  }

  /** Check a document whole without writing (errors name the path under `root`); see checkScopeDocument. */
  check(input: unknown, root = 'data'): ScopeDocument {
    if (this.checked.has(input as object)) return input as ScopeDocument;
    const doc = checkScopeDocument(input, root, this.stores.config.maxTextChars);
    this.checked.add(doc);
    return doc;
  }

  /**
   * The documents check() answered (its own objects, which nothing else holds or changes): importScope
   * given one does not check it again. memory_data checks a document before taking the write lock,
   * and the second check took about 0.5 s of the lock's time at 48 MB.
   */
  private readonly checked = new WeakSet<object>();

  /**
   * Check `input` whole (errors name the path under `root`), then write it into `scope` in one
   * transaction. merge leaves out what the target holds: a fact of the same key, a page of the
   * same title, a scratchpad entry of the same key, and an episode, graph node, edge, timeline
   * event or session identical to one it held before the import (so importing twice adds nothing);
   * the later kinds follow ScopeDataExtras.importScope. replace first clears the target's records
   * of every kind and its L1 ring, archiving its facts, episodes, graph nodes and wiki pages in the Shadow Bin.
   * Nothing is written when any check fails.
   */
  importScope(scope: Scope, input: unknown, mode: ImportMode, root = 'data'): ImportResult {
    checkScope(scope);
    if (!(IMPORT_MODES as readonly string[]).includes(mode)) throw validationError('mode', `mode must be one of ${IMPORT_MODES.join(', ')}`, IMPORT_MODES);
    const doc = this.check(input, root);
    const s = this.stores;
    const max = s.config.scratchpadMax;
    // The page files the import owes are noted with its rows: a process stopped before writing
    // them all leaves them to the next start, which writes them whatever their time. One transaction
    // and no savepoint per record (bulk): the import is all or nothing, and savepoints inside an open
    // one made it grow with the square of the records written.
    return s.ctx.bulk(() => s.wiki.withFileWritesRecorded(() => {
      const res: ImportResult = { mode, imported: zero(), skipped: zero(), cleared: zero(), cleared_l1: 0, archived: 0, renamed_standing_queries: [] };
      if (mode === 'replace') this.clear(scope, res);
      const now = s.ctx.iso();
      const c = s.ctx;
      const step = <T>(kind: ScopeDocKind, i: number, fn: () => T): T => {
        try {
          return fn();
        } catch (err) {
          // A store's refusal, or a kernel check it runs (a title's control characters), names a bare field.
          const e = err as { field?: unknown; accepted?: unknown; message: string };
          if ((err instanceof StoreError || (err as Error).name === 'ValidationError') && typeof e.field === 'string' && e.field) {
            throw validationError(`${root}.${kind}[${i}].${e.field}`, `${root}.${kind}[${i}]: ${e.message}`, e.accepted);
          }
          throw err;
        }
      };
      const sql = (q: string, ...args: unknown[]) => c.stmt(q).run(...args);

      // Pages, nodes and sessions first: the episodes, facts and events written after them name
      // them, by the ids this import gives them (ImportRefs), not the exported scope's. A skill
      // page names its episode, so it follows the episodes, and the links follow every page.
      const refs = new ImportRefs();
      const writePage = (p: ScopeDocument['wiki_pages'][number], i: number, tags: string[], content: string) => {
        const held = s.wiki.getByTitle(scope, p.title);
        if (held) {
          refs.page(p, held);
          return void res.skipped.wiki_pages++;
        }
        const made = step('wiki_pages', i, () => s.wiki.save(scope, { title: p.title, content, wiki_type: p.wiki_type, tags }));
        refs.page(p, made);
        sql('UPDATE wiki_pages SET created = ?, updated = ? WHERE id = ?', at(p.created, now), at(p.updated, now), parseId('wiki', made.id));
        res.imported.wiki_pages++;
      };
      // A skill page promoted from an episode names it: written once the episodes are (below).
      doc.wiki_pages.forEach((p, i) => {
        if (!ImportRefs.namesEpisode(p.tags)) writePage(p, i, p.tags, p.content);
      });
      // Nodes the target held before: a node of the document with the same type and content is that node.
      const nodeHeld = new Map<string, string>();
      if (mode === 'merge') {
        for (const r of c.stmt('SELECT id, node_type, norm_content FROM graph_nodes WHERE layer = ? AND user_id = ? ORDER BY id').all(scope.layer, scope.user_id) as { id: number; node_type: string; norm_content: string }[]) {
          const k = `${r.node_type}\u0000${r.norm_content}`;
          if (!nodeHeld.has(k)) nodeHeld.set(k, makeId('node', r.id));
        }
      }
      const nodeMap = refs.nodes;
      doc.graph_nodes.forEach((n, i) => {
        const type = nodeTypeOf(n.node_type);
        const existing = nodeHeld.get(`${type}\u0000${normalizeContent(n.content.trim())}`);
        if (existing) {
          nodeMap.set(n.node_id, existing);
          return void res.skipped.graph_nodes++;
        }
        // Created at its time, not updated to it after: an UPDATE per record was a tenth of the import.
        const made = step('graph_nodes', i, () => s.graph.addNode(scope, { content: n.content, node_type: n.node_type, tags: n.tags, confidence: n.confidence }, at(n.created, now)));
        nodeMap.set(n.node_id, made.node_id);
        if (made.existed) return void res.skipped.graph_nodes++;
        res.imported.graph_nodes++;
      });
      const edgeExists = c.stmt('SELECT 1 FROM graph_edges WHERE from_id = ? AND to_id = ? AND relation = ?');
      doc.graph_edges.forEach((e, i) => {
        const from = nodeMap.get(e.from)!;
        const to = nodeMap.get(e.to)!;
        const ids = [parseId('node', from), parseId('node', to)];
        if (edgeExists.get(ids[0], ids[1], e.relation)) return void res.skipped.graph_edges++;
        step('graph_edges', i, () => s.graph.addEdge(scope, { from, to, relation: e.relation, strength: e.strength }));
        sql('UPDATE graph_edges SET created = ? WHERE from_id = ? AND to_id = ? AND relation = ?', at(e.created, now), ids[0], ids[1], e.relation);
        res.imported.graph_edges++;
      });

      const heldIds = (q: string) => new Map((c.stmt(q).all(scope.layer, scope.user_id) as { k: string; id: number }[]).map((r) => [r.k, r.id]));
      const sessHeld = heldIds('SELECT started AS k, id FROM sessions WHERE layer = ? AND user_id = ?');
      const hasOpen = () => c.stmt("SELECT 1 FROM sessions WHERE layer = ? AND user_id = ? AND status = 'open'").get(scope.layer, scope.user_id) !== undefined;
      doc.sessions.forEach((x: DocSession) => {
        const held = sessHeld.get(x.started);
        if (held !== undefined) {
          if (x.id) refs.sessions.set(x.id, makeId('sess', held));
          return void res.skipped.sessions++;
        }
        // One open session per scope: the document's open one is left out when the target has one open.
        if (x.status === 'open' && hasOpen()) return void res.skipped.sessions++;
        const info = sql(
          'INSERT INTO sessions (layer, user_id, status, started, ended, summary, topics, state_deltas, quality, quality_detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
          scope.layer,
          scope.user_id,
          x.status,
          x.started,
          x.ended,
          x.summary,
          JSON.stringify(x.topics),
          JSON.stringify(x.state_deltas ?? {}),
          x.quality,
          x.quality_detail === null ? null : JSON.stringify(x.quality_detail),
        );
        const id = makeId('sess', Number(info.lastInsertRowid));
        if (x.id) refs.sessions.set(x.id, id);
        s.audit.log(scope, 'import', 'session', id);
        res.imported.sessions++;
      });

      const epHeld = mode === 'merge' ? heldIds("SELECT created || char(0) || summary AS k, id FROM episodes WHERE layer = ? AND user_id = ?") : new Map<string, number>();
      doc.episodes.forEach((e, i) => {
        const { meta, text: summary } = refs.record(e.meta, e.summary);
        const held = epHeld.get(`${at(e.created, now)}\u0000${summary}`);
        if (held !== undefined) {
          if (e.id) refs.episodes.set(e.id, makeId('ep', held));
          return void res.skipped.episodes++;
        }
        const made = step('episodes', i, () => s.episodes.add(scope, { summary, emotional_weight: e.emotional_weight, importance: e.importance, tags: e.tags, meta, context: e.context }, at(e.created, now)));
        if (e.id) refs.episodes.set(e.id, made.id);
        res.imported.episodes++;
      });

      doc.wiki_pages.forEach((p, i) => {
        if (!ImportRefs.namesEpisode(p.tags)) return;
        const { tags, content } = refs.skillPage(p.tags, p.content);
        writePage(p, i, tags, content);
      });
      doc.wiki_links.forEach((l, i) => {
        const made = step('wiki_links', i, () => s.wiki.link(scope, l.from_title, l.to_title, l.relation, { from: 'from_title', to: 'to_title' }));
        if (!made.created_new) return void res.skipped.wiki_links++;
        sql('UPDATE wiki_links SET created = ? WHERE layer = ? AND user_id = ? AND from_title = ? AND to_title = ? AND relation = ?', at(l.created, now), scope.layer, scope.user_id, l.from_title, l.to_title, l.relation);
        res.imported.wiki_links++;
      });

      doc.facts.forEach((f, i) => {
        const held = s.facts.get(scope, f.key);
        if (held) {
          if (f.entry_id) refs.facts.set(f.entry_id, held.entry_id);
          return void res.skipped.facts++;
        }
        const { meta: metadata, text: value } = refs.record(f.metadata, f.value);
        const times = { created: at(f.created, now), updated: at(f.updated, now) };
        const made = step('facts', i, () => s.facts.upsert(scope, { key: f.key, value, importance: f.importance, source: f.source, metadata }, 'upsert', times));
        if (f.entry_id) refs.facts.set(f.entry_id, made.entry_id);
        // A key held under another form of it (NFC) was updated, at now: it keeps the document's times too.
        if (!made.created_new) sql('UPDATE facts SET created = ?, updated = ? WHERE id = ?', times.created, times.updated, parseId('fact', made.entry_id));
        res.imported.facts++;
      });

      const heldKeys = (q: string) => new Set((c.stmt(q).all(scope.layer, scope.user_id) as { k: string }[]).map((r) => r.k));
      const evHeld = mode === 'merge' ? heldKeys("SELECT created || char(0) || type || char(0) || summary AS k FROM timeline_events WHERE layer = ? AND user_id = ?") : new Set<string>();
      doc.timeline.forEach((t, i) => {
        if (evHeld.has(`${at(t.created, now)}\u0000${t.type}\u0000${t.summary}`)) return void res.skipped.timeline++;
        step('timeline', i, () => s.timeline.add(scope, { type: t.type, summary: t.summary, metadata: refs.timeline(t.metadata) }, at(t.created, now)));
        res.imported.timeline++;
      });

      // New: a key the target does not hold, nor an earlier entry of the document under another
      // form of it (an older build could hold "café" precomposed and decomposed as two notes; the
      // second would overwrite the first, so it is skipped and counted so).
      const stored = new Set<string>();
      const newKeys = doc.scratchpad.filter((e) => {
        const key = toNfc(e.key);
        if (stored.has(key) || s.scratchpad.get(scope, e.key)) return false;
        stored.add(key);
        return true;
      });
      if (s.scratchpad.count(scope) + newKeys.length > max) {
        throw validationError(`${root}.scratchpad`, `${root}.scratchpad would take the scratchpad of the target past its ${max} entries (it holds ${s.scratchpad.count(scope)}, the document adds ${newKeys.length}); nothing was imported`, `at most ${max} entries in all`);
      }
      doc.scratchpad.forEach((e, i) => {
        if (!newKeys.includes(e)) return void res.skipped.scratchpad++;
        const made = step('scratchpad', i, () => s.scratchpad.write(scope, e.key, e.content));
        // Under the key as stored (NFC), which may not be the document's form.
        sql('UPDATE scratchpad SET created = ?, updated = ? WHERE layer = ? AND user_id = ? AND key = ?', at(e.created, now), at(e.updated, now), scope.layer, scope.user_id, made.key);
        res.imported.scratchpad++;
      });
      this.extras.importScope(scope, doc, { root, replace: mode === 'replace', now, step, refs, imported: res.imported, skipped: res.skipped, renamed: res.renamed_standing_queries });
      s.audit.log(scope, 'import', 'scope', `${scope.layer}:${scope.user_id}`, { mode, from: { layer: doc.layer, user_id: doc.user_id }, imported: res.imported, skipped: res.skipped, cleared: res.cleared });
      return res;
    }));
  }

  /**
   * replace: every record of the scope goes, its L1 ring too, its facts, episodes, graph nodes and
   * wiki pages archived first (ScopeClear: a statement per table, not per record).
   */
  private clear(scope: Scope, res: ImportResult): void {
    const s = this.stores;
    const c = s.ctx;
    new ScopeClear(s).clear(scope, res);
    res.cleared.timeline = c.stmt('DELETE FROM timeline_events WHERE layer = ? AND user_id = ?').run(scope.layer, scope.user_id).changes;
    res.cleared.sessions = c.stmt('DELETE FROM sessions WHERE layer = ? AND user_id = ?').run(scope.layer, scope.user_id).changes;
    res.cleared.scratchpad = s.scratchpad.clear(scope);
    // The recent turns are the replaced memory's too: wake_up and memory_context would still show them.
    res.cleared_l1 = s.l1.clear(scope);
    this.extras.clear(scope, res.cleared);
  }
}
