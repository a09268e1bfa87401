import type { Migration } from '../types.js';

/**
 * `audit_log_feedback`: the memory_quality feedback rows (recall_useful, recall_not_useful) of a
 * scope by fact, a partial index. memory_quality report read every audit row of the scope through
 * audit_log_scope to find those few (76 ms at 100,000 memories, 26x its time at 10,000); partial,
 * so the writes of every other action (think's, a dozen per call) never touch it.
 */
export const auditFeedbackSchema: Migration = {
  id: 25,
  name: 'stores_audit_feedback_index',
  up(db) {
    db.exec("CREATE INDEX IF NOT EXISTS audit_log_feedback ON audit_log(layer, user_id, target_id) WHERE action IN ('recall_useful', 'recall_not_useful')");
  },
};
