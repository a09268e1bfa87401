import type { Migration } from '../types.js';

/**
 * Episodes gain a `context` column (the neighbouring thought), indexed by retrieval at a low weight
 * so a memory can be found through the words of the exchange it belongs to. The episodes FTS5 index
 * that migration 2 made is dropped here (it used to be remade with the new column; migration 6 now
 * drops every FTS5 index, so a database created now never builds it).
 */
export const episodeContextSchema: Migration = {
  id: 4,
  name: 'stores_episode_context',
  up(db) {
    db.exec(`
      ALTER TABLE episodes ADD COLUMN context TEXT NOT NULL DEFAULT '';
      DROP TRIGGER IF EXISTS episodes_fts_ai;
      DROP TRIGGER IF EXISTS episodes_fts_ad;
      DROP TRIGGER IF EXISTS episodes_fts_au;
      DROP TABLE IF EXISTS episodes_fts_vocab;
      DROP TABLE IF EXISTS episodes_fts;
    `);
  },
};
