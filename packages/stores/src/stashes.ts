import type { StoreContext } from './context.js';
import { notFound, StoreError, validationError } from './errors.js';
import { recordName } from './record-name.js';
import type { ScratchpadEntry, ScratchpadStore } from './scratchpad.js';
import type { Scope } from './types.js';
import { checkScope, checkText } from './util.js';

/** The most stashes one (layer, user_id) scope keeps. */
export const STASH_MAX = 20;
/** The longest stash note, in characters. */
export const STASH_NOTE_MAX = 500;

export interface StashInfo {
  name: string;
  note: string;
  created: string;
  /** The stashed entries' keys, in the pad's order (least recently written first). */
  keys: string[];
}

export interface Stash extends StashInfo {
  entries: ScratchpadEntry[];
}

/**
 * memory_stash: the scope's scratchpad set aside under a name. push moves every pad entry into a
 * stash (the pad is left empty), pop moves a stash's entries back (refused, naming the field, when a
 * key is in the pad again or the pad's limit would be passed: nothing is evicted or overwritten),
 * drop deletes a stash. Entries keep their content, dates and order.
 */
export class StashStore {
  constructor(
    private readonly ctx: StoreContext,
    private readonly pad: ScratchpadStore,
  ) {}

  /** Move the whole pad into a new stash; the name defaults to the first free `stash-<n>`. */
  push(scope: Scope, rawName?: unknown, note = ''): Stash {
    checkScope(scope);
    checkText(note, 'note', STASH_NOTE_MAX, true);
    return this.ctx.tx(() => {
      const entries = this.pad.read(scope);
      if (entries.length === 0) throw validationError('action', 'the scratchpad is empty: there is nothing to push', 'push once memory_scratchpad holds entries');
      const count = this.ctx.stmt('SELECT COUNT(*) FROM scratchpad_stashes WHERE layer = ? AND user_id = ?').pluck(true).get(scope.layer, scope.user_id) as number;
      if (count >= STASH_MAX) throw validationError('name', `the layer and user_id hold ${STASH_MAX} stashes, the most kept; pop or drop one first`, { max_stashes: STASH_MAX });
      let name: string;
      if (rawName === undefined) {
        let n = count + 1;
        while (this.id(scope, `stash-${n}`) !== null) n++;
        name = `stash-${n}`;
      } else {
        name = recordName(rawName);
        if (this.id(scope, name) !== null) {
          throw new StoreError('STORES_ERR_CONFLICT', `a stash named ${JSON.stringify(name)} exists already; pop or drop it, or choose another name`, { field: 'name' });
        }
      }
      const now = this.ctx.iso();
      const id = Number(
        this.ctx.stmt('INSERT INTO scratchpad_stashes (layer, user_id, name, note, created) VALUES (?, ?, ?, ?, ?)').run(scope.layer, scope.user_id, name, note.trim(), now)
          .lastInsertRowid,
      );
      const insert = this.ctx.stmt('INSERT INTO scratchpad_stash_entries (stash_id, seq, key, content, created, updated) VALUES (?, ?, ?, ?, ?, ?)');
      entries.forEach((e, i) => insert.run(id, i + 1, e.key, e.content, e.created, e.updated));
      this.pad.clear(scope);
      return this.get(scope, name) as Stash;
    });
  }

  /** The scope's stashes, newest first. */
  list(scope: Scope): StashInfo[] {
    checkScope(scope);
    const names = this.ctx.stmt('SELECT name FROM scratchpad_stashes WHERE layer = ? AND user_id = ? ORDER BY id DESC').pluck(true).all(scope.layer, scope.user_id) as string[];
    return names.map((n) => {
      const { entries: _entries, ...info } = this.get(scope, n) as Stash;
      return info;
    });
  }

  /** One stash with its entries, or null. */
  get(scope: Scope, name: string): Stash | null {
    checkScope(scope);
    const s = this.ctx.stmt('SELECT id, name, note, created FROM scratchpad_stashes WHERE layer = ? AND user_id = ? AND name = ?').get(scope.layer, scope.user_id, name) as
      | { id: number; name: string; note: string; created: string }
      | undefined;
    if (!s) return null;
    const entries = this.ctx.stmt('SELECT key, content, created, updated FROM scratchpad_stash_entries WHERE stash_id = ? ORDER BY seq').all(s.id) as ScratchpadEntry[];
    return { name: s.name, note: s.note, created: s.created, keys: entries.map((e) => e.key), entries };
  }

  /** A stash by name (the newest when no name is given), or an error naming `name`. */
  show(scope: Scope, rawName?: unknown): Stash {
    checkScope(scope);
    return this.get(scope, this.resolve(scope, rawName)) as Stash;
  }

