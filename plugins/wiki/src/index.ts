import { definePlugin } from '@memory-service/kernel';
import { useStores } from '@memory-service/stores';
import { wikiAddTool } from './tools/wiki-add.js';
import { wikiDeleteTool } from './tools/wiki-delete.js';
import { wikiLinkTool } from './tools/wiki-link.js';
import { wikiListTool } from './tools/wiki-list.js';
import { wikiQueryTool } from './tools/wiki-query.js';
import { wikiReadTool } from './tools/wiki-read.js';
import { wikiReflectTool } from './tools/wiki-reflect.js';
import { wikiSearchTool } from './tools/wiki-search.js';
import { wikiSummarizeTool } from './tools/wiki-summarize.js';

/** The wiki tier: wiki_add, wiki_search, wiki_list, wiki_read, wiki_delete, wiki_summarize, wiki_link, wiki_query, wiki_reflect. */
export default definePlugin({
  name: '@memory-service/plugin-wiki',
  version: '0.1.0',
  tier: 'wiki',
  kernel: '^1.0.0',
  description: 'The wiki tier: typed Markdown pages per layer and user_id, with search, structured filters, perspective digests, reflections and typed links.',
  // Written by the build (scripts/tool-schemas.mjs) beside dist/bundle.js and dist/index.js.
  toolSchemas: new URL('./tool-schemas.json', import.meta.url),
  setup(ctx) {
    const stores = useStores(ctx);
    ctx.tools.register(wikiAddTool(stores));
    ctx.tools.register(wikiSearchTool(stores));
    ctx.tools.register(wikiListTool(stores));
    ctx.tools.register(wikiReadTool(stores));
    ctx.tools.register(wikiDeleteTool(stores));
    ctx.tools.register(wikiSummarizeTool(stores));
    ctx.tools.register(wikiLinkTool(stores));
    ctx.tools.register(wikiQueryTool(stores));
    ctx.tools.register(wikiReflectTool(stores, ctx.clock));
  },
});
