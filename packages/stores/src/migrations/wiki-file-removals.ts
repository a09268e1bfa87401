import type { Migration } from '../types.js';

/**
 * The paths of page files whose removal a deleted or moved page owes: recorded in the delete's or
 * move's transaction and cleared once the file is gone, so a process stopped before it could remove
 * one (killed, or a read-only disk until the stop) leaves the next start a list to finish
 * (WikiFilesBehind.finishRemovals) instead of the forgotten page's text on disk.
 */
export const wikiFileRemovalsSchema: Migration = {
  id: 11,
  name: 'stores_wiki_file_removals',
  up(db) {
    db.exec('CREATE TABLE IF NOT EXISTS wiki_file_removals (path TEXT PRIMARY KEY) WITHOUT ROWID');
  },
};
