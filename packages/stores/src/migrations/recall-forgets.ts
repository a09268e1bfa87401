import type { Migration } from '../types.js';

/**
 * A count of forgets that deleted dream queries (RecallEventStore), one row: a process writes its
 * queued queries in a deferred batch up to a second after the dream, so a forget in another
 * process could not delete them yet; a batch that finds the count moved since the process last
 * looked leaves its queued queries out. The count holds no words of what was forgotten.
 */
export const recallForgetsSchema: Migration = {
  id: 12,
  name: 'stores_recall_forgets',
  up(db) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS recall_forgets (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
      INSERT OR IGNORE INTO recall_forgets (id, n) VALUES (1, 0);
    `);
  },
};
