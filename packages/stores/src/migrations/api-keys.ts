import type { Migration } from '../types.js';

/**
 * The HTTP API keys of memory_api_key (ApiKeyStore): service-wide, not per layer or user_id. Only a
 * salted SHA-256 of each key's secret is kept; `revoked` is set once and never cleared.
 */
export const apiKeysSchema: Migration = {
  id: 18,
  name: 'stores_api_keys',
  up(db) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS api_keys (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        salt TEXT NOT NULL,
        hash TEXT NOT NULL,
        created TEXT NOT NULL,
        last_used TEXT,
        revoked TEXT
      );
    `);
  },
};
