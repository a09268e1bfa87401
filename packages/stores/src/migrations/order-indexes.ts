import type { Migration } from '../types.js';

/**
 * facts_importance and graph_nodes_confidence were made as (layer, user_id, score DESC, id), but
 * every reader orders by score DESC, id DESC (ties: newest first): no direction of that index
 * gives both, so SQLite sorted each run of equal scores in a temporary b-tree. Scores come in
 * steps (importance by 0.05), so a run can be most of a scope: wake_up's top facts at 10,000 facts
 * of one importance read and sorted all of them (about 2.3 ms a call). On (layer, user_id, score)
 * the rowid ends every entry, and the index read backwards gives score DESC, id DESC as is.
 */
export const orderIndexesSchema: Migration = {
  id: 9,
  name: 'stores_order_indexes',
  up(db) {
    db.exec(`
      DROP INDEX IF EXISTS facts_importance;
      CREATE INDEX facts_importance ON facts(layer, user_id, importance);
      DROP INDEX IF EXISTS graph_nodes_confidence;
      CREATE INDEX graph_nodes_confidence ON graph_nodes(layer, user_id, confidence);
    `);
  },
};
