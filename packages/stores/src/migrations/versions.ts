import type { Migration } from '../types.js';

/**
 * The write tier's own records:
 * - fact_versions and wiki_page_versions: every value an L4 fact and every content a wiki page held
 *   (written by FactStore and WikiStore in the transaction of the change; memory_history). The
 *   records that exist when the migration runs get one `snapshot` version each, so their history
 *   starts with the value they hold.
 * - fact_branches and fact_branch_entries: named what-if copies of a scope's facts (memory_branch);
 *   an entry keeps the value the branch started from (base_*, null for a key the branch added) and
 *   the branch's own (value null: removed in the branch).
 * - scratchpad_stashes and scratchpad_stash_entries: scratchpad entries set aside (memory_stash).
 * - procedures: named step lists with their run counts (memory_procedure).
 */
export const versionsSchema: Migration = {
  id: 15,
  name: 'stores_versions_branches_stashes_procedures',
  up(db) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS fact_versions (
        id INTEGER PRIMARY KEY,
        layer TEXT NOT NULL,
        user_id TEXT NOT NULL,
        key TEXT NOT NULL,
        entry_id TEXT NOT NULL,
        op TEXT NOT NULL,
        value TEXT NOT NULL,
        importance REAL NOT NULL,
        source TEXT NOT NULL,
        metadata TEXT NOT NULL DEFAULT '{}',
        reason TEXT NOT NULL DEFAULT '',
        ts TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS fact_versions_key ON fact_versions(layer, user_id, key, id);
      CREATE INDEX IF NOT EXISTS fact_versions_entry ON fact_versions(entry_id, id);
      CREATE INDEX IF NOT EXISTS fact_versions_ts ON fact_versions(layer, user_id, ts);
      INSERT INTO fact_versions (layer, user_id, key, entry_id, op, value, importance, source, metadata, reason, ts)
        SELECT layer, user_id, key, 'fact_' || id, 'snapshot', value, importance, source, metadata, 'history started', updated
        FROM facts WHERE NOT EXISTS (SELECT 1 FROM fact_versions);

      CREATE TABLE IF NOT EXISTS wiki_page_versions (
        id INTEGER PRIMARY KEY,
        layer TEXT NOT NULL,
        user_id TEXT NOT NULL,
        title TEXT NOT NULL,
        page_id TEXT NOT NULL,
        op TEXT NOT NULL,
        wiki_type TEXT NOT NULL,
        tags TEXT NOT NULL DEFAULT '[]',
        content TEXT NOT NULL,
        reason TEXT NOT NULL DEFAULT '',
        ts TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS wiki_page_versions_title ON wiki_page_versions(layer, user_id, title, id);
      CREATE INDEX IF NOT EXISTS wiki_page_versions_ts ON wiki_page_versions(layer, user_id, ts);
      INSERT INTO wiki_page_versions (layer, user_id, title, page_id, op, wiki_type, tags, content, reason, ts)
        SELECT layer, user_id, title, 'wiki_' || id, 'snapshot', wiki_type, tags, content, 'history started', updated
        FROM wiki_pages WHERE NOT EXISTS (SELECT 1 FROM wiki_page_versions);

      CREATE TABLE IF NOT EXISTS fact_branches (
        id INTEGER PRIMARY KEY,
        layer TEXT NOT NULL,
        user_id TEXT NOT NULL,
        name TEXT NOT NULL,
        created TEXT NOT NULL,
        updated TEXT NOT NULL,
        UNIQUE (layer, user_id, name)
      );
      CREATE TABLE IF NOT EXISTS fact_branch_entries (
        branch_id INTEGER NOT NULL REFERENCES fact_branches(id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        base_value TEXT,
        base_importance REAL,
        value TEXT,
        importance REAL,
        source TEXT NOT NULL,
        metadata TEXT NOT NULL DEFAULT '{}',
        PRIMARY KEY (branch_id, key)
      ) WITHOUT ROWID;

      CREATE TABLE IF NOT EXISTS scratchpad_stashes (
        id INTEGER PRIMARY KEY,
        layer TEXT NOT NULL,
        user_id TEXT NOT NULL,
        name TEXT NOT NULL,
        note TEXT NOT NULL DEFAULT '',
        created TEXT NOT NULL,
        UNIQUE (layer, user_id, name)
      );
      CREATE TABLE IF NOT EXISTS scratchpad_stash_entries (
        stash_id INTEGER NOT NULL REFERENCES scratchpad_stashes(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        key TEXT NOT NULL,
        content TEXT NOT NULL,
        created TEXT NOT NULL,
        updated TEXT NOT NULL,
        PRIMARY KEY (stash_id, seq)
      ) WITHOUT ROWID;

      CREATE TABLE IF NOT EXISTS procedures (
        id INTEGER PRIMARY KEY,
        layer TEXT NOT NULL,
        user_id TEXT NOT NULL,
        name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        trigger TEXT NOT NULL DEFAULT '',
        steps TEXT NOT NULL,
        successes INTEGER NOT NULL DEFAULT 0,
        failures INTEGER NOT NULL DEFAULT 0,
        last_run TEXT,
        last_outcome TEXT,
        last_note TEXT,
        created TEXT NOT NULL,
        updated TEXT NOT NULL,
        UNIQUE (layer, user_id, name)
      );
    `);
  },
};
