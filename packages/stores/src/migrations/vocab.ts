import type { Migration } from '../types.js';

/**
 * Migration 3 created fts5vocab views of each FTS index (`<fts>_vocab`) for inspecting term
 * statistics; with the indexes gone (migration 6), a database created now skips them. Retrieval
 * keeps its own statistics in memory (retrieval/term-index.ts).
 */
export const vocabSchema: Migration = {
  id: 3,
  name: 'stores_fts_vocab',
  up() {
    // Superseded by migration 6 (stores_drop_fts), which drops these views with their indexes.
  },
};
