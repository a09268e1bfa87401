import { toNfc } from '@memory-service/kernel';
import type { Migration } from '../types.js';

/**
 * Watch rule names in NFC, as memory_watch now takes them: "Café" sent decomposed and precomposed
 * were two rules sharing one `watch:` tag and scratchpad note. Only names holding a character
 * beyond ASCII are read (NFC changes no ASCII text). A name whose NFC form another rule of its
 * layer and user_id already holds keeps its form (`OR IGNORE`: the two rules stay, as the data
 * was); add still counts it as that name's (WatchRuleStore.taken), so no third rule is made.
 */
export const watchNamesSchema: Migration = {
  id: 28,
  name: 'stores_watch_rule_names',
  up(db) {
    const update = db.prepare('UPDATE OR IGNORE watch_rules SET name = ? WHERE id = ?');
    for (const r of db.prepare('SELECT id, name FROM watch_rules WHERE length(CAST(name AS BLOB)) <> length(name)').all() as { id: number; name: string }[]) {
      const nfc = toNfc(r.name);
      if (nfc !== r.name) update.run(nfc, r.id);
    }
  },
};
