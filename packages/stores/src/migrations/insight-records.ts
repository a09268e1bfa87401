import type { Migration } from '../types.js';

/** The tables whose writes a scope's write counter counts: what memory_recall searches (L3 and L4). */
export const COUNTED_TABLES = ['episodes', 'facts'] as const;

/**
 * The records of the insight tier's own tools:
 * - `reflections`: memory_reflect's deterministic reflections, one row each, per layer and user_id
 *   (the computed figures as JSON in `body`), listed newest first.
 * - `scope_writes`: a counter per layer and user_id, moved by triggers on every insert, update and
 *   delete of an episode or a fact of that scope (by any code path or process, in the writer's
 *   transaction, so a rollback takes it back too). memory_recall's cache keeps the count an answer
 *   was computed at and drops the answer once the count has moved (RecallCache).
 */
export const insightRecordsSchema: Migration = {
  id: 17,
  name: 'stores_insight_records',
  up(db) {
    db.exec(`
      CREATE TABLE reflections (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        layer TEXT NOT NULL, user_id TEXT NOT NULL,
        topic TEXT, period_hours REAL NOT NULL,
        period_start TEXT NOT NULL, period_end TEXT NOT NULL,
        summary TEXT NOT NULL, body TEXT NOT NULL DEFAULT '{}',
        created TEXT NOT NULL
      );
      CREATE INDEX reflections_scope ON reflections(layer, user_id, id);
      CREATE TABLE scope_writes (
        layer TEXT NOT NULL, user_id TEXT NOT NULL, n INTEGER NOT NULL,
        PRIMARY KEY (layer, user_id)
      ) WITHOUT ROWID;
    `);
    const bump = (row: 'new' | 'old') =>
      `INSERT INTO scope_writes (layer, user_id, n) VALUES (${row}.layer, ${row}.user_id, 1) ON CONFLICT (layer, user_id) DO UPDATE SET n = n + 1;`;
    for (const table of COUNTED_TABLES) {
      db.exec(`
        CREATE TRIGGER ${table}_sw_ai AFTER INSERT ON ${table} BEGIN ${bump('new')} END;
        CREATE TRIGGER ${table}_sw_ad AFTER DELETE ON ${table} BEGIN ${bump('old')} END;
        CREATE TRIGGER ${table}_sw_au AFTER UPDATE ON ${table} BEGIN ${bump('old')} ${bump('new')} END;
      `);
    }
  },
};
