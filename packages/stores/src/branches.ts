import type { StoreContext } from './context.js';
import { notFound, StoreError, validationError } from './errors.js';
import { checkFactImportance, checkNewFactKey, clampImportance, FACT_KEY_MAX, type FactSource, type FactStore } from './facts.js';
import { lookupForms } from './identity-forms.js';
import { recordName } from './record-name.js';
import type { Scope } from './types.js';
import { checkScope, checkText, parseJson } from './util.js';

/** The most branches one (layer, user_id) scope keeps. */
export const BRANCH_MAX = 20;

export interface BranchInfo {
  name: string;
  created: string;
  updated: string;
  /** Facts the branch holds (the copied ones it kept plus the ones it added). */
  facts: number;
  /** Keys the branch added, changed or removed against the facts it was copied from. */
  changes: number;
}

export interface BranchAdded {
  key: string;
  value: string;
  importance: number;
  /** The live fact's value now: set when live memory gained the same key since (a conflict unless equal); else null. */
  live_value: string | null;
}
export interface BranchChanged {
  key: string;
  base_value: string;
  base_importance: number;
  value: string;
  importance: number;
  /** The live fact's value now (null: deleted from live memory since the branch was made). */
  live_value: string | null;
}
export interface BranchRemoved {
  key: string;
  base_value: string;
  live_value: string | null;
}

export interface BranchDiff {
  name: string;
  added: BranchAdded[];
  changed: BranchChanged[];
  removed: BranchRemoved[];
  /** Keys live memory changed since the branch was made, which a merge would overwrite (refused without force). */
  conflicts: string[];
}

export interface BranchMerge {
  name: string;
  added: string[];
  changed: string[];
  removed: string[];
  /** Conflicting keys the merge overwrote (force). */
  overwritten: string[];
}

interface EntryRow {
  key: string;
  base_value: string | null;
  base_importance: number | null;
  value: string | null;
  importance: number | null;
  source: string;
  metadata: string;
  live_value: string | null;
  live_importance: number | null;
}

/** One key of a branch: the value it was copied with (null: added in the branch) and its own (null: removed in it). */
export interface BranchEntry {
  key: string;
  base_value: string | null;
  base_importance: number | null;
  value: string | null;
  importance: number | null;
  source: FactSource;
  metadata: Record<string, unknown>;
}

function toEntry(r: EntryRow): BranchEntry {
  return {
    key: r.key,
    base_value: r.base_value,
    base_importance: r.base_importance,
    value: r.value,
    importance: r.importance,
    source: r.source as FactSource,
    metadata: parseJson<Record<string, unknown>>(r.metadata, {}),
  };
}

/**
 * memory_branch: named what-if copies of a scope's L4 facts. A branch copies the facts when made
 * and keeps, per key, the value it started from (base) and its own, so set/unset edit it without
 * touching live memory, diff shows what the branch changed, and merge applies exactly those changes
 * to the live facts in one transaction (each through FactStore, so each is in the fact history),
 * refusing when live memory changed one of those keys since, unless forced.
 */
export class BranchStore {
  constructor(
    private readonly ctx: StoreContext,
    private readonly facts: FactStore,
  ) {}

  /** A new branch holding a copy of every fact of the scope. */
  create(scope: Scope, rawName: unknown): BranchInfo {
    checkScope(scope);
    const name = recordName(rawName);
    return this.ctx.tx(() => {
      if (this.id(scope, name) !== null) {
        throw new StoreError('STORES_ERR_CONFLICT', `branch ${JSON.stringify(name)} exists already in layer ${scope.layer}, user_id ${JSON.stringify(scope.user_id)}; delete or merge it first, or choose another name`, { field: 'name' });
      }
      const count = this.ctx.stmt('SELECT COUNT(*) FROM fact_branches WHERE layer = ? AND user_id = ?').pluck(true).get(scope.layer, scope.user_id) as number;
      if (count >= BRANCH_MAX) {
        throw validationError('name', `the layer and user_id hold ${BRANCH_MAX} branches, the most kept; merge or delete one first`, { max_branches: BRANCH_MAX });
      }
      const now = this.ctx.iso();
      const id = Number(
        this.ctx.stmt('INSERT INTO fact_branches (layer, user_id, name, created, updated) VALUES (?, ?, ?, ?, ?)').run(scope.layer, scope.user_id, name, now, now).lastInsertRowid,
      );
      this.ctx
        .stmt(
          `INSERT INTO fact_branch_entries (branch_id, key, base_value, base_importance, value, importance, source, metadata)
           SELECT ?, key, value, importance, value, importance, source, metadata FROM facts WHERE layer = ? AND user_id = ?`,
        )
        .run(id, scope.layer, scope.user_id);
      return this.info(scope, name) as BranchInfo;
    });
  }

