import { definePlugin } from '@memory-service/kernel';
import { BookmarkStore, LIMITS } from './bookmark-store.js';
import { migrations } from './migrations.js';
import { bookmarkAddTool } from './tools/bookmark_add.js';
import { bookmarkListTool } from './tools/bookmark_list.js';
import { bookmarkSearchTool } from './tools/bookmark_search.js';

export { BookmarkStore, LIMITS, normalizeTags, normalizeUrl, toFtsQuery, type Bookmark, type Digest, type SearchHit } from './bookmark-store.js';
export { migrations } from './migrations.js';

/**
 * A third-party tier, `bookmarks`: its own table and migrations, three tools, an answer to the
 * session_started lifecycle event with the newest bookmarks of the scope, and a nightly digest of
 * each scope's new and changed bookmarks.
 */
export default definePlugin({
  name: '@memory-service/example-custom-plugin',
  version: '0.1.0',
  tier: 'bookmarks',
  kernel: '^1.0.0',
  description: 'Example third-party plugin: web bookmarks per layer and user, with full-text search.',
  migrations,
  setup(ctx) {
    const store = new BookmarkStore(ctx.storage, ctx.clock);

    ctx.tools.register(bookmarkAddTool(store));
    ctx.tools.register(bookmarkListTool(store));
    ctx.tools.register(bookmarkSearchTool(store));

    // Lands under this plugin's name in the results of memory_hook session_started.
    ctx.onEvent('session_started', (event) => {
      const scope = { layer: event.layer, user_id: event.user_id };
      return { total: store.count(scope), recent: store.recent(scope, LIMITS.recent) };
    });

    // The nightly run visits each scope written since the run before. Its own listing sees only
    // the memory's tables: a scope whose only writes were bookmarks is added here, under this
    // plugin's name. Synchronous, one indexed read; a tap that throws fails alone (logged and
    // recorded on the run), the run goes on.
    ctx.hooks.nightly_scopes.tap(ctx.name, (found, run) => ({ ...found, [ctx.name]: store.scopesWrittenSince(run.since) }));

    // Then, in each scope it visits, the scope's digest since the run before, recorded as this
    // plugin's phase of the run (memory_report_card shows it): numbers under `counts`, text in `detail`.
    ctx.hooks.nightly.tapPromise(ctx.name, async (results, run) => {
      const digest = store.digest({ layer: run.layer, user_id: run.user_id }, run.since);
      const tags = digest.top_tags.map((t) => `${t.tag} (${t.count})`).join(', ');
      return {
        ...results,
        [ctx.name]: {
          counts: { added: digest.added, updated: digest.updated, total: digest.total },
          detail: tags ? `top tags: ${tags}` : null,
        },
      };
    });
  },
});
