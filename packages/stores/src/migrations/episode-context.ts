import type { Migration } from '../types.js';
import { ftsSql } from './fts.js';

/**
 * Episodes gain a `context` column (the neighbouring thought), indexed at a low weight in
 * episodes_fts so a memory can be found through the words of the exchange it belongs to.
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
    db.exec(ftsSql({ table: 'episodes', fts: 'episodes_fts', columns: ['summary', 'tags', 'context'] }));
    db.exec(`CREATE VIRTUAL TABLE episodes_fts_vocab USING fts5vocab(episodes_fts, 'row');`);
  },
};
