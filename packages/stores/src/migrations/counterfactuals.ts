import type { Migration } from '../types.js';

/**
 * Counterfactuals (memory_counterfactual): "what if" notes of a scope, each an anchor (what it is
 * about: a decision, an episode id, a topic), a premise (what might have been) and a projection
 * (what would likely have followed). Listed by anchor, newest first.
 */
export const counterfactualsSchema: Migration = {
  id: 13,
  name: 'stores_counterfactuals',
  up(db) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS counterfactuals (
        id INTEGER PRIMARY KEY,
        layer TEXT NOT NULL CHECK (layer IN ('user', 'agent')),
        user_id TEXT NOT NULL,
        anchor TEXT NOT NULL,
        premise TEXT NOT NULL,
        projection TEXT NOT NULL,
        created TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS counterfactuals_anchor ON counterfactuals (layer, user_id, anchor, id);
      CREATE INDEX IF NOT EXISTS counterfactuals_scope ON counterfactuals (layer, user_id, id);
    `);
  },
};
