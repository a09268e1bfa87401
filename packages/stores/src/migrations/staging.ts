import type { Migration } from '../types.js';

/**
 * Staged mutations and their provenance: `proposals` (memory_proposals: a wiki_write or core_write
 * staged pending, then applied, rejected or reverted; `applied` keeps what the write replaced so a
 * revert can restore it), `memory_transitions` (one row per L3 to L4 promotion of the Consolidator,
 * revertible) and `disclosure_rules` (memory_disclose). Every table is scoped by (layer, user_id).
 */
export const stagingSchema: Migration = {
  id: 16,
  name: 'stores_staging_tables',
  up(db) {
    db.exec(`
CREATE TABLE IF NOT EXISTS proposals (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  layer TEXT NOT NULL, user_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('wiki_write','core_write')),
  payload TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending','applied','rejected','reverted')),
  created TEXT NOT NULL, decided TEXT, reverted TEXT,
  applied TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS proposals_scope ON proposals(layer, user_id, status, id);
CREATE INDEX IF NOT EXISTS proposals_decided ON proposals(layer, user_id, decided);

CREATE TABLE IF NOT EXISTS memory_transitions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  layer TEXT NOT NULL, user_id TEXT NOT NULL,
  episode_id TEXT NOT NULL, entry_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
  ts TEXT NOT NULL, reverted TEXT
);
CREATE INDEX IF NOT EXISTS memory_transitions_scope ON memory_transitions(layer, user_id, id);
CREATE INDEX IF NOT EXISTS memory_transitions_episode ON memory_transitions(layer, user_id, episode_id);

CREATE TABLE IF NOT EXISTS disclosure_rules (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  layer TEXT NOT NULL, user_id TEXT NOT NULL,
  name TEXT NOT NULL, trigger_keywords TEXT NOT NULL, content TEXT NOT NULL,
  enabled INTEGER NOT NULL DEFAULT 1,
  created TEXT NOT NULL, updated TEXT NOT NULL,
  UNIQUE (layer, user_id, name)
);
`);
  },
};
