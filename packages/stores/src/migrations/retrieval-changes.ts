import type { Migration } from '../types.js';

/** What the retrieval index reads of one content table: its source name, indexed columns and the scope facet. */
export interface IndexedTable {
  source: 'l3' | 'l4' | 'wiki' | 'graph' | 'timeline';
  table: string;
  /** The indexed text columns, in the order of the source's column weights. */
  text: string[];
  /** A column retrieval can filter on (wiki_type). */
  facet?: string;
}

export const INDEXED_TABLES: readonly IndexedTable[] = [
  { source: 'l3', table: 'episodes', text: ['summary', 'tags', 'context'] },
  { source: 'l4', table: 'facts', text: ['key', 'value'] },
  { source: 'wiki', table: 'wiki_pages', text: ['title', 'content'], facet: 'wiki_type' },
  { source: 'graph', table: 'graph_nodes', text: ['content', 'tags'] },
  { source: 'timeline', table: 'timeline_events', text: ['type', 'summary'] },
];

/** Changes kept in the log; a process whose index fell further behind rebuilds it. */
export const CHANGE_LOG_KEEP = 65_536;
/** The log is trimmed once every this many changes. */
export const CHANGE_LOG_TRIM_EVERY = 4_096;

/**
 * The retrieval change log: one row per insert, delete or indexed-column update of a searchable
 * record, written by triggers in the writer's transaction (so a rollback takes it back too). A
 * delete or update also records the old text columns (`old`, a JSON array), which tell an index
 * what to take out. Every process keeps its in-memory retrieval index current by applying the rows
 * past the last one it read, whatever code path or process wrote the change. A memory_backup
 * restore restarts the log (RetrievalIndex.restart): emptied, with one row of source `restore`
 * two seqs above any it held, so it reads as trimmed past every index from before the restore.
 */
export const retrievalChangesSchema: Migration = {
  id: 5,
  name: 'stores_retrieval_changes',
  up(db) {
    db.exec(`
      CREATE TABLE retrieval_changes (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        source TEXT NOT NULL,
        doc INTEGER NOT NULL,
        old TEXT
      );
      CREATE TRIGGER retrieval_changes_trim AFTER INSERT ON retrieval_changes
      WHEN new.seq % ${CHANGE_LOG_TRIM_EVERY} = 0 BEGIN
        DELETE FROM retrieval_changes WHERE seq <= new.seq - ${CHANGE_LOG_KEEP};
      END;
    `);
    for (const t of INDEXED_TABLES) {
      const oldText = `json_array(${t.text.map((c) => `old.${c}`).join(', ')})`;
      const watched = ['id', 'layer', 'user_id', ...t.text, ...(t.facet ? [t.facet] : [])].join(', ');
      db.exec(`
        CREATE TRIGGER ${t.table}_rc_ai AFTER INSERT ON ${t.table} BEGIN
          INSERT INTO retrieval_changes(source, doc) VALUES ('${t.source}', new.id);
        END;
        CREATE TRIGGER ${t.table}_rc_ad AFTER DELETE ON ${t.table} BEGIN
          INSERT INTO retrieval_changes(source, doc, old) VALUES ('${t.source}', old.id, ${oldText});
        END;
        CREATE TRIGGER ${t.table}_rc_au AFTER UPDATE OF ${watched} ON ${t.table} BEGIN
          INSERT INTO retrieval_changes(source, doc, old) VALUES ('${t.source}', old.id, ${oldText});
          INSERT INTO retrieval_changes(source, doc) SELECT '${t.source}', new.id WHERE new.id <> old.id;
        END;
      `);
    }
  },
};
