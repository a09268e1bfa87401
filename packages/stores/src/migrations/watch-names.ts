import { toNfc } from '@memory-service/kernel';
import type { Migration } from '../types.js';

type Db = Parameters<Migration['up']>[0];

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
    nfcRuleNames(db, 'watch_rules');
  },
};

/**
 * The `name` column of a rules table (watch_rules, disclosure_rules) in NFC, reading only names
 * beyond ASCII; a name whose NFC form its scope already holds keeps its form (`OR IGNORE`).
 */
export function nfcRuleNames(db: Db, table: 'watch_rules' | 'disclosure_rules'): void {
  const update = db.prepare(`UPDATE OR IGNORE ${table} SET name = ? WHERE id = ?`);
  for (const r of db.prepare(`SELECT id, name FROM ${table} WHERE length(CAST(name AS BLOB)) <> length(name)`).all() as { id: number; name: string }[]) {
    const nfc = toNfc(r.name);
    if (nfc !== r.name) update.run(nfc, r.id);
  }
}
