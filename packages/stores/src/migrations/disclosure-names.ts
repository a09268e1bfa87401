import { toNfc } from '@memory-service/kernel';
import type { Migration } from '../types.js';

/**
 * Disclosure rule names in NFC, as memory_disclose now takes them: "Café" sent decomposed and
 * precomposed were two rules that listed alike. Only names holding a character beyond ASCII are
 * read (NFC changes no ASCII text). A name whose NFC form another rule of its layer and user_id
 * already holds keeps its form (`OR IGNORE`: the two rules stay, as the data was, as migration 28
 * does for watch rules); add still counts it as that name's (DisclosureStore.taken), so no third
 * rule is made.
 */
export const disclosureNamesSchema: Migration = {
  id: 29,
  name: 'stores_disclosure_rule_names',
  up(db) {
    const update = db.prepare('UPDATE OR IGNORE disclosure_rules SET name = ? WHERE id = ?');
    for (const r of db.prepare('SELECT id, name FROM disclosure_rules WHERE length(CAST(name AS BLOB)) <> length(name)').all() as { id: number; name: string }[]) {
      const nfc = toNfc(r.name);
      if (nfc !== r.name) update.run(nfc, r.id);
    }
  },
};
