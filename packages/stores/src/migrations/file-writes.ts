import type { Migration } from '../types.js';

/**
 * The file work a committed transaction owes, recorded inside it and cleared once done, so a
 * process stopped in between (killed after the commit) leaves the next start a list to finish:
 * `wiki_file_writes`, the page files a bulk writer (memory_data import) owes, each written from the
 * row that has its path whatever its time (WikiFilesBehind.finishWrites); `standing_file_writes`,
 * the standing query files a transaction writes (content) or removes (content NULL), which exist
 * only as files (StandingStore.finishWrites).
 */
export const fileWritesSchema: Migration = {
  id: 24,
  name: 'stores_file_writes',
  up(db) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS wiki_file_writes (path TEXT PRIMARY KEY) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS standing_file_writes (path TEXT PRIMARY KEY, content TEXT) WITHOUT ROWID;
    `);
  },
};