  /** The scope's branches, by name. */
  list(scope: Scope): BranchInfo[] {
    checkScope(scope);
    const names = this.ctx.stmt('SELECT name FROM fact_branches WHERE layer = ? AND user_id = ? ORDER BY name').pluck(true).all(scope.layer, scope.user_id) as string[];
    return names.map((n) => this.info(scope, n) as BranchInfo);
  }

  info(scope: Scope, name: string): BranchInfo | null {
    const b = this.ctx.stmt('SELECT id, name, created, updated FROM fact_branches WHERE layer = ? AND user_id = ? AND name = ?').get(scope.layer, scope.user_id, name) as
      | { id: number; name: string; created: string; updated: string }
      | undefined;
    if (!b) return null;
    const c = this.ctx
      .stmt(
        `SELECT COUNT(value) AS facts,
                SUM(CASE WHEN base_value IS NULL OR value IS NULL OR value != base_value OR importance != base_importance THEN 1 ELSE 0 END) AS changes
         FROM fact_branch_entries WHERE branch_id = ?`,
      )
      .get(b.id) as { facts: number; changes: number | null };
    return { name: b.name, created: b.created, updated: b.updated, facts: c.facts, changes: c.changes ?? 0 };
  }

  /** Set a fact inside the branch (live memory is untouched); importance defaults to the branch's current one, else 0.5. */
  set(scope: Scope, rawName: unknown, key: string, value: string, importance?: number): BranchInfo {
    checkScope(scope);
    const name = recordName(rawName);
    checkText(key, 'key', FACT_KEY_MAX);
    // Blank refused now, as the merge's write would refuse it.
    checkText(value, 'value', this.ctx.config.maxTextChars);
    if (importance !== undefined) checkFactImportance(importance);
    return this.ctx.tx(() => {
      const id = this.need(scope, name);
      const { form, found: e } = this.entryOf(id, key);
      // Refused when set, as the merge's write would refuse it (a key the branch or live memory holds may still be set).
      if (!e && !this.facts.get(scope, key)) checkNewFactKey('key', key);
      const imp = clampImportance(importance ?? e?.importance ?? e?.base_importance ?? 0.5);
      if (e) this.ctx.stmt('UPDATE fact_branch_entries SET value = ?, importance = ? WHERE branch_id = ? AND key = ?').run(value, imp, id, form);
      else {
        this.ctx
          .stmt("INSERT INTO fact_branch_entries (branch_id, key, base_value, base_importance, value, importance, source, metadata) VALUES (?, ?, NULL, NULL, ?, ?, 'manual', '{}')")
          .run(id, form, value, imp);
      }
      this.touch(id);
      return this.info(scope, name) as BranchInfo;
    });
  }

  /** Remove a fact from the branch (live memory is untouched). A key the branch does not hold is an error naming key. */
  unset(scope: Scope, rawName: unknown, key: string): BranchInfo {
    checkScope(scope);
    const name = recordName(rawName);
    checkText(key, 'key', FACT_KEY_MAX);
    return this.ctx.tx(() => {
      const id = this.need(scope, name);
      const { form, found: e } = this.entryOf(id, key);
      if (!e || e.value === null) throw notFound(`fact in branch ${JSON.stringify(name)}`, JSON.stringify(key), 'key');
      if (e.base_value === null) this.ctx.stmt('DELETE FROM fact_branch_entries WHERE branch_id = ? AND key = ?').run(id, form);
      else this.ctx.stmt('UPDATE fact_branch_entries SET value = NULL, importance = NULL WHERE branch_id = ? AND key = ?').run(id, form);
      this.touch(id);
      return this.info(scope, name) as BranchInfo;
    });
  }

  /** What the branch changed against the facts it was copied from, with the live value of each key and the conflicts. */
  diff(scope: Scope, rawName: unknown): BranchDiff {
    checkScope(scope);
    const name = recordName(rawName);
    return this.diffOf(scope, name, this.need(scope, name));
  }