  /**
   * Move a stash's entries back into the pad (the newest stash when no name is given) and delete the
   * stash. Refused, naming name, when a stashed key is in the pad again or the pad would pass its limit.
   */
  pop(scope: Scope, rawName?: unknown): Stash & { pad_count: number } {
    checkScope(scope);
    return this.ctx.tx(() => {
      const stash = this.get(scope, this.resolve(scope, rawName)) as Stash;
      const clash = stash.keys.filter((k) => this.pad.get(scope, k) !== null);
      if (clash.length > 0) {
        throw new StoreError(
          'STORES_ERR_CONFLICT',
          `the scratchpad holds ${clash.map((k) => JSON.stringify(k)).join(', ')} again; popping stash ${JSON.stringify(stash.name)} would overwrite them. ` +
            'Clear or promote those pad entries first',
          { field: 'name', details: { keys: clash } },
        );
      }
      const max = this.ctx.config.scratchpadMax;
      const have = this.pad.count(scope);
      if (have + stash.entries.length > max) {
        throw validationError(
          'name',
          `stash ${JSON.stringify(stash.name)} holds ${stash.entries.length} entries and the scratchpad ${have}: together more than its limit of ${max}; clear or promote ${have + stash.entries.length - max} pad entries first`,
          { max_entries: max },
        );
      }
      this.pad.putBack(scope, stash.entries);
      this.ctx.stmt('DELETE FROM scratchpad_stashes WHERE layer = ? AND user_id = ? AND name = ?').run(scope.layer, scope.user_id, stash.name);
      return { ...stash, pad_count: this.pad.count(scope) };
    });
  }

  /** Delete a stash and its entries. */
  drop(scope: Scope, rawName: unknown): StashInfo {
    checkScope(scope);
    return this.ctx.tx(() => {
      const { entries: _entries, ...info } = this.get(scope, this.resolve(scope, rawName)) as Stash;
      this.ctx.stmt('DELETE FROM scratchpad_stashes WHERE layer = ? AND user_id = ? AND name = ?').run(scope.layer, scope.user_id, info.name);
      return info;
    });
  }

  /** Every stash of the scope with its entries, oldest first (memory_data export). */
  all(scope: Scope): Stash[] {
    checkScope(scope);
    const names = this.ctx.stmt('SELECT name FROM scratchpad_stashes WHERE layer = ? AND user_id = ? ORDER BY id').pluck(true).all(scope.layer, scope.user_id) as string[];
    return names.map((n) => this.get(scope, n) as Stash);
  }

  /**
   * Add a stash as the record gives it, entries in order with their dates (memory_data import).
   * A name the scope holds already is left as it is (false); past STASH_MAX stashes is an error naming `field`.
   */
  restore(scope: Scope, s: { name: string; note: string; created: string; entries: readonly ScratchpadEntry[] }, field = 'name'): boolean {
    checkScope(scope);
    const name = recordName(s.name, field);
    checkText(s.note, 'note', STASH_NOTE_MAX, true);
    return this.ctx.tx(() => {
      if (this.id(scope, name) !== null) return false;
      const count = this.ctx.stmt('SELECT COUNT(*) FROM scratchpad_stashes WHERE layer = ? AND user_id = ?').pluck(true).get(scope.layer, scope.user_id) as number;
      if (count >= STASH_MAX) throw validationError(field, `the layer and user_id hold ${STASH_MAX} stashes, the most kept`, { max_stashes: STASH_MAX });
      const id = Number(
        this.ctx.stmt('INSERT INTO scratchpad_stashes (layer, user_id, name, note, created) VALUES (?, ?, ?, ?, ?)').run(scope.layer, scope.user_id, name, s.note.trim(), s.created).lastInsertRowid,
      );
      const insert = this.ctx.stmt('INSERT INTO scratchpad_stash_entries (stash_id, seq, key, content, created, updated) VALUES (?, ?, ?, ?, ?, ?)');
      s.entries.forEach((e, i) => insert.run(id, i + 1, e.key, e.content, e.created, e.updated));
      return true;
    });
  }

  /** Delete the scope's stashes made at or after the ISO time, with their entries (forget recent, memory_lucidity_purge); returns how many. */
  deleteSince(scope: Scope, sinceIso: string): number {
    return this.ctx.deleteScoped('scratchpad_stashes', scope, sinceIso);
  }

  /** Delete every stash of the scope (memory_data import replace); returns how many. */
  clear(scope: Scope): number {
    return this.ctx.deleteScoped('scratchpad_stashes', scope);
  }

  /** The stored name of an existing stash: the given one, or the newest when undefined; else an error naming name. */
  private resolve(scope: Scope, rawName: unknown): string {
    const where = `stash of layer ${scope.layer}, user_id ${JSON.stringify(scope.user_id)}`;
    if (rawName === undefined) {
      const newest = this.ctx.stmt('SELECT name FROM scratchpad_stashes WHERE layer = ? AND user_id = ? ORDER BY id DESC LIMIT 1').pluck(true).get(scope.layer, scope.user_id) as
        | string
        | undefined;
      if (newest === undefined) throw notFound(where, '(newest: there are no stashes)', 'name');
      return newest;
    }
    const name = recordName(rawName);
    if (this.id(scope, name) === null) throw notFound(where, JSON.stringify(name), 'name');
    return name;
  }

  private id(scope: Scope, name: string): number | null {
    return (this.ctx.stmt('SELECT id FROM scratchpad_stashes WHERE layer = ? AND user_id = ? AND name = ?').pluck(true).get(scope.layer, scope.user_id, name) as number | undefined) ?? null;
  }
}
