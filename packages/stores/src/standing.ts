import fs from 'node:fs';
import path from 'node:path';
import type { StoreContext } from './context.js';
import { clearFileNotes } from './file-notes.js';
import type { EpisodeStore, Episode } from './episodes.js';
import { notFound, validationError, valueError } from './errors.js';
import type { Fact, FactStore } from './facts.js';
import { MEMORY_QUERY_MAX_LIMIT, MEMORY_QUERY_TARGETS, memoryQuerySql, type MemoryQuery, type MemoryQueryTarget } from './memory-query.js';
import { idSegment, removeStaleTemps, safeJoin, writeFileAtomic } from './paths.js';
import { LAYERS, type Scope } from './types.js';
import { checkScope } from './util.js';
import { yaml } from './yaml.js';

/** The folder of the standing query files, under the data dir (a backup holds its files: ops/backup-files.ts). */
export const STANDING_FOLDER = ['.meta', 'standing'] as const;
/** The longest standing query name, in characters (the spec's limit). */
export const STANDING_NAME_MAX = 100;
/** A name: ASCII letters and digits only (the spec: alphanumeric), so it is a file name as it stands. */
export const STANDING_NAME_PATTERN = /^[A-Za-z0-9]+$/;
export const STANDING_NAME_ACCEPTED = `1 to ${STANDING_NAME_MAX} characters, ASCII letters and digits only`;
/**
 * A name an older build accepted and this one does not: `_` and `-` after a first letter or digit.
 * Such a name is never taken as a name; its query is renamed (renamedStandingName) when the start
 * finds its file, when memory_data imports it and when memory_backup restores it.
 */
export const STANDING_LEGACY_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
/** The filters a standing query may hold: memory_query's (limit clamped on run), plus its target. */
export const STANDING_FILTER_KEYS = ['target', 'importance_min', 'importance_max', 'key_like', 'content_like', 'created_since', 'created_until', 'tag', 'limit'] as const;
/** Every key spec_json accepts: the filters and a description. */
export const STANDING_SPEC_KEYS = [...STANDING_FILTER_KEYS, 'description'] as const;
export const STANDING_DESCRIPTION_MAX = 500;
/** Standing queries kept per layer and user_id. */
export const STANDING_MAX = 100;
/** The longest spec_json text, in characters. */
export const STANDING_SPEC_JSON_MAX = 20_000;

export type StandingFilters = Omit<MemoryQuery, 'offset'> & { target: MemoryQueryTarget };

export interface StandingQuery {
  name: string;
  description: string;
  filters: StandingFilters;
  created: string;
  updated: string;
}

/**
 * A standing query's spec_json as the spec's record names it: the whitelisted filters plus the
 * description, the object a caller can pass back to memory_standing save as it is.
 */
export function standingSpecJson(q: Pick<StandingQuery, 'filters' | 'description'>): Record<string, unknown> {
  return { ...q.filters, description: q.description };
}

export interface StandingRun {
  name: string;
  /** The query run, as its record's spec_json (standingSpecJson). */
  spec_json: Record<string, unknown>;
  target: MemoryQueryTarget;
  /** The limit applied: the run's or the query's, clamped to 1..MEMORY_QUERY_MAX_LIMIT. */
  limit: number;
  /** True when the limit asked for was outside 1..MEMORY_QUERY_MAX_LIMIT and was clamped. */
  limit_clamped: boolean;
  facts: Fact[];
  episodes: Episode[];
  total: number;
}

/** A standing query renamed from an older build's name: the folder (relative to the data dir), the old and the new name. */
export interface StandingRename {
  folder: string;
  from: string;
  to: string;
}

/** The name a standing query file holds when it agrees with the file's name (`stem`, lower case), else the stem (as read takes it). */
export function savedStandingName(text: string, stem: string): string {
  try {
    const doc = yaml().parse(text) as unknown;
    const name = typeof doc === 'object' && doc !== null ? (doc as Record<string, unknown>).name : undefined;
    return typeof name === 'string' && name.toLowerCase() === stem ? name : stem;
  } catch {
    return stem;
  }
}

