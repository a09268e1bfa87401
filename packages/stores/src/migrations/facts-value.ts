import type { Migration } from '../types.js';

/**
 * facts by value within a scope: think keeps the same text under the key it already has
 * (FactStore.keyFor), and finding that key read every fact of the key family, which grows by one
 * for every note that starts with the same six words.
 */
export const factsValueSchema: Migration = {
  id: 10,
  name: 'stores_facts_value',
  up(db) {
    db.exec('CREATE INDEX IF NOT EXISTS facts_value ON facts(layer, user_id, value)');
  },
};
