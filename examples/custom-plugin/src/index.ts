import { definePlugin } from '@memory-service/kernel';
import { BookmarkStore, LIMITS } from './bookmark-store.js';
import { migrations } from './migrations.js';
import { bookmarkAddTool } from './tools/bookmark_add.js';
import { bookmarkListTool } from './tools/bookmark_list.js';
import { bookmarkSearchTool } from './tools/bookmark_search.js';

export { BookmarkStore, LIMITS, normalizeTags, normalizeUrl, toFtsQuery, type Bookmark, type SearchHit } from './bookmark-store.js';
export { migrations } from './migrations.js';

/**
 * A third-party tier, `bookmarks`: its own table and migration, three tools, and an answer to
 * the session_started lifecycle event with the newest bookmarks of the scope.
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
  },
});
