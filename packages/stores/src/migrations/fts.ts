import type { Migration } from '../types.js';

/**
 * Migration 2 created external-content FTS5 tables (porter stemming over unicode61, diacritics
 * folded) kept in sync by triggers. Retrieval no longer reads them and migration 6 drops them, so
 * a database created now skips them: databases that ran this migration before keep what it made
 * until migration 6 removes it.
 */
export const ftsSchema: Migration = {
  id: 2,
  name: 'stores_fts_indexes',
  up() {
    // Superseded by migration 6 (stores_drop_fts).
  },
};

/** The FTS5 indexes migration 2 made (and migration 4 remade for episodes), which migration 6 drops. */
export const FTS_TABLES = ['episodes_fts', 'facts_fts', 'wiki_fts', 'graph_fts', 'timeline_fts'];
