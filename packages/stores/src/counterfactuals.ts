import { toNfc } from '@memory-service/kernel';
import type { AuditLog } from './audit.js';
import type { StoreContext } from './context.js';
import type { Layer, Scope } from './types.js';
import { checkScope, checkText, clamp, makeId, parseId } from './util.js';

export const COUNTERFACTUAL_PREFIX = 'cf';
/** Longest anchor, in characters (an id, a decision's title, a topic). */
export const COUNTERFACTUAL_ANCHOR_MAX = 500;
/** Longest premise or projection, in characters. */
export const COUNTERFACTUAL_TEXT_MAX = 10_000;
/** Most counterfactuals one list returns. */
export const COUNTERFACTUAL_LIST_MAX = 200;

export interface Counterfactual {
  id: string;
  layer: Layer;
  user_id: string;
  anchor: string;
  premise: string;
  projection: string;
  created: string;
}

interface Row {
  id: number;
  layer: Layer;
  user_id: string;
  anchor: string;
  premise: string;
  projection: string;
  created: string;
}

function toCounterfactual(r: Row): Counterfactual {
  return { id: makeId(COUNTERFACTUAL_PREFIX, r.id), layer: r.layer, user_id: r.user_id, anchor: r.anchor, premise: r.premise, projection: r.projection, created: r.created };
}

/**
 * Counterfactuals of a scope: an anchor (what the "what if" is about), a premise and a
 * projection. Saving the same three texts again (anchor trimmed and in NFC) returns the saved one.
 */
export class CounterfactualStore {
  constructor(
    private readonly ctx: StoreContext,
    private readonly audit: AuditLog,
  ) {}

  save(scope: Scope, input: { anchor: string; premise: string; projection: string }): Counterfactual & { created_new: boolean } {
    checkScope(scope);
    // The anchor names what the note is about: trimmed and in NFC, as it is looked up (list).
    const anchor = toNfc(checkText(input.anchor, 'anchor', COUNTERFACTUAL_ANCHOR_MAX).trim());
    const premise = checkText(input.premise, 'premise', COUNTERFACTUAL_TEXT_MAX).trim();
    const projection = checkText(input.projection, 'projection', COUNTERFACTUAL_TEXT_MAX).trim();
    return this.ctx.tx(() => {
      const same = this.ctx
        .stmt('SELECT * FROM counterfactuals WHERE layer = ? AND user_id = ? AND anchor = ? AND premise = ? AND projection = ? ORDER BY id LIMIT 1')
        .get(scope.layer, scope.user_id, anchor, premise, projection) as Row | undefined;
      if (same) return { ...toCounterfactual(same), created_new: false };
      const info = this.ctx
        .stmt('INSERT INTO counterfactuals (layer, user_id, anchor, premise, projection, created) VALUES (?, ?, ?, ?, ?, ?)')
        .run(scope.layer, scope.user_id, anchor, premise, projection, this.ctx.iso());
      const row = this.ctx.stmt('SELECT * FROM counterfactuals WHERE id = ?').get(info.lastInsertRowid) as Row;
      const cf = toCounterfactual(row);
      this.audit.log(scope, 'create', 'counterfactual', cf.id, { anchor });
      return { ...cf, created_new: true };
    });
  }

  /** The scope's counterfactuals, of one anchor (exact once trimmed and in NFC, as saved) or all, newest first, `limit` from `offset`. */
  list(scope: Scope, opts: { anchor?: string; limit?: number; offset?: number } = {}): Counterfactual[] {
    checkScope(scope);
    const limit = clamp(Math.floor(opts.limit ?? 50), 0, COUNTERFACTUAL_LIST_MAX + 1);
    const offset = Math.max(0, Math.floor(opts.offset ?? 0));
    if (opts.anchor !== undefined) {
      const anchor = toNfc(checkText(opts.anchor, 'anchor', COUNTERFACTUAL_ANCHOR_MAX).trim());
      return (
        this.ctx
          .stmt('SELECT * FROM counterfactuals WHERE layer = ? AND user_id = ? AND anchor = ? ORDER BY id DESC LIMIT ? OFFSET ?')
          .all(scope.layer, scope.user_id, anchor, limit, offset) as Row[]
      ).map(toCounterfactual);
    }
    return (
      this.ctx
        .stmt('SELECT * FROM counterfactuals WHERE layer = ? AND user_id = ? ORDER BY id DESC LIMIT ? OFFSET ?')
        .all(scope.layer, scope.user_id, limit, offset) as Row[]
    ).map(toCounterfactual);
  }

  /** Every counterfactual of the scope, oldest first (memory_data export). */
  all(scope: Scope): Counterfactual[] {
    checkScope(scope);
    return (this.ctx.stmt('SELECT * FROM counterfactuals WHERE layer = ? AND user_id = ? ORDER BY id').all(scope.layer, scope.user_id) as Row[]).map(toCounterfactual);
  }

  /** Save one as save() does, then give it the time `created` (memory_data import keeps a record's age). */
  restore(scope: Scope, input: { anchor: string; premise: string; projection: string; created: string }): Counterfactual & { created_new: boolean } {
    return this.ctx.tx(() => {
      const cf = this.save(scope, input);
      if (!cf.created_new) return cf;
      this.ctx.stmt('UPDATE counterfactuals SET created = ? WHERE id = ?').run(input.created, parseId(COUNTERFACTUAL_PREFIX, cf.id));
      return { ...cf, created: input.created };
    });
  }

  /** Delete the scope's counterfactuals created at or after the ISO time (forget recent, memory_lucidity_purge); returns how many. */
  deleteSince(scope: Scope, sinceIso: string): number {
    return this.ctx.deleteScoped('counterfactuals', scope, sinceIso);
  }

  /** Delete every counterfactual of the scope (memory_data import replace); returns how many. */
  clear(scope: Scope): number {
    return this.ctx.deleteScoped('counterfactuals', scope);
  }

  count(scope: Scope, anchor?: string): number {
    checkScope(scope);
    return anchor === undefined
      ? (this.ctx.stmt('SELECT COUNT(*) FROM counterfactuals WHERE layer = ? AND user_id = ?').pluck(true).get(scope.layer, scope.user_id) as number)
      : (this.ctx
          .stmt('SELECT COUNT(*) FROM counterfactuals WHERE layer = ? AND user_id = ? AND anchor = ?')
          .pluck(true)
          .get(scope.layer, scope.user_id, anchor.trim()) as number);
  }
}
