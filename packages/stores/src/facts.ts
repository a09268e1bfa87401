import type { TimeWindow } from './iso-time.js';
import { checkNewName } from '@memory-service/kernel';
import type { AuditLog } from './audit.js';
import type { StoreContext } from './context.js';
import { validationError } from './errors.js';
import { lookupForms } from './identity-forms.js';
import { memoryQuerySql, type MemoryQuery } from './memory-query.js';
import { familyName, familyNumber, freeName } from './name-family.js';
import { writtenText } from './thought-link.js';
import type { Layer, Scope } from './types.js';
import type { VersionLog } from './versions.js';
import { checkScope, checkText, checkWordPattern, clamp, makeId, rowsMatching, wordFilterArgs, wordFilterSql, parseId, parseJson, checkMatchPattern } from './util.js';

export const FACT_SOURCES = ['user_explicit', 'staging_promotion', 'episode_promotion', 'legacy', 'manual'] as const;
export type FactSource = (typeof FACT_SOURCES)[number];

/** The longest fact key, in characters (code points); the tools that take a key publish it as their schema's bound. */
export const FACT_KEY_MAX = 500;

export const IMPORTANCE_MIN = 0.05;
export const IMPORTANCE_MAX = 1.0;

export interface Fact {
  /** `fact_<n>`: stable across updates of the same key. */
  entry_id: string;
  layer: Layer;
  user_id: string;
  key: string;
  value: string;
  importance: number;
  source: FactSource;
  metadata: Record<string, unknown>;
  created: string;
  updated: string;
  access_count: number;
  last_access: string | null;
}

export interface FactInput {
  key: string;
  value: string;
  importance?: number;
  source?: FactSource;
  metadata?: Record<string, unknown>;
}

export interface FactListOptions {
  limit?: number;
  offset?: number;
  orderBy?: 'importance' | 'updated' | 'created';
  /** Only facts updated inside this window (both ends included). */
  updatedIn?: TimeWindow;
}

interface Row {
  id: number;
  layer: Layer;
  user_id: string;
  key: string;
  value: string;
  importance: number;
  source: FactSource;
  metadata: string;
  created: string;
  updated: string;
  access_count: number;
  last_access: string | null;
}
/** A row of its table as SELECT * reads it. */
export type FactRow = Row;

export const FACT_PREFIX = 'fact';

/**
 * Prefixes of the keys the service generates (`note:`, `thought:`, `auto:`, `personality:` from
 * the primitives, `episode:` from the context tier's L3 to L4 consolidation, plus a slug of the
 * value's first words and a family number): the user never chose them.
 */
export const GENERATED_KEY_PREFIXES = ['note', 'thought', 'auto', 'personality', 'episode'] as const;
export type GeneratedKeyPrefix = (typeof GENERATED_KEY_PREFIXES)[number];
const GENERATED_KEY = new RegExp(`^(?:${GENERATED_KEY_PREFIXES.join('|')}):`);

/** Whether a fact key is one the service made (a GENERATED_KEY_PREFIXES prefix, then a slug of the value). */
export function isGeneratedKey(key: string): boolean {
  return GENERATED_KEY.test(key);
}

/**
 * The texts of a fact a pattern is matched against: the value, and the key when someone chose it.
 * A generated key is a slug of the value (so adds nothing) plus a prefix and a number that every
 * such fact shares: matched, "note", ":" or "2" swept up every fact think made. Likewise a long
 * thought's link is matched without the page title and path it ends with (writtenText): "diary"
 * or the user's id deleted the link, and the page with it.
 */
function matchedTexts(r: Row): string[] {
  const value = writtenText(r.value);
  return isGeneratedKey(r.key) ? [value] : [r.key, value];
}

/**
 * Refuse a key no fact holds yet, naming `field` as the caller's input names it (`key`, `fact_key`,
 * `fields.name`): it is one line (no control character: wake_up and memory_context print a fact as
 * a `- key: value` line, so a line break or an escape code in a key forged lines of the brief) and
 * holds no invisible format character (ab and a<U+200B>b looked like one key). A fact stored so
 * before is still read, updated and deleted by its key.
 */
export function checkNewFactKey(field: string, key: string): void {
  checkNewName(field, key);
}

