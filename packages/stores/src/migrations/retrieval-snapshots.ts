import type { Migration } from '../types.js';

/**
 * The token of each source's last saved retrieval index (retrieval/index-snapshot.ts) and the
 * change-log seq it holds. A saved file is used only when its token is the one recorded here, so a
 * file left from another copy of the database, or one whose save did not finish, is rebuilt.
 */
export const retrievalSnapshotsSchema: Migration = {
  id: 8,
  name: 'stores_retrieval_snapshots',
  up(db) {
    db.exec(`CREATE TABLE retrieval_snapshots (
      source TEXT PRIMARY KEY,
      token TEXT NOT NULL,
      cursor INTEGER NOT NULL
    )`);
  },
};
