import type { AuditLog } from './audit.js';
import type { StoreContext } from './context.js';
import { notFound, StoreError } from './errors.js';
import { FACT_PREFIX, type FactStore } from './facts.js';
import type { Layer, Scope } from './types.js';
import { checkScope, makeId, parseId } from './util.js';

export const TRANSITION_PREFIX = 'tr';

/** One L3 to L4 promotion of the Consolidator: the episode, the fact it became, and whether it was undone. */
export interface MemoryTransition {
  /** `tr_<n>`. */
  id: string;
  layer: Layer;
  user_id: string;
  episode_id: string;
  entry_id: string;
  key: string;
  /** The value promoted (the episode's summary). */
  value: string;
  ts: string;
  /** ISO time of the revert; null while the promotion stands. */
  reverted: string | null;
}

interface Row extends Omit<MemoryTransition, 'id'> {
  id: number;
}

function toTransition(r: Row): MemoryTransition {
  return { ...r, id: makeId(TRANSITION_PREFIX, r.id) };
}

/**
 * memory_transitions: every L3 to L4 promotion, revertible. A revert deletes the promoted fact
 * (only while it still holds the promoted value) and keeps the source episode; the Consolidator
 * does not promote an episode whose promotion was reverted again.
 */
export class TransitionStore {
  constructor(
    private readonly ctx: StoreContext,
    private readonly audit: AuditLog,
    private readonly facts: FactStore,
  ) {}

  /** Record one promotion (called by the Consolidator, in its transaction). */
  record(scope: Scope, input: { episode_id: string; entry_id: string; key: string; value: string }): MemoryTransition {
    checkScope(scope);
    return this.ctx.tx(() => {
      const ts = this.ctx.iso();
      const info = this.ctx
        .stmt('INSERT INTO memory_transitions (layer, user_id, episode_id, entry_id, key, value, ts) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(scope.layer, scope.user_id, input.episode_id, input.entry_id, input.key, input.value, ts);
      const id = makeId(TRANSITION_PREFIX, Number(info.lastInsertRowid));
      this.audit.log(scope, 'promote', 'transition', id, { episode_id: input.episode_id, entry_id: input.entry_id, key: input.key });
      return this.get(scope, id) as MemoryTransition;
    });
  }

  /** The scope's transition with this id; null for another scope's, an unknown or a malformed id. */
  get(scope: Scope, id: string): MemoryTransition | null {
    checkScope(scope);
    const n = parseId(TRANSITION_PREFIX, id);
    if (n === null) return null;
    const r = this.ctx.stmt('SELECT * FROM memory_transitions WHERE id = ? AND layer = ? AND user_id = ?').get(n, scope.layer, scope.user_id) as Row | undefined;
    return r ? toTransition(r) : null;
  }

  /** The scope's transitions, newest first. */
  list(scope: Scope, limit = 50): MemoryTransition[] {
    checkScope(scope);
    const rows = this.ctx
      .stmt('SELECT * FROM memory_transitions WHERE layer = ? AND user_id = ? ORDER BY id DESC LIMIT ?')
      .all(scope.layer, scope.user_id, Math.max(0, Math.floor(limit))) as Row[];
    return rows.map(toTransition);
  }

  /**
   * The window purge (forget recent, memory_lucidity_purge): the promotions made at or after the ISO
   * time go (the facts they made were created in the window and are purged with it), except a
   * reverted one, which stays without its value: it is what keeps the Consolidator from promoting
   * that episode again. Returns how many went.
   */
  deleteSince(scope: Scope, sinceIso: string): number {
    checkScope(scope);
    const w = this.ctx.window(sinceIso);
    return this.ctx.tx(() => {
      this.ctx
        .stmt("UPDATE memory_transitions SET value = '' WHERE layer = ? AND user_id = ? AND ts >= ? AND ts <= ? AND reverted IS NOT NULL")
        .run(scope.layer, scope.user_id, w.since, w.until);
      return this.ctx
        .stmt('DELETE FROM memory_transitions WHERE layer = ? AND user_id = ? AND ts >= ? AND ts <= ? AND reverted IS NULL')
        .run(scope.layer, scope.user_id, w.since, w.until).changes;
    });
  }

  /**
   * Blank the promoted value of the transitions of facts forget deleted (by entry_id): the row stays
   * (revert_transition answers that the fact no longer exists, and a reverted one still keeps the
   * episode in L3), the forgotten words do not. Returns how many changed.
   */
  forgetEntries(scope: Scope, entryIds: readonly string[]): number {
    checkScope(scope);
    if (entryIds.length === 0) return 0;
    return this.ctx.tx(() => {
      const st = this.ctx.stmt("UPDATE memory_transitions SET value = '' WHERE layer = ? AND user_id = ? AND entry_id = ? AND value != ''");
      return entryIds.reduce((n, id) => n + st.run(scope.layer, scope.user_id, id).changes, 0);
    });
  }

  /** Whether a promotion of this episode was reverted (the Consolidator then leaves it in L3). */
  wasReverted(scope: Scope, episodeId: string): boolean {
    checkScope(scope);
    return (
      this.ctx
        .stmt('SELECT 1 FROM memory_transitions WHERE layer = ? AND user_id = ? AND episode_id = ? AND reverted IS NOT NULL LIMIT 1')
        .get(scope.layer, scope.user_id, episodeId) !== undefined
    );
  }

  /**
   * Undo a promotion: delete the promoted fact and mark the transition reverted, in one
   * transaction; the source episode stays. Errors name transition_id: an unknown id (or another
   * scope's), one already reverted, or a fact that no longer holds the promoted value (deleted, or
   * changed since: deleting it would lose that later write).
   */
  revert(scope: Scope, id: string): { transition: MemoryTransition; deleted_entry_id: string } {
    checkScope(scope);
    return this.ctx.tx(() => {
      const t = this.get(scope, id.trim());
      if (!t) throw notFound(`memory transition of layer ${scope.layer}, user_id ${JSON.stringify(scope.user_id)}`, id.trim().slice(0, 100), 'transition_id');
      if (t.reverted !== null) {
        throw new StoreError('STORES_ERR_CONFLICT', `transition_id ${t.id} was already reverted at ${t.reverted}`, { field: 'transition_id', details: { state: 'reverted' } });
      }
      const fact = this.facts.getByEntryId(t.entry_id);
      if (!fact || fact.layer !== scope.layer || fact.user_id !== scope.user_id || fact.key !== t.key || fact.value !== t.value) {
        throw new StoreError(
          'STORES_ERR_CONFLICT',
          `transition_id ${t.id}: the promoted fact ${t.entry_id} (key ${JSON.stringify(t.key)}) ${fact ? 'no longer holds the promoted value' : 'no longer exists'}; nothing was changed`,
          { field: 'transition_id', details: { state: fact ? 'changed' : 'gone' } },
        );
      }
      this.ctx.stmt('DELETE FROM facts WHERE id = ?').run(parseId(FACT_PREFIX, fact.entry_id));
      this.audit.log(scope, 'delete', 'fact', fact.entry_id, { key: fact.key, reason: 'revert_transition', transition_id: t.id });
      const now = this.ctx.iso();
      this.ctx.stmt('UPDATE memory_transitions SET reverted = ? WHERE id = ?').run(now, parseId(TRANSITION_PREFIX, t.id));
      this.audit.log(scope, 'revert', 'transition', t.id, { episode_id: t.episode_id, entry_id: t.entry_id });
      return { transition: { ...t, reverted: now }, deleted_entry_id: fact.entry_id };
    });
  }
}