/** A record as its store answers it, from its table row (SELECT *). */
export function toFact(r: FactRow): Fact {
  return {
    entry_id: makeId(FACT_PREFIX, r.id),
    layer: r.layer,
    user_id: r.user_id,
    key: r.key,
    value: r.value,
    importance: r.importance,
    source: r.source,
    metadata: parseJson<Record<string, unknown>>(r.metadata, {}),
    created: r.created,
    updated: r.updated,
    access_count: r.access_count,
    last_access: r.last_access,
  };
}

/** Round to 4 decimals so repeated ±0.05 steps land exactly on the grid. */
function round4(v: number): number {
  return Math.round(v * 10_000) / 10_000;
}

export function clampImportance(v: number): number {
  return round4(clamp(v, IMPORTANCE_MIN, IMPORTANCE_MAX));
}

/** What a tool input setting a fact's importance accepts (the spec: within 0.05 to 1.0). */
export const FACT_IMPORTANCE_ACCEPTED = { min: IMPORTANCE_MIN, max: IMPORTANCE_MAX } as const;

/**
 * A fact importance a caller asked for, checked: a number from 0.05 to 1.0 (bounds included), else a
 * validation error naming `field` and the range, so what is asked (or proposed) is what is written;
 * only importances the service computes itself (the importance gate's answer, feedback steps) are clamped.
 */
export function checkFactImportance(value: unknown, field = 'importance'): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < IMPORTANCE_MIN || value > IMPORTANCE_MAX) {
    throw validationError(field, `${field} must be a number from ${IMPORTANCE_MIN} to ${IMPORTANCE_MAX.toFixed(1)} (a fact's importance)`, FACT_IMPORTANCE_ACCEPTED);
  }
  return value;
}

/**
 * L4 core memory: keyed facts, unique per (layer, user_id, key); importance within 0.05..1.0.
 * Every change of a fact's value or importance, and every deletion, writes a version (VersionLog)
 * in the same transaction: these methods are the only writers of the facts table.
 */
export class FactStore {
  constructor(
    private readonly ctx: StoreContext,
    private readonly audit: AuditLog,
    private readonly versions: VersionLog,
  ) {}

  /**
   * Add or update the fact with this key; the entry_id is kept on update. `reason` is kept in the
   * version the change writes (default `upsert`). A fact added gets `times` (ISO) as its created and
   * updated, now by default (memory_data import gives each its exported times); an update is at now.
   */
  upsert(scope: Scope, input: FactInput, reason = 'upsert', times?: { created: string; updated: string }): Fact & { created_new: boolean } {
    checkScope(scope);
    const given = checkText(input.key, 'key', FACT_KEY_MAX);
    // Blank for no writer (proposals, branches and imports reach here too): wake_up showed it as `- key: `.
    const value = checkText(input.value, 'value', this.ctx.config.maxTextChars);
    const source = input.source ?? 'manual';
    if (!FACT_SOURCES.includes(source)) {
      throw validationError('source', `source must be one of ${FACT_SOURCES.join(', ')}`, FACT_SOURCES);
    }
    const metadata = input.metadata ?? {};
    if (typeof metadata !== 'object' || Array.isArray(metadata)) throw validationError('metadata', 'metadata must be an object');
    const importance = clampImportance(input.importance ?? 0.5);
    return this.ctx.tx(() => {
      const { form: key, found } = this.lookup(scope, given);
      const before = found ? toFact(found) : null;
      if (!before) checkNewFactKey('key', key);
      const now = this.ctx.iso();
      if (before) {
        this.ctx
          .stmt('UPDATE facts SET value = ?, importance = ?, source = ?, metadata = ?, updated = ? WHERE id = ?')
          .run(value, importance, source, JSON.stringify(metadata), now, parseId(FACT_PREFIX, before.entry_id));
        this.audit.log(scope, 'update', 'fact', before.entry_id, { key, old_value: before.value, source });
        if (before.importance !== importance) this.audit.logImportance(before.entry_id, before.importance, importance, 'upsert');
        const after = this.get(scope, key) as Fact;
        if (before.value !== value || before.importance !== importance) this.versions.recordFact(after, 'update', reason);
        return { ...after, created_new: false };
      }
      const info = this.ctx
        .stmt(
          `INSERT INTO facts (layer, user_id, key, value, importance, source, metadata, created, updated)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(scope.layer, scope.user_id, key, value, importance, source, JSON.stringify(metadata), times?.created ?? now, times?.updated ?? now);
      const entryId = makeId(FACT_PREFIX, Number(info.lastInsertRowid));
      this.audit.log(scope, 'create', 'fact', entryId, { key, source });
      const created = this.get(scope, key) as Fact;
      this.versions.recordFact(created, 'create', reason);
      return { ...created, created_new: true };
    });
  }

  /** Re-insert an archived fact, keeping its entry_id when free (Shadow Bin restore). */
  restore(scope: Scope, fact: Fact): Fact {
    checkScope(scope);
    return this.ctx.tx(() => {
      const { form: key, found } = this.lookup(scope, fact.key);
      if (found) {
        this.upsert(scope, fact, 'restore');
        return this.get(scope, key) as Fact;
      }
      const n = parseId(FACT_PREFIX, fact.entry_id);
      const free = n !== null && !this.ctx.stmt('SELECT 1 FROM facts WHERE id = ?').get(n);
      const now = this.ctx.iso();
      const info = this.ctx
        .stmt(
          `INSERT INTO facts (id, layer, user_id, key, value, importance, source, metadata, created, updated)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          free ? n : null,
          scope.layer,
          scope.user_id,
          key,
          fact.value,
          clampImportance(fact.importance),
          FACT_SOURCES.includes(fact.source) ? fact.source : 'legacy',
          JSON.stringify(fact.metadata ?? {}),
          fact.created ?? now,
          now,
        );
      const entryId = makeId(FACT_PREFIX, Number(info.lastInsertRowid));
      this.audit.log(scope, 'restore', 'fact', entryId, { key });
      const restored = this.get(scope, key) as Fact;
      this.versions.recordFact(restored, 'create', 'restore');
      return restored;
    });
  }

