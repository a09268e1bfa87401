import { toNfc } from '@memory-service/kernel';
import type { Migration } from '../types.js';

type Db = Parameters<Migration['up']>[0];

/** A condition true for a text column holding a character beyond ASCII: only those can change in NFC. */
const beyondAscii = (col: string): string => `length(CAST(${col} AS BLOB)) <> length(${col})`;

/** Graph node types in NFC (graph.nodeTypeOf): one UPDATE per distinct type that changes. */
function nfcNodeTypes(db: Db): void {
  const update = db.prepare('UPDATE graph_nodes SET node_type = ? WHERE node_type = ?');
  for (const t of db.prepare(`SELECT DISTINCT node_type FROM graph_nodes WHERE ${beyondAscii('node_type')}`).pluck(true).all() as string[]) {
    const nfc = toNfc(t);
    if (nfc !== t) update.run(nfc, t);
  }
}

/** Watch rules' `sender` predicate in NFC (checkWatchPredicate); a predicate that does not parse is left as it is. */
function nfcWatchSenders(db: Db): void {
  const update = db.prepare('UPDATE watch_rules SET predicate = ? WHERE id = ?');
  for (const r of db.prepare(`SELECT id, predicate FROM watch_rules WHERE ${beyondAscii('predicate')}`).all() as { id: number; predicate: string }[]) {
    let p: unknown;
    try {
      p = JSON.parse(r.predicate);
    } catch {
      continue;
    }
    if (p === null || typeof p !== 'object' || Array.isArray(p)) continue;
    const sender = (p as { sender?: unknown }).sender;
    if (typeof sender !== 'string' || toNfc(sender) === sender) continue;
    update.run(JSON.stringify({ ...p, sender: toNfc(sender) }), r.id);
  }
}

/**
 * Names stored before they were taken in NFC, in the form their writes and lookups now use:
 * - graph node types: "Café" sent decomposed and precomposed were two types, and a memory_graph_query
 *   or memory_graph_nodes filter in one form never found the nodes stored in the other. Nodes that
 *   now share a type and content both stay (the first found is the one a de-duplicated add answers with);
 * - a watch rule's `sender`, as memory_watch now stores it; its matching folds both forms alike, so
 *   no rule matches otherwise than before: only what list and export show changes.
 * Only rows holding a character beyond ASCII are read: NFC changes no ASCII text.
 */
export const nameFormsSchema: Migration = {
  id: 27,
  name: 'stores_name_forms',
  up(db) {
    nfcNodeTypes(db);
    nfcWatchSenders(db);
  },
};
