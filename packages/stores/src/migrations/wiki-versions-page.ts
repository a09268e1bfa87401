import type { Migration } from '../types.js';

/**
 * wiki_page_versions had no index on page_id (fact_versions has fact_versions_entry), so each
 * page's history purge (`VersionLog.purge('wiki')`: wiki_delete, a page forgotten, a proposal
 * reverted, a replace's first-page purge) read the whole versions table of every user: a delete
 * cost grew with the history of the whole data dir.
 */
export const wikiVersionsPageSchema: Migration = {
  id: 30,
  name: 'stores_wiki_versions_page',
  up(db) {
    db.exec('CREATE INDEX IF NOT EXISTS wiki_page_versions_page ON wiki_page_versions(page_id, id)');
  },
};