  /** The fact of this key, sent in any canonical form (lookup). */
  get(scope: Scope, key: string): Fact | null {
    checkScope(scope);
    const r = this.lookup(scope, key).found;
    return r ? toFact(r) : null;
  }

  /**
   * The key the scope holds, or would store, the fact of this key under: its NFC form, or the form
   * a fact was stored in before keys were normalised (lookupForms), for a caller that also writes
   * the key elsewhere (memory_remember's graph node).
   */
  storedKey(scope: Scope, key: string): string {
    checkScope(scope);
    return this.lookup(scope, key).form;
  }

  /** Keys are stored and looked up in NFC, so "café" precomposed and decomposed name one fact (lookupForms). */
  private lookup(scope: Scope, key: string): { form: string; found: Row | undefined } {
    if (typeof key !== 'string') throw validationError('key', 'key must be a string');
    const stmt = this.ctx.stmt('SELECT * FROM facts WHERE layer = ? AND user_id = ? AND key = ?');
    return lookupForms(key, (form) => stmt.get(scope.layer, scope.user_id, form) as Row | undefined);
  }

  /**
   * The key of the family `base`, `base-2`, `base-3`, ... (name-family.ts) to store `value` under
   * without replacing another value: the member that already holds `value` (so the same text
   * again keeps its key; found through facts_value), else a key of the same prefix (`note:`,
   * `personality:`) that holds it, made from the same text by an older build's key rule (which
   * dropped the letters of other scripts), else a free one. A few index lookups however many facts
   * share the base.
   */
  keyFor(scope: Scope, base: string, value: string): string {
    checkScope(scope);
    // Every key of the scope holding the value (facts_value; seldom more than one), then the family's.
    const holders = this.ctx.stmt('SELECT key FROM facts WHERE layer = ? AND user_id = ? AND value = ? ORDER BY id').pluck(true).all(scope.layer, scope.user_id, value) as string[];
    let same = Infinity;
    for (const key of holders) same = Math.min(same, familyNumber(key, base, '') ?? Infinity);
    if (same !== Infinity) return familyName(base, '', same);
    const prefix = base.slice(0, base.indexOf(':') + 1);
    const earlier = prefix ? holders.find((key) => key.startsWith(prefix)) : undefined;
    if (earlier !== undefined) return earlier;
    const taken = this.ctx.stmt('SELECT 1 FROM facts WHERE layer = ? AND user_id = ? AND key = ?');
    return freeName(base, '', (key) => taken.get(scope.layer, scope.user_id, key) !== undefined);
  }

