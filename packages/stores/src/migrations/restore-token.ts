import type { Migration } from '../types.js';

/**
 * `restore_token`: one row, a token that every memory_backup restore replaces with a new random
 * one (BackupStore.restore). memory_recall's cache keeps the token an answer was computed under
 * beside the scope's write count: a restore puts scope_writes back to the backup's counts, which
 * the next writes reach again, so the count alone could match an answer about records the restore
 * took away. The token tells any process that the database it read is not the one it reads now.
 */
export const restoreTokenSchema: Migration = {
  id: 22,
  name: 'stores_restore_token',
  up(db) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS restore_token (id INTEGER PRIMARY KEY CHECK (id = 1), token TEXT NOT NULL);
      INSERT OR IGNORE INTO restore_token (id, token) VALUES (1, '');
    `);
  },
};
