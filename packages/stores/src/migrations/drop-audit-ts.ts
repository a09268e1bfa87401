import type { Migration } from '../types.js';

/**
 * audit_log_ts (audit_log by ts alone) has no reader: the audit trail is read by target
 * (audit_log_target) or by scope and time (audit_log_scope). Kept, it was one more page in the WAL
 * of every write (about one frame of the twenty a think commits). Migration 1 no longer makes it.
 */
export const dropAuditTsSchema: Migration = {
  id: 7,
  name: 'stores_drop_audit_log_ts',
  up(db) {
    db.exec('DROP INDEX IF EXISTS audit_log_ts');
  },
};