  /**
   * Apply the branch's changes to the live facts in one transaction and delete the branch. Keys live
   * memory changed since the branch was made are conflicts: refused (naming force) unless `force`.
   */
  merge(scope: Scope, rawName: unknown, force = false): BranchMerge {
    checkScope(scope);
    const name = recordName(rawName);
    return this.ctx.tx(() => {
      const id = this.need(scope, name);
      const d = this.diffOf(scope, name, id);
      if (d.conflicts.length > 0 && !force) {
        throw new StoreError(
          'STORES_ERR_CONFLICT',
          `live memory changed ${d.conflicts.length} key(s) the branch also changes since the branch was made (${d.conflicts.slice(0, 20).map((k) => JSON.stringify(k)).join(', ')}); ` +
            'merge with force true to overwrite them, or edit the branch first',
          { field: 'force', accepted: [true], details: { conflicts: d.conflicts } },
        );
      }
      const reason = `branch_merge:${name}`;
      const rows = new Map((this.ctx.stmt('SELECT * FROM fact_branch_entries WHERE branch_id = ?').all(id) as EntryRow[]).map((r) => [r.key, r]));
      for (const c of [...d.added, ...d.changed]) {
        const r = rows.get(c.key) as EntryRow;
        this.facts.upsert(
          scope,
          { key: c.key, value: c.value, importance: c.importance, source: r.source as FactSource, metadata: parseJson<Record<string, unknown>>(r.metadata, {}) },
          reason,
        );
      }
      for (const r of d.removed) this.facts.delete(scope, r.key, reason);
      this.ctx.stmt('DELETE FROM fact_branches WHERE id = ?').run(id);
      return {
        name,
        added: d.added.map((a) => a.key),
        changed: d.changed.map((c) => c.key),
        removed: d.removed.map((r) => r.key),
        overwritten: d.conflicts,
      };
    });
  }

  /** Delete a branch; live memory is untouched. */
  delete(scope: Scope, rawName: unknown): BranchInfo {
    checkScope(scope);
    const name = recordName(rawName);
    return this.ctx.tx(() => {
      const id = this.need(scope, name);
      const info = this.info(scope, name) as BranchInfo;
      this.ctx.stmt('DELETE FROM fact_branches WHERE id = ?').run(id);
      return info;
    });
  }

  /** Every branch of the scope with its entries (base and own value per key), by name (memory_data export). */
  all(scope: Scope): { name: string; created: string; updated: string; entries: BranchEntry[] }[] {
    checkScope(scope);
    const rows = this.ctx.stmt('SELECT id, name, created, updated FROM fact_branches WHERE layer = ? AND user_id = ? ORDER BY name').all(scope.layer, scope.user_id) as {
      id: number;
      name: string;
      created: string;
      updated: string;
    }[];
    return rows.map((b) => ({
      name: b.name,
      created: b.created,
      updated: b.updated,
      entries: (this.ctx.stmt('SELECT * FROM fact_branch_entries WHERE branch_id = ? ORDER BY key').all(b.id) as EntryRow[]).map(toEntry),
    }));
  }