  /** The scope's facts whose value is exactly `value`, oldest first (one index lookup: facts_value). */
  holding(scope: Scope, value: string): Fact[] {
    checkScope(scope);
    const rows = this.ctx
      .stmt('SELECT * FROM facts WHERE layer = ? AND user_id = ? AND value = ? ORDER BY id')
      .all(scope.layer, scope.user_id, value) as Row[];
    return rows.map(toFact);
  }

  /**
   * The facts of the scope whose metadata names this wiki page path (`wiki_path`: think's link to a
   * long thought's page), oldest first. The path is looked for in the stored JSON, then checked parsed.
   */
  namingWikiPath(scope: Scope, wikiPath: string): Fact[] {
    checkScope(scope);
    const rows = this.ctx
      .stmt('SELECT * FROM facts WHERE layer = ? AND user_id = ? AND instr(metadata, ?) > 0 ORDER BY id')
      .all(scope.layer, scope.user_id, JSON.stringify(wikiPath)) as Row[];
    return rows.map(toFact).filter((f) => f.metadata.wiki_path === wikiPath);
  }

  /** Any scope: entry ids are global. */
  getByEntryId(entry_id: string): Fact | null {
    const n = parseId(FACT_PREFIX, entry_id);
    if (n === null) return null;
    const r = this.ctx.stmt('SELECT * FROM facts WHERE id = ?').get(n) as Row | undefined;
    return r ? toFact(r) : null;
  }

  /**
   * Delete the fact with this key. Its version history keeps only that it was deleted (`reason`
   * names the deleter, default `delete`): the values it held go with it, as a forget means them gone.
   */
  delete(scope: Scope, key: string, reason = 'delete'): Fact | null {
    checkScope(scope);
    return this.ctx.tx(() => {
      const f = this.get(scope, key);
      if (!f) return null;
      this.ctx.stmt('DELETE FROM facts WHERE id = ?').run(parseId(FACT_PREFIX, f.entry_id));
      this.audit.log(scope, 'delete', 'fact', f.entry_id, { key });
      this.versions.recordFactDeletion(f, reason);
      return f;
    });
  }

  /** Facts of the scope, most important first by default (ties: newest first). */
  list(scope: Scope, opts: FactListOptions = {}): Fact[] {
    checkScope(scope);
    const limit = clamp(Math.floor(opts.limit ?? 50), 0, 10_000);
    const offset = Math.max(0, Math.floor(opts.offset ?? 0));
    const order =
      opts.orderBy === 'updated'
        ? 'updated DESC, id DESC'
        : opts.orderBy === 'created'
          ? 'created DESC, id DESC'
          : 'importance DESC, id DESC';
    const w = opts.updatedIn;
    const rows = (
      w === undefined
        ? this.ctx.stmt(`SELECT * FROM facts WHERE layer = ? AND user_id = ? ORDER BY ${order} LIMIT ? OFFSET ?`).all(scope.layer, scope.user_id, limit, offset)
        : this.ctx
            .stmt(`SELECT * FROM facts WHERE layer = ? AND user_id = ? AND updated >= ? AND updated <= ? ORDER BY ${order} LIMIT ? OFFSET ?`)
            .all(scope.layer, scope.user_id, w.since, w.until, limit, offset)
    ) as Row[];
    return rows.map(toFact);
  }

  /**
   * memory_query over the scope's facts (memory-query.ts): newest created first, then the newest id,
   * a page of `limit` from `offset`, with the total matching. A read: no access is recorded.
   * content_like is the value, key_like the key; both read every fact of the scope the other
   * filters leave (a substring has no index).
   */
  query(scope: Scope, q: MemoryQuery): { facts: Fact[]; total: number } {
    checkScope(scope);
    const { where, params, limit, offset } = memoryQuerySql(scope, q, 'core', { content: 'value', key: 'key' });
    const total = (this.ctx.stmt(`SELECT COUNT(*) AS n FROM facts t WHERE ${where}`).get(...params) as { n: number }).n;
    const rows = this.ctx
      .stmt(`SELECT t.* FROM facts t WHERE ${where} ORDER BY t.created DESC, t.id DESC LIMIT ? OFFSET ?`)
      .all(...params, limit, offset) as Row[];
    return { facts: rows.map(toFact), total };
  }

