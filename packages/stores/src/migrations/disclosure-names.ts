import type { Migration } from '../types.js';
import { nfcRuleNames } from './watch-names.js';

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
    nfcRuleNames(db, 'disclosure_rules');
  },
};
