import type { StoreContext } from './context.js';
import type { Layer, Scope } from './types.js';
import { parseJson, toIso } from './util.js';

export interface AuditEntry {
  id: number;
  action: string;
  target_type: string;
  target_id: string;
  layer: Layer | null;
  user_id: string | null;
  ts: string;
  detail: Record<string, unknown>;
}

export interface ImportanceChange {
  id: number;
  entry_id: string;
  old: number;
  new: number;
  reason: string;
  ts: string;
}

interface AuditRow extends Omit<AuditEntry, 'detail'> {
  detail: string;
}

function toEntry(r: AuditRow): AuditEntry {
  return { ...r, detail: parseJson<Record<string, unknown>>(r.detail, {}) };
}

/** The audit trails: one audit_log row per write, one importance_audit row per importance change. */
export class AuditLog {
  constructor(private readonly ctx: StoreContext) {}

  log(
    scope: Scope | null,
    action: string,
    target_type: string,
    target_id: string,
    detail: Record<string, unknown> = {},
  ): void {
    this.ctx
      .stmt(
        `INSERT INTO audit_log (action, target_type, target_id, layer, user_id, ts, detail)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(action, target_type, target_id, scope?.layer ?? null, scope?.user_id ?? null, this.ctx.iso(), JSON.stringify(detail));
  }

  /**
   * Blank the details of the scope's audit rows about these targets (keys, old values, titles: the
   * words of a record), keeping each row's action, target and time: forget without the Shadow Bin
   * keeps nothing of what it deleted. Returns the rows changed.
   */
  redact(scope: Scope, targetIds: readonly string[], reason: string): number {
    const detail = JSON.stringify({ redacted: reason });
    const update = this.ctx.stmt('UPDATE audit_log SET detail = ? WHERE target_id = ? AND layer = ? AND user_id = ? AND detail <> ?');
    let n = 0;
    for (const id of new Set(targetIds)) n += update.run(detail, id, scope.layer, scope.user_id, detail).changes;
    return n;
  }

  /** The audit rows of one scope about one target, oldest first (audit_log_target, then the scope checked). */
  forTargetInScope(scope: Scope, target_id: string, limit = 200): AuditEntry[] {
    const rows = this.ctx
      .stmt('SELECT * FROM audit_log WHERE target_id = ? AND layer = ? AND user_id = ? ORDER BY id LIMIT ?')
      .all(target_id, scope.layer, scope.user_id, limit) as AuditRow[];
    return rows.map(toEntry);
  }

  /** Every audit row about one target, oldest first. */
  forTarget(target_id: string, limit = 200): AuditEntry[] {
    const rows = this.ctx
      .stmt('SELECT * FROM audit_log WHERE target_id = ? ORDER BY id LIMIT ?')
      .all(target_id, limit) as AuditRow[];
    return rows.map(toEntry);
  }

  /** Audit rows of one scope at or after an ISO time, newest first. */
  since(scope: Scope, sinceIso: string, limit = 200): AuditEntry[] {
    const rows = this.ctx
      .stmt('SELECT * FROM audit_log WHERE layer = ? AND user_id = ? AND ts >= ? ORDER BY ts DESC, id DESC LIMIT ?')
      .all(scope.layer, scope.user_id, sinceIso, limit) as AuditRow[];
    return rows.map(toEntry);
  }

  /**
   * Sums of the scope's auto-save dispatches (audit rows `auto_save`, one per new_message or
   * auto_save_candidate the primitives handled) at or after the ISO time: how many were dispatched
   * and how many saved to L3, L4 and the graph.
   */
  autoSaveSums(scope: Scope, sinceIso: string): { dispatched: number; saved_l3: number; saved_l4: number; saved_graph: number } {
    const w = this.ctx.window(sinceIso);
    const r = this.ctx
      .stmt(
        `SELECT COUNT(*) AS dispatched,
                COALESCE(SUM(json_extract(detail, '$.saved_l3')), 0) AS saved_l3,
                COALESCE(SUM(json_extract(detail, '$.saved_l4')), 0) AS saved_l4,
                COALESCE(SUM(json_extract(detail, '$.saved_graph')), 0) AS saved_graph
         FROM audit_log WHERE layer = ? AND user_id = ? AND ts >= ? AND ts <= ? AND action = 'auto_save'`,
      )
        .get(scope.layer, scope.user_id, w.since, w.until) as { dispatched: number; saved_l3: number; saved_l4: number; saved_graph: number };
    return r;
  }

  /**
   * Delete each row by its rowid and log its deletion, in one transaction; returns the rows.
   * `ref` names a row's rowid, the id the audit log records and the detail it keeps.
   */
  deleteLogged<T>(
    scope: Scope,
    table: 'episodes' | 'facts' | 'graph_nodes',
    targetType: string,
    rows: T[],
    ref: (row: T) => { rowid: number | null; id: string; detail: Record<string, unknown> },
  ): T[] {
    return this.ctx.tx(() => {
      const del = this.ctx.stmt(`DELETE FROM ${table} WHERE id = ?`);
      for (const row of rows) {
        const { rowid, id, detail } = ref(row);
        del.run(rowid);
        this.log(scope, 'delete', targetType, id, detail);
      }
      return rows;
    });
  }

  /** Remove a scope's audit rows at or after an ISO time (emergency purge); returns the count. */
  deleteSince(scope: Scope, sinceIso: string): number {
    const w = this.ctx.window(sinceIso);
    return this.ctx.tx(
      () =>
        this.ctx.stmt('DELETE FROM audit_log WHERE layer = ? AND user_id = ? AND ts >= ? AND ts <= ?').run(scope.layer, scope.user_id, w.since, w.until)
          .changes,
    );
  }

  /** How many of a scope's audit rows are older than an ISO time (memory_cleanup's retention). */
  countBefore(scope: Scope, beforeIso: string): number {
    beforeIso = toIso(beforeIso, 'before');
    return this.ctx.stmt('SELECT COUNT(*) FROM audit_log WHERE layer = ? AND user_id = ? AND ts < ?').pluck(true).get(scope.layer, scope.user_id, beforeIso) as number;
  }

  /** Remove a scope's audit rows older than an ISO time (memory_cleanup's retention); returns the count. */
  deleteBefore(scope: Scope, beforeIso: string): number {
    beforeIso = toIso(beforeIso, 'before');
    return this.ctx.tx(() => this.ctx.stmt('DELETE FROM audit_log WHERE layer = ? AND user_id = ? AND ts < ?').run(scope.layer, scope.user_id, beforeIso).changes);
  }

  /**
   * How many audit rows of no scope (layer and user_id NULL: project's and the nightly run's, which
   * belong to the whole data dir) are older than an ISO time (memory_cleanup's backups task).
   */
  countScopelessBefore(beforeIso: string): number {
    beforeIso = toIso(beforeIso, 'before');
    return this.ctx.stmt('SELECT COUNT(*) FROM audit_log WHERE layer IS NULL AND user_id IS NULL AND ts < ?').pluck(true).get(beforeIso) as number;
  }

  /** Remove the audit rows of no scope older than an ISO time (memory_cleanup's backups task); returns the count. */
  deleteScopelessBefore(beforeIso: string): number {
    beforeIso = toIso(beforeIso, 'before');
    return this.ctx.tx(() => this.ctx.stmt('DELETE FROM audit_log WHERE layer IS NULL AND user_id IS NULL AND ts < ?').run(beforeIso).changes);
  }

  logImportance(entry_id: string, oldValue: number, newValue: number, reason: string): void {
    this.ctx
      .stmt('INSERT INTO importance_audit (entry_id, old, new, reason, ts) VALUES (?, ?, ?, ?, ?)')
      .run(entry_id, oldValue, newValue, reason, this.ctx.iso());
  }

  /** The importance changes of one entry, oldest first. */
  history(entry_id: string, limit = 200): ImportanceChange[] {
    return this.ctx
      .stmt('SELECT * FROM importance_audit WHERE entry_id = ? ORDER BY id LIMIT ?')
      .all(entry_id, limit) as ImportanceChange[];
  }
}
