import type { Migration } from '../types.js';

/**
 * Watch rules (memory_watch) of each layer and user_id, and their hits (one row per match, for
 * hits_24h). Deleting a rule deletes its hits.
 */
export const watchRulesSchema: Migration = {
  id: 14,
  name: 'stores_watch_rules',
  up(db) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS watch_rules (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        layer TEXT NOT NULL,
        user_id TEXT NOT NULL,
        name TEXT NOT NULL,
        trigger TEXT NOT NULL,
        predicate TEXT NOT NULL DEFAULT '{}',
        action TEXT NOT NULL,
        enabled INTEGER NOT NULL DEFAULT 1,
        created TEXT NOT NULL,
        updated TEXT NOT NULL,
        UNIQUE (layer, user_id, name)
      );
      CREATE INDEX IF NOT EXISTS watch_rules_trigger ON watch_rules (layer, user_id, trigger, enabled);
      CREATE TABLE IF NOT EXISTS watch_hits (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        rule_id INTEGER NOT NULL REFERENCES watch_rules (id) ON DELETE CASCADE,
        ts TEXT NOT NULL,
        refs TEXT NOT NULL DEFAULT '[]'
      );
      CREATE INDEX IF NOT EXISTS watch_hits_rule_ts ON watch_hits (rule_id, ts);
    `);
  },
};