  count(scope: Scope): number {
    checkScope(scope);
    return (
      this.ctx.stmt('SELECT COUNT(*) AS n FROM facts WHERE layer = ? AND user_id = ?').get(scope.layer, scope.user_id) as {
        n: number;
      }
    ).n;
  }

  /**
   * Move a fact's importance by delta, clamped to 0.05..1.0, and log the change in
   * importance_audit with the reason. Returns the updated fact, or null for an unknown entry.
   */
  adjustImportance(entry_id: string, delta: number, reason: string): Fact | null {
    if (!Number.isFinite(delta)) throw validationError('delta', 'delta must be a finite number');
    return this.ctx.tx(() => {
      const f = this.getByEntryId(entry_id);
      if (!f) return null;
      const next = clampImportance(f.importance + delta);
      if (next !== f.importance) {
        this.ctx.stmt('UPDATE facts SET importance = ? WHERE id = ?').run(next, parseId(FACT_PREFIX, entry_id));
        this.versions.recordFact({ ...f, importance: next }, 'update', `importance:${reason}`);
      }
      this.audit.logImportance(entry_id, f.importance, next, reason);
      this.audit.log({ layer: f.layer, user_id: f.user_id }, 'importance', 'fact', entry_id, {
        old: f.importance,
        new: next,
        reason,
      });
      return this.getByEntryId(entry_id);
    });
  }

  /**
   * Facts whose value, or key unless generated (GENERATED_KEY_PREFIXES), holds the pattern as
   * whole words (folded as retrieval folds: case, accents, full-width forms; util.wordsMatcher), without deleting.
   */
  findMatching(scope: Scope, pattern: string, limit = 10_000): Fact[] {
    checkScope(scope);
    checkMatchPattern(pattern, this.ctx.config.maxTextChars);
    const args = wordFilterArgs(pattern);
    const rows = this.ctx
      .stmt(`SELECT * FROM facts WHERE layer = ? AND user_id = ? AND (${wordFilterSql('key')} OR ${wordFilterSql('value')}) ORDER BY id`)
      .iterate(scope.layer, scope.user_id, ...args, ...args) as IterableIterator<Row>;
    return rowsMatching(rows, pattern, matchedTexts, limit).map(toFact);
  }

  /** Delete the facts findMatching finds; returns them. The pattern must hold a letter or digit (checkWordPattern). */
  deleteMatching(scope: Scope, pattern: string): Fact[] {
    checkWordPattern(pattern);
    return this.ctx.tx(() => {
      const found = this.findMatching(scope, pattern);
      for (const f of found) this.versions.recordFactDeletion(f, 'delete_matching');
      return this.audit.deleteLogged(scope, 'facts', 'fact', found, (f) => ({
        rowid: parseId(FACT_PREFIX, f.entry_id),
        id: f.entry_id,
        detail: { key: f.key, pattern },
      }));
    });
  }

  /**
   * Delete every fact created at or after the ISO time; returns the count. A fact created before
   * and only updated since (the same text thought again keeps its key) is older than the window
   * and stays: deleting it destroyed a memory the window never wrote, with no copy. The deleted
   * facts' versions (all written inside the window) go too: a purge leaves no copy in the history.
   */
  deleteSince(scope: Scope, sinceIso: string): number {
    const w = this.ctx.window(sinceIso);
    sinceIso = w.since;
    checkScope(scope);
    return this.ctx.tx(() => {
      const ids = this.ctx
        .stmt('SELECT id FROM facts WHERE layer = ? AND user_id = ? AND created >= ? AND created <= ?')
        .pluck(true)
        .all(scope.layer, scope.user_id, w.since, w.until) as number[];
      this.versions.purge('facts', ids.map((id) => makeId(FACT_PREFIX, id)));
      const n = this.ctx
        .stmt('DELETE FROM facts WHERE layer = ? AND user_id = ? AND created >= ? AND created <= ?')
        .run(scope.layer, scope.user_id, w.since, w.until).changes;
      if (n > 0) this.audit.log(scope, 'delete_since', 'fact', `since:${sinceIso}`, { count: n });
      return n;
    });
  }

  /** Record a retrieval access on each fact entry id (ids of other stores are ignored). */
  touch(entryIds: readonly string[]): void {
    this.ctx.bumpAccess('facts', FACT_PREFIX, entryIds);
  }
}
