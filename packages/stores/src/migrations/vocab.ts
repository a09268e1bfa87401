import type { Migration } from '../types.js';
import { FTS_TABLES } from './fts.js';

/**
 * fts5vocab views of each FTS index (one row per stemmed term with its document count), read by
 * retrieval to put the hits of all sources on one BM25 scale.
 */
export const vocabSchema: Migration = {
  id: 3,
  name: 'stores_fts_vocab',
  up(db) {
    for (const fts of FTS_TABLES) db.exec(`CREATE VIRTUAL TABLE ${fts}_vocab USING fts5vocab(${fts}, 'row');`);
  },
};
