import type { StoreContext } from './context.js';
import type { Scope } from './types.js';
import { checkScope, checkText } from './util.js';

export interface ScratchpadEntry {
  key: string;
  content: string;
  created: string;
  updated: string;
}

/**
 * L2.5 scratchpad: keyed working notes per scope, upsert by key. At capacity (20 by default)
 * writing a new key evicts the least recently written entry.
 */
export class ScratchpadStore {
  constructor(private readonly ctx: StoreContext) {}

  /** Upsert; returns the entry and the key evicted to make room, if any. */
  write(scope: Scope, key: string, content: string): ScratchpadEntry & { evicted: string | null } {
    checkScope(scope);
    checkText(key, 'key', 200);
    checkText(content, 'content', this.ctx.config.maxTextChars, true);
    return this.ctx.tx(() => {
      const now = this.ctx.iso();
      const seqRow = this.ctx
        .stmt('SELECT COALESCE(MAX(seq), 0) AS s FROM scratchpad WHERE layer = ? AND user_id = ?')
        .get(scope.layer, scope.user_id) as { s: number };
      const exists = this.ctx
        .stmt('SELECT 1 FROM scratchpad WHERE layer = ? AND user_id = ? AND key = ?')
        .get(scope.layer, scope.user_id, key);
      let evicted: string | null = null;
      if (!exists) {
        const count = this.count(scope);
        if (count >= this.ctx.config.scratchpadMax) {
          const oldest = this.ctx
            .stmt('SELECT id, key FROM scratchpad WHERE layer = ? AND user_id = ? ORDER BY seq LIMIT ?')
            .all(scope.layer, scope.user_id, count - this.ctx.config.scratchpadMax + 1) as { id: number; key: string }[];
          for (const o of oldest) this.ctx.stmt('DELETE FROM scratchpad WHERE id = ?').run(o.id);
          evicted = oldest[0]?.key ?? null;
        }
      }
      this.ctx
        .stmt(
          `INSERT INTO scratchpad (layer, user_id, key, content, created, updated, seq) VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (layer, user_id, key) DO UPDATE SET content = excluded.content, updated = excluded.updated, seq = excluded.seq`,
        )
        .run(scope.layer, scope.user_id, key, content, now, now, seqRow.s + 1);
      return { ...(this.get(scope, key) as ScratchpadEntry), evicted };
    });
  }

  get(scope: Scope, key: string): ScratchpadEntry | null {
    checkScope(scope);
    const r = this.ctx
      .stmt('SELECT key, content, created, updated FROM scratchpad WHERE layer = ? AND user_id = ? AND key = ?')
      .get(scope.layer, scope.user_id, key) as ScratchpadEntry | undefined;
    return r ?? null;
  }

  /** All entries, least recently written first. */
  read(scope: Scope): ScratchpadEntry[] {
    checkScope(scope);
    return this.ctx
      .stmt('SELECT key, content, created, updated FROM scratchpad WHERE layer = ? AND user_id = ? ORDER BY seq')
      .all(scope.layer, scope.user_id) as ScratchpadEntry[];
  }

  count(scope: Scope): number {
    checkScope(scope);
    return (
      this.ctx.stmt('SELECT COUNT(*) AS n FROM scratchpad WHERE layer = ? AND user_id = ?').get(scope.layer, scope.user_id) as {
        n: number;
      }
    ).n;
  }

  /** Remove one key, or every entry when no key is given; returns how many were removed. */
  clear(scope: Scope, key?: string): number {
    checkScope(scope);
    return this.ctx.tx(() =>
      key === undefined
        ? this.ctx.stmt('DELETE FROM scratchpad WHERE layer = ? AND user_id = ?').run(scope.layer, scope.user_id).changes
        : this.ctx.stmt('DELETE FROM scratchpad WHERE layer = ? AND user_id = ? AND key = ?').run(scope.layer, scope.user_id, key)
            .changes,
    );
  }

  /** Remove and return one entry (used by promote), or null when absent. */
  take(scope: Scope, key: string): ScratchpadEntry | null {
    checkScope(scope);
    return this.ctx.tx(() => {
      const e = this.get(scope, key);
      if (e) this.clear(scope, key);
      return e;
    });
  }
}