const SCOPE_FOR_CHECKS: Scope = { layer: 'user', user_id: 'default' };

/** A limit clamped to 1..MEMORY_QUERY_MAX_LIMIT (whole numbers only), and whether it was clamped. */
export function clampLimit(value: unknown, field: string): { limit: number; clamped: boolean } {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw validationError(field, `${field} must be a whole number (clamped to 1..${MEMORY_QUERY_MAX_LIMIT})`, `1..${MEMORY_QUERY_MAX_LIMIT}`);
  const limit = Math.min(MEMORY_QUERY_MAX_LIMIT, Math.max(1, value));
  return { limit, clamped: limit !== value };
}

/**
 * Check a standing query name without touching a file or the database: a hostile name (a path, a
 * name over STANDING_NAME_MAX characters, anything but ASCII letters and digits) raises a
 * ValueError naming `name`.
 */
export function checkStandingName(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0 || name.length > STANDING_NAME_MAX || !STANDING_NAME_PATTERN.test(name)) {
    const shown = typeof name === 'string' ? JSON.stringify(name.slice(0, 60)) + (name.length > 60 ? '...' : '') : typeof name;
    throw valueError('name', `standing query name must be ${STANDING_NAME_ACCEPTED}; got ${shown}`, STANDING_NAME_ACCEPTED);
  }
  return name;
}

/** Whether `name` is a name only an older build accepted (it holds `_` or `-`): renamed, never refused, where old data comes in. */
export function isLegacyStandingName(name: unknown): boolean {
  return typeof name === 'string' && name.length > 0 && name.length <= STANDING_NAME_MAX && STANDING_LEGACY_NAME_PATTERN.test(name) && !STANDING_NAME_PATTERN.test(name);
}

/**
 * The name an older build's name (isLegacyStandingName) takes now: its `_` and `-` removed; when
 * that is empty or `taken` (asked in lower case, as the files are named), the smallest number
 * suffix 1, 2, ... that makes it free, the name cut so the whole stays within STANDING_NAME_MAX.
 */
export function renamedStandingName(name: string, taken: (lower: string) => boolean): string {
  const base = name.replace(/[_-]/g, '');
  if (base.length > 0 && !taken(base.toLowerCase())) return base;
  for (let n = 1; ; n++) {
    const suffix = String(n);
    const candidate = base.slice(0, STANDING_NAME_MAX - suffix.length) + suffix;
    if (!taken(candidate.toLowerCase())) return candidate;
  }
}

/**
 * A standing query file's text with the name it holds changed to `name` (a renamed older name), so
 * the name saved and the file name agree; a text that is not a YAML mapping is kept as it is (the
 * file name then gives the name, as read does).
 */
