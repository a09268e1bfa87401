import type { AuditLog } from './audit.js';
import type { StoreContext } from './context.js';
import { notFound, validationError } from './errors.js';
import { FACT_PREFIX, type FactStore } from './facts.js';
import type { Scope } from './types.js';
import { checkScope, parseId } from './util.js';

/** The importance step of one feedback (the spec's feedback step); the fact store clamps to 0.05..1.0. */
export const FEEDBACK_STEP = 0.05;
/** The importance_audit reason of a feedback's change. */
export const FEEDBACK_REASON = 'agent_feedback';
/** The audit_log actions of a feedback: useful (the spec's recall_useful row) and not useful. */
export const FEEDBACK_USEFUL = 'recall_useful';
export const FEEDBACK_NOT_USEFUL = 'recall_not_useful';
export const QUALITY_REPORT_MAX = 200;
export const QUALITY_REPORT_DEFAULT = 50;

export interface FeedbackResult {
  entry_id: string;
  key: string;
  useful: boolean;
  old_importance: number;
  importance: number;
  /** False when the importance was already at the cap (useful) or the floor (not useful). */
  changed: boolean;
}

export interface QualityEntry {
  entry_id: string;
  key: string;
  importance: number;
  useful: number;
  not_useful: number;
  last_feedback: string;
}

/**
 * memory_quality's feedback on core facts: each feedback moves the fact's importance by
 * FEEDBACK_STEP (logged as agent_feedback in importance_audit by FactStore.adjustImportance) and
 * writes one audit_log row, recall_useful or recall_not_useful, which the report counts.
 */
export class QualityStore {
  constructor(
    private readonly ctx: StoreContext,
    private readonly audit: AuditLog,
    private readonly facts: FactStore,
  ) {}

  feedback(scope: Scope, entry_id: string, useful: boolean): FeedbackResult {
    checkScope(scope);
    if (typeof useful !== 'boolean') throw validationError('useful', 'useful must be true or false', [true, false]);
    if (typeof entry_id !== 'string' || parseId(FACT_PREFIX, entry_id) === null) {
      throw validationError('entry_id', `entry_id must be a core fact id of the form ${FACT_PREFIX}_<number>`, `${FACT_PREFIX}_<number>`);
    }
    return this.ctx.tx(() => {
      const fact = this.facts.getByEntryId(entry_id);
      // Entry ids are global: a fact of another layer or user_id is not found here.
      if (!fact || fact.layer !== scope.layer || fact.user_id !== scope.user_id) {
        throw notFound(`core fact of layer ${scope.layer}, user_id ${JSON.stringify(scope.user_id)}`, entry_id, 'entry_id');
      }
      const after = this.facts.adjustImportance(entry_id, useful ? FEEDBACK_STEP : -FEEDBACK_STEP, FEEDBACK_REASON);
      const importance = after?.importance ?? fact.importance;
      this.audit.log(scope, useful ? FEEDBACK_USEFUL : FEEDBACK_NOT_USEFUL, 'fact', entry_id, { old: fact.importance, new: importance });
      return { entry_id, key: fact.key, useful, old_importance: fact.importance, importance, changed: importance !== fact.importance };
    });
  }

  /**
   * Per fact of the scope that has feedback and still exists: its useful and not-useful counts and
   * current importance, most useful first (then fewest not useful, latest feedback, entry id);
   * `total` counts every such fact.
   */
  report(scope: Scope, opts: { limit?: number; offset?: number } = {}): { entries: QualityEntry[]; total: number; useful: number; not_useful: number } {
    checkScope(scope);
    const limit = opts.limit ?? QUALITY_REPORT_DEFAULT;
    const offset = opts.offset ?? 0;
    const grouped = `
      SELECT g.target_id AS entry_id, f.key AS key, f.importance AS importance, g.useful AS useful, g.not_useful AS not_useful, g.last AS last_feedback
      FROM (SELECT target_id, SUM(action = '${FEEDBACK_USEFUL}') AS useful, SUM(action = '${FEEDBACK_NOT_USEFUL}') AS not_useful, MAX(ts) AS last
            FROM audit_log WHERE layer = ? AND user_id = ? AND action IN ('${FEEDBACK_USEFUL}', '${FEEDBACK_NOT_USEFUL}') GROUP BY target_id) g
      JOIN facts f ON f.id = CAST(substr(g.target_id, ${FACT_PREFIX.length + 2}) AS INTEGER) AND g.target_id = '${FACT_PREFIX}_' || f.id
      WHERE f.layer = ? AND f.user_id = ?`;
    const args = [scope.layer, scope.user_id, scope.layer, scope.user_id];
    const totals = this.ctx.stmt(`SELECT COUNT(*) AS n, COALESCE(SUM(useful), 0) AS u, COALESCE(SUM(not_useful), 0) AS nu FROM (${grouped})`).get(...args) as { n: number; u: number; nu: number };
    const entries = this.ctx
      .stmt(`${grouped} ORDER BY g.useful DESC, g.not_useful ASC, g.last DESC, f.id ASC LIMIT ? OFFSET ?`)
      .all(...args, limit, offset) as QualityEntry[];
    return { entries, total: totals.n, useful: totals.u, not_useful: totals.nu };
  }
}
