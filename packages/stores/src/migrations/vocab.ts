import type { Migration } from '../types.js';
import { FTS_TABLES } from './fts.js';

/**
 * fts5vocab views of each FTS index (`<fts>_vocab`: one row per stemmed term with its document
 * and occurrence counts), for inspecting term statistics. They store nothing. Retrieval keeps its
 * own statistics in memory (retrieval/term-index.ts).
 */
export const vocabSchema: Migration = {
  id: 3,
  name: 'stores_fts_vocab',
  up(db) {
    for (const fts of FTS_TABLES) db.exec(`CREATE VIRTUAL TABLE ${fts}_vocab USING fts5vocab(${fts}, 'row');`);
  },
};
