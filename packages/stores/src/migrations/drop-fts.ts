import type { Migration } from '../types.js';
import { FTS_TABLES } from './fts.js';

/**
 * Retrieval reads its own in-memory index (retrieval/term-index.ts) kept from the change log
 * (migration 5), so the FTS5 indexes have no reader left; their triggers cost every write a new
 * FTS5 segment per index touched (about a fifth of a think). They are dropped with their
 * fts5vocab views.
 */
export const dropFtsSchema: Migration = {
  id: 6,
  name: 'stores_drop_fts',
  up(db) {
    for (const fts of FTS_TABLES) {
      db.exec(`
        DROP TRIGGER IF EXISTS ${fts}_ai;
        DROP TRIGGER IF EXISTS ${fts}_ad;
        DROP TRIGGER IF EXISTS ${fts}_au;
        DROP TABLE IF EXISTS ${fts}_vocab;
        DROP TABLE IF EXISTS ${fts};
      `);
    }
  },
};