  /**
   * Add a branch as the record gives it (memory_data import): its entries with their base and own
   * values, and its times. A name the scope holds already is left as it is (false); past BRANCH_MAX
   * branches is an error naming `field`.
   */
  restore(scope: Scope, b: { name: string; created: string; updated: string; entries: readonly BranchEntry[] }, field = 'name'): boolean {
    checkScope(scope);
    const name = recordName(b.name, field);
    return this.ctx.tx(() => {
      if (this.id(scope, name) !== null) return false;
      const count = this.ctx.stmt('SELECT COUNT(*) FROM fact_branches WHERE layer = ? AND user_id = ?').pluck(true).get(scope.layer, scope.user_id) as number;
      if (count >= BRANCH_MAX) throw validationError(field, `the layer and user_id hold ${BRANCH_MAX} branches, the most kept`, { max_branches: BRANCH_MAX });
      const id = Number(
        this.ctx.stmt('INSERT INTO fact_branches (layer, user_id, name, created, updated) VALUES (?, ?, ?, ?, ?)').run(scope.layer, scope.user_id, name, b.created, b.updated).lastInsertRowid,
      );
      const insert = this.ctx.stmt(
        'INSERT INTO fact_branch_entries (branch_id, key, base_value, base_importance, value, importance, source, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      );
      for (const e of b.entries) insert.run(id, e.key, e.base_value, e.base_importance, e.value, e.importance, e.source, JSON.stringify(e.metadata ?? {}));
      return true;
    });
  }

  /** Delete the scope's branches made at or after the ISO time (forget recent, memory_lucidity_purge); returns how many. */
  deleteSince(scope: Scope, sinceIso: string): number {
    return this.ctx.deleteScoped('fact_branches', scope, sinceIso);
  }

  /** Delete every branch of the scope (memory_data import replace); returns how many. */
  clear(scope: Scope): number {
    return this.ctx.deleteScoped('fact_branches', scope);
  }

  /**
   * Drop the branches' copies of facts forget deleted (key and the value it held): an entry the
   * branch left as copied goes, one the branch changed keeps its own value as an addition (its
   * base, the forgotten value, is cleared), and one it removed goes. So no branch keeps the
   * forgotten value, and a merge neither brings it back nor reports a conflict over it. Returns
   * how many entries changed.
   */
  forgetFacts(scope: Scope, facts: readonly { key: string; value: string }[]): number {
    checkScope(scope);
    if (facts.length === 0) return 0;
    return this.ctx.tx(() => {
      let n = 0;
      const ids = this.ctx.stmt('SELECT id FROM fact_branches WHERE layer = ? AND user_id = ?').pluck(true).all(scope.layer, scope.user_id) as number[];
      for (const id of ids) {
        for (const f of facts) {
          const e = this.entry(id, f.key);
          if (!e || e.base_value !== f.value) continue;
          if (e.value === null || (e.value === e.base_value && e.importance === e.base_importance)) {
            this.ctx.stmt('DELETE FROM fact_branch_entries WHERE branch_id = ? AND key = ?').run(id, f.key);
          } else {
            this.ctx.stmt('UPDATE fact_branch_entries SET base_value = NULL, base_importance = NULL WHERE branch_id = ? AND key = ?').run(id, f.key);
          }
          n++;
        }
      }
      return n;
    });
  }

  private diffOf(scope: Scope, name: string, id: number): BranchDiff {
    const rows = this.ctx
      .stmt(
        `SELECT e.*, f.value AS live_value, f.importance AS live_importance
         FROM fact_branch_entries e LEFT JOIN facts f ON f.layer = ? AND f.user_id = ? AND f.key = e.key
         WHERE e.branch_id = ? AND (e.base_value IS NULL OR e.value IS NULL OR e.value != e.base_value OR e.importance != e.base_importance)
         ORDER BY e.key`,
      )
      .all(scope.layer, scope.user_id, id) as EntryRow[];
    const out: BranchDiff = { name, added: [], changed: [], removed: [], conflicts: [] };
    for (const r of rows) {
      const live = r.live_value === null ? null : { value: r.live_value, importance: r.live_importance as number };
      if (r.base_value === null) {
        out.added.push({ key: r.key, value: r.value as string, importance: r.importance as number, live_value: live?.value ?? null });
        // Live memory gained the key since with another value: merging would overwrite it.
        if (live && (live.value !== r.value || live.importance !== r.importance)) out.conflicts.push(r.key);
        continue;
      }
      const moved = !live || live.value !== r.base_value || live.importance !== r.base_importance;
      if (r.value === null) out.removed.push({ key: r.key, base_value: r.base_value, live_value: live?.value ?? null });
      else {
        out.changed.push({ key: r.key, base_value: r.base_value, base_importance: r.base_importance as number, value: r.value, importance: r.importance as number, live_value: live?.value ?? null });
      }
      // Live memory moved away from the base to something else than the branch holds (removing a
      // fact live memory removed too, or setting the value it holds already, is no conflict).
      const agrees = r.value === null ? !live : live !== null && live.value === r.value && live.importance === r.importance;
      if (moved && !agrees) out.conflicts.push(r.key);
    }
    return out;
  }

  private id(scope: Scope, name: string): number | null {
    return (this.ctx.stmt('SELECT id FROM fact_branches WHERE layer = ? AND user_id = ? AND name = ?').pluck(true).get(scope.layer, scope.user_id, name) as number | undefined) ?? null;
  }

  private need(scope: Scope, name: string): number {
    const id = this.id(scope, name);
    if (id === null) throw notFound(`branch of layer ${scope.layer}, user_id ${JSON.stringify(scope.user_id)}`, JSON.stringify(name), 'name');
    return id;
  }

  /**
   * The branch's entry for a key, and the form of the key it is held under: keys are NFC, as live
   * facts' are, so "café" precomposed and decomposed name one entry; an entry copied from a fact
   * stored in another form before keys were normalised is found by that form (lookupForms).
   */
  private entryOf(id: number, key: string): { form: string; found: EntryRow | undefined } {
    return lookupForms(key, (form) => this.entry(id, form));
  }

  /** The entry held under exactly this key (a stored fact's key, as forget hands it). */
  private entry(id: number, key: string): EntryRow | undefined {
    return this.ctx.stmt('SELECT *, NULL AS live_value, NULL AS live_importance FROM fact_branch_entries WHERE branch_id = ? AND key = ?').get(id, key) as EntryRow | undefined;
  }

  private touch(id: number): void {
    this.ctx.stmt('UPDATE fact_branches SET updated = ? WHERE id = ?').run(this.ctx.iso(), id);
  }
}