export function renamedStandingText(text: string, name: string): string {
  let doc: unknown;
  try {
    doc = yaml().parse(text);
  } catch {
    return text;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return text;
  return yaml().stringify({ ...(doc as Record<string, unknown>), name });
}

/**
 * Check a standing query's spec (spec_json as an object or its JSON text) without touching a file
 * or the database: an unknown key raises a ValueError naming `spec_json`; a filter value memory_query
 * would refuse raises its validation error naming `spec_json.<filter>`. Returns the filters and the
 * description.
 */
export function checkStandingSpec(spec: unknown): { filters: StandingFilters; description: string } {
  let obj = spec;
  if (typeof spec === 'string') {
    if (spec.length > STANDING_SPEC_JSON_MAX) throw validationError('spec_json', `spec_json must be at most ${STANDING_SPEC_JSON_MAX} characters`, { max: STANDING_SPEC_JSON_MAX });
    try {
      obj = JSON.parse(spec);
    } catch {
      throw validationError('spec_json', 'spec_json must be a JSON object of filters', `a JSON object with keys among ${STANDING_SPEC_KEYS.join(', ')}`);
    }
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    throw validationError('spec_json', 'spec_json must be a JSON object of filters', `a JSON object with keys among ${STANDING_SPEC_KEYS.join(', ')}`);
  }
  const rec = obj as Record<string, unknown>;
  const unknown = Object.keys(rec).filter((k) => !(STANDING_SPEC_KEYS as readonly string[]).includes(k));
  if (unknown.length > 0) {
    throw valueError('spec_json', `spec_json has unknown filter keys: ${unknown.slice(0, 10).map((k) => JSON.stringify(k.slice(0, 60))).join(', ')}`, STANDING_SPEC_KEYS);
  }
  const description = rec.description ?? '';
  if (typeof description !== 'string' || description.length > STANDING_DESCRIPTION_MAX) {
    throw validationError('spec_json.description', `description must be a text of at most ${STANDING_DESCRIPTION_MAX} characters`, { max: STANDING_DESCRIPTION_MAX });
  }
  const target = rec.target ?? 'core';
  if (!(MEMORY_QUERY_TARGETS as readonly unknown[]).includes(target)) {
    throw validationError('spec_json.target', `target must be one of ${MEMORY_QUERY_TARGETS.join(', ')}`, MEMORY_QUERY_TARGETS);
  }
  const filters: StandingFilters = { target: target as MemoryQueryTarget };
  for (const k of STANDING_FILTER_KEYS) {
    if (k === 'target' || rec[k] === undefined) continue;
    (filters as unknown as Record<string, unknown>)[k] = rec[k];
  }
  if (filters.limit !== undefined) clampLimit(filters.limit, 'spec_json.limit');
  // memory_query's own checks, on the SQL text alone (nothing runs): each error named within spec_json.
  const { target: _t, limit: _l, ...q } = filters;
  try {
    memoryQuerySql(SCOPE_FOR_CHECKS, q, filters.target, filters.target === 'core' ? { content: 'value', key: 'key' } : { content: 'summary', tags: { table: 'episode_tags', fk: 'episode_id' } });
  } catch (err) {
    const e = err as { field?: string; message: string; accepted?: unknown };
    if (e.field) throw validationError(`spec_json.${e.field}`, e.message, e.accepted);
    throw err;
  }
  return { filters, description };
}

/**
 * Standing queries: named memory_query filters of one layer and user_id, each a YAML file
 * `<data_dir>/.meta/standing/<layer>/<user_id segment>/<name>.yaml` (names are case-insensitive: the
 * file is named in lower case). Every name and spec is checked before any file or SQL access.
 */
export class StandingStore {
  constructor(
    private readonly ctx: StoreContext,
    private readonly facts: FactStore,
    private readonly episodes: EpisodeStore,
  ) {}

  /** The folder of a scope's standing queries. */
  dir(scope: Scope): string {
    return safeJoin(this.ctx.dataDir, ...STANDING_FOLDER, scope.layer, idSegment(scope.user_id));
  }

  private file(scope: Scope, name: string): string {
    return safeJoin(this.dir(scope), `${name.toLowerCase()}.yaml`);
  }

  /** Save (or replace) a standing query; returns it and whether it replaced one of the same name. */
  save(scope: Scope, name: string, spec: unknown): { query: StandingQuery; replaced: boolean } {
    checkStandingName(name);
    const { filters, description } = checkStandingSpec(spec);
    checkScope(scope);
    const file = this.file(scope, name);
    const before = this.read(scope, name);
    if (!before && this.names(scope).length >= STANDING_MAX) {
      throw validationError('name', `at most ${STANDING_MAX} standing queries are kept per layer and user_id; delete one first`, { max: STANDING_MAX });
    }
    const now = this.ctx.iso();
    const query: StandingQuery = { name, description, filters, created: before?.created ?? now, updated: now };
    writeFileAtomic(file, yaml().stringify({ name, description, filters, created: query.created, updated: now }));
    this.owedDone([this.rel(file)]);
    return { query, replaced: before !== null };
  }

  /** The scope's standing queries, by name; a file that does not read as one is left out (and reported on the logger). */
  list(scope: Scope): StandingQuery[] {
    checkScope(scope);
    const out: StandingQuery[] = [];
    for (const n of this.names(scope)) {
      try {
        const q = this.read(scope, n);
        if (q) out.push(q);
      } catch (err) {
        this.ctx.logger.warn(`standing query file ${n}.yaml left out: ${(err as Error).message}`);
      }
    }
    return out.sort((a, b) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : 1));
  }

  /** One standing query, or null when the scope has none of that name. */
  get(scope: Scope, name: string): StandingQuery | null {
    checkStandingName(name);
    checkScope(scope);
    return this.read(scope, name);
  }

  /** Run a standing query through memory_query's filters; `limit` overrides the query's, both clamped. */
  run(scope: Scope, name: string, opts: { limit?: number; offset?: number } = {}): StandingRun {
    checkStandingName(name);
    const asked = opts.limit === undefined ? undefined : clampLimit(opts.limit, 'limit');
    checkScope(scope);
    const q = this.read(scope, name);
    if (!q) throw notFound(`standing query of layer ${scope.layer}, user_id ${JSON.stringify(scope.user_id)}`, name, 'name');
    const { target, limit: saved, ...filters } = q.filters;
    const { limit, clamped } = asked ?? (saved === undefined ? { limit: 50, clamped: false } : clampLimit(saved, 'limit'));
    const query: MemoryQuery = { ...filters, limit, offset: opts.offset ?? 0 };
    if (target === 'core') {
      const r = this.facts.query(scope, query);
      return { name: q.name, spec_json: standingSpecJson(q), target, limit, limit_clamped: clamped, facts: r.facts, episodes: [], total: r.total };
    }
    const r = this.episodes.query(scope, query);
    return { name: q.name, spec_json: standingSpecJson(q), target, limit, limit_clamped: clamped, facts: [], episodes: r.episodes, total: r.total };
  }

  /** Delete a standing query; an unknown name is an error naming `name`. */
  delete(scope: Scope, name: string): StandingQuery {
    checkStandingName(name);
    checkScope(scope);
    const q = this.read(scope, name);
    if (!q) throw notFound(`standing query of layer ${scope.layer}, user_id ${JSON.stringify(scope.user_id)}`, name, 'name');
    const file = this.file(scope, name);
    fs.rmSync(file, { force: true });
    this.owedDone([this.rel(file)]);
    return q;
  }

  /**
   * Write a standing query as the record gives it, with its times (memory_data import), once the
   * open transaction commits (a rolled-back import leaves no file). A name the scope holds already
   * is left as it is (false); past STANDING_MAX is an error naming `field`. `pending` counts the
   * files this transaction will write before this one, which the folder does not show yet;
   * `cleared` says the transaction clears the scope's queries first (clear), so none is held.
   */
  restore(scope: Scope, q: StandingQuery, opts: { pending?: number; cleared?: boolean; field?: string } = {}): boolean {
    checkStandingName(q.name);
    const { filters, description } = checkStandingSpec({ ...q.filters, description: q.description });
    checkScope(scope);
    if (!opts.cleared && this.read(scope, q.name)) return false;
    if ((opts.cleared ? 0 : this.names(scope).length) + (opts.pending ?? 0) >= STANDING_MAX) {
      throw validationError(opts.field ?? 'name', `at most ${STANDING_MAX} standing queries are kept per layer and user_id`, { max: STANDING_MAX });
    }
    const file = this.file(scope, q.name);
    const text = yaml().stringify({ name: q.name, description, filters, created: q.created, updated: q.updated });
    this.owe([file], text);
    return true;
  }

  /**
   * Delete the scope's standing queries saved first at or after the ISO time (forget recent,
   * memory_lucidity_purge), their files removed once the open transaction commits; a file that does
   * not read as a query is left. Returns how many.
   */
  deleteSince(scope: Scope, sinceIso: string): number {
    checkScope(scope);
    const w = this.ctx.window(sinceIso);
    return this.removeWhere(scope, (q) => q.created >= w.since && q.created <= w.until);
  }

  /** Delete every standing query of the scope (memory_data import replace), files removed on commit; returns how many. */
  clear(scope: Scope): number {
    checkScope(scope);
    return this.removeWhere(scope, () => true);
  }

  private removeWhere(scope: Scope, test: (q: StandingQuery) => boolean): number {
    const files = this.list(scope)
      .filter(test)
      .map((q) => this.file(scope, q.name));
    if (files.length > 0) this.owe(files, null);
    return files.length;
  }

  /** A standing query file's path relative to the data dir, with forward slashes, as standing_file_writes holds it. */
  private rel(file: string): string {
    return path.relative(path.resolve(this.ctx.dataDir), file).split(path.sep).join('/');
  }

  /**
   * Inside the open transaction: note in standing_file_writes that these files are to hold `text`
   * (null: removed) once it commits, and do it then, clearing the notes. A standing query exists
   * only as its file, so the note, which commits with the transaction, is what a process stopped
   * after the commit leaves the next start to finish (finishWrites); a rolled-back transaction
   * leaves neither note nor file.
   */
  private owe(files: readonly string[], text: string | null): void {
    const note = this.ctx.stmt('INSERT OR REPLACE INTO standing_file_writes (path, content) VALUES (?, ?)');
    for (const f of files) note.run(this.rel(f), text);
    this.ctx.whenCommitted(() => {
      const done: string[] = [];
      for (const f of files) {
        try {
          if (text === null) fs.rmSync(f, { force: true });
          else writeFileAtomic(f, text);
          done.push(this.rel(f));
        } catch (err) {
          this.ctx.logger.error(`${text === null ? 'removing' : 'writing'} the standing query file ${this.rel(f)} failed (done at the next start): ${(err as Error).message}`);
        }
      }
      this.owedDone(done);
    });
  }

  /** Clear the notes of these files (written, removed, or saved since); never waits for the lock (a note left is done again at the next start, the same way). */
  private owedDone(rels: readonly string[]): void {
    if (rels.length === 0 || !this.ctx.db.open) return;
    // Most calls find no note: a read, not a write, then.
    if (this.ctx.stmt('SELECT 1 FROM standing_file_writes LIMIT 1').get() === undefined) return;
    // Left noted when it fails: the next start does it again.
    clearFileNotes(this.ctx, 'standing_file_writes', rels);
  }

  /**
   * Do the standing query file writes and removals the notes of standing_file_writes say a
   * committed transaction owed and a process stopped before doing (killed after an import's
   * commit), then clear those notes; a file that cannot be written keeps its note (for the next
   * start). Returns how many files were written or removed.
   */
  finishWrites(): number {
    // Nothing owed (the common case): no write lock taken, so a start never waits for another process's lock for nothing.
    if (!this.ctx.db.open || this.ctx.stmt('SELECT 1 FROM standing_file_writes LIMIT 1').get() === undefined) return 0;
    let done = 0;
    this.ctx.tx(() => {
      const notes = this.ctx.stmt('SELECT path, content FROM standing_file_writes').all() as { path: string; content: string | null }[];
      const clear = this.ctx.stmt('DELETE FROM standing_file_writes WHERE path = ?');
      const dirs = new Set<string>();
      for (const n of notes) {
        try {
          const abs = safeJoin(this.ctx.dataDir, n.path);
          if (n.content === null) fs.rmSync(abs, { force: true });
          else {
            writeFileAtomic(abs, n.content);
            dirs.add(path.dirname(abs));
          }
          clear.run(n.path);
          done++;
        } catch (err) {
          this.ctx.logger.error(`finishing the standing query file ${n.path} failed (tried again at the next start): ${(err as Error).message}`);
        }
      }
      for (const dir of dirs) removeStaleTemps(dir);
    });
    return done;
  }

  /**
   * Rename the standing query files an older build saved under names holding `_` or `-` (this one
   * takes ASCII letters and digits only, as the spec says): each `<name>.yaml` of every scope folder
   * becomes the file of renamedStandingName (taken: another file of the folder), its saved name
   * changed to match, and one line per rename goes to the logger (old -> new). Run at start, so no
   * saved query is stranded under a name no call can give; never throws (a file that cannot be
   * renamed is reported and tried again at the next start). Returns the renames.
   */
  renameLegacyFiles(): StandingRename[] {
    const done: StandingRename[] = [];
    const root = safeJoin(this.ctx.dataDir, ...STANDING_FOLDER);
    for (const layer of LAYERS) {
      let segments: fs.Dirent[];
      try {
        segments = fs.readdirSync(path.join(root, layer), { withFileTypes: true });
      } catch {
        continue;
      }
      for (const seg of segments.sort((a, b) => (a.name < b.name ? -1 : 1))) {
        // Real folders only: a symlinked one could lead out of the data dir.
        if (!seg.isDirectory()) continue;
        const dir = path.join(root, layer, seg.name);
        let entries: string[];
        try {
          entries = fs.readdirSync(dir);
        } catch (err) {
          this.ctx.logger.error(`renaming the standing query files of ${this.rel(dir)} failed (tried again at the next start): ${(err as Error).message}`);
          continue;
        }
        const stems = new Set(entries.filter((f) => f.endsWith('.yaml')).map((f) => f.slice(0, -'.yaml'.length).toLowerCase()));
        for (const stem of [...stems].filter(isLegacyStandingName).sort()) {
          const from = path.join(dir, `${stem}.yaml`);
          try {
            if (!fs.lstatSync(from).isFile()) continue;
            const text = fs.readFileSync(from, 'utf8');
            const saved = savedStandingName(text, stem);
            const to = renamedStandingName(saved, (lower) => stems.has(lower));
            writeFileAtomic(path.join(dir, `${to.toLowerCase()}.yaml`), renamedStandingText(text, to));
            fs.rmSync(from, { force: true });
            stems.delete(stem);
            stems.add(to.toLowerCase());
            done.push({ folder: this.rel(dir), from: saved, to });
            this.ctx.logger.warn(`standing query renamed ${JSON.stringify(saved)} -> ${JSON.stringify(to)} (${this.rel(dir)}): names are ASCII letters and digits only now (the spec: alphanumeric)`);
          } catch (err) {
            this.ctx.logger.error(`renaming the standing query file ${this.rel(from)} failed (tried again at the next start): ${(err as Error).message}`);
          }
        }
      }
    }
    return done;
  }

  /** Drop every note of standing_file_writes (a backup restored: its standing query files are the backup's copy). */
  dropOwed(): void {
    if (this.ctx.db.open) this.ctx.stmt('DELETE FROM standing_file_writes').run();
  }

  /** The names (lower case, as the files are named) of the scope's standing query files. */
  private names(scope: Scope): string[] {
    let entries: string[];
    try {
      entries = fs.readdirSync(this.dir(scope));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    return entries.filter((f) => f.endsWith('.yaml')).map((f) => f.slice(0, -'.yaml'.length)).filter((n) => n.length <= STANDING_NAME_MAX && STANDING_NAME_PATTERN.test(n));
  }

  /**
   * The standing query of a checked name, its file read and checked again (a file edited by hand
   * with an unknown key raises before any SQL); null when there is no file.
   */
  private read(scope: Scope, name: string): StandingQuery | null {
    let text: string;
    try {
      text = fs.readFileSync(this.file(scope, name), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    const doc = yaml().parse(text) as Record<string, unknown> | null;
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw valueError('name', `standing query file of ${JSON.stringify(name)} is not a YAML mapping`);
    const storedName = typeof doc.name === 'string' && doc.name.toLowerCase() === name.toLowerCase() ? doc.name : name;
    const { filters, description } = checkStandingSpec({ ...(doc.filters as object), description: doc.description ?? '' });
    const created = typeof doc.created === 'string' ? doc.created : '';
    const updated = typeof doc.updated === 'string' ? doc.updated : created;
    return { name: storedName, description, filters, created, updated };
  }
}
