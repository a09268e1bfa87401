import type { Migration } from '../types.js';

interface FtsSpec {
  table: string;
  fts: string;
  columns: string[];
}

const SPECS: FtsSpec[] = [
  { table: 'episodes', fts: 'episodes_fts', columns: ['summary', 'tags'] },
  { table: 'facts', fts: 'facts_fts', columns: ['key', 'value'] },
  { table: 'wiki_pages', fts: 'wiki_fts', columns: ['title', 'content'] },
  { table: 'graph_nodes', fts: 'graph_fts', columns: ['content', 'tags'] },
  { table: 'timeline_events', fts: 'timeline_fts', columns: ['type', 'summary'] },
];

/**
 * External-content FTS5 tables (porter stemming over unicode61, diacritics folded) kept in sync
 * by triggers. The update triggers fire only when an indexed column changes, so bookkeeping
 * writes such as access counts never touch the full-text index.
 */
export function ftsSql(spec: FtsSpec): string {
  const cols = spec.columns.join(', ');
  const newVals = spec.columns.map((c) => `new.${c}`).join(', ');
  const oldVals = spec.columns.map((c) => `old.${c}`).join(', ');
  return `
CREATE VIRTUAL TABLE ${spec.fts} USING fts5(${cols}, content='${spec.table}', content_rowid='id',
  tokenize='porter unicode61 remove_diacritics 2');
CREATE TRIGGER ${spec.fts}_ai AFTER INSERT ON ${spec.table} BEGIN
  INSERT INTO ${spec.fts}(rowid, ${cols}) VALUES (new.id, ${newVals});
END;
CREATE TRIGGER ${spec.fts}_ad AFTER DELETE ON ${spec.table} BEGIN
  INSERT INTO ${spec.fts}(${spec.fts}, rowid, ${cols}) VALUES ('delete', old.id, ${oldVals});
END;
CREATE TRIGGER ${spec.fts}_au AFTER UPDATE OF ${cols} ON ${spec.table} BEGIN
  INSERT INTO ${spec.fts}(${spec.fts}, rowid, ${cols}) VALUES ('delete', old.id, ${oldVals});
  INSERT INTO ${spec.fts}(rowid, ${cols}) VALUES (new.id, ${newVals});
END;
INSERT INTO ${spec.fts}(${spec.fts}) VALUES ('rebuild');
`;
}

export const ftsSchema: Migration = {
  id: 2,
  name: 'stores_fts_indexes',
  up(db) {
    for (const spec of SPECS) db.exec(ftsSql(spec));
  },
};

export const FTS_TABLES = SPECS.map((s) => s.fts);
