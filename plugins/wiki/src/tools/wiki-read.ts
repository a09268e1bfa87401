import { defineTool, z } from '@memory-service/kernel';
import type { Stores } from '@memory-service/stores';
import { layerInput, linkRefSchema, pageInfo, pageInfoSchema, scopeOf, userIdInput } from '../common.js';

export function wikiReadTool(stores: Stores) {
  return defineTool({
    name: 'wiki_read',
    title: 'Read a wiki page',
    description:
      'Read the full Markdown content of one wiki page of the layer and user_id by its path, exactly as wiki_list, wiki_search or wiki_add ' +
      'return it (wiki/<layer>/<user>/<wiki_type>/<slug>.md). Any other path (absolute, with . or .. segments, another layer\'s or ' +
      'user\'s page, no page) is an error naming path. Returns the page (title, wiki_type, tags, path, dates, size, content) and its ' +
      'typed links in and out.',
    input: () => z.object({
      path: z.string().min(1).max(1000).describe('Page path as listed'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      page: pageInfoSchema.extend({ content: z.string() }),
      links: z.object({ in: z.array(linkRefSchema), out: z.array(linkRefSchema) }),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: (args) => {
      const scope = scopeOf(args);
      const page = stores.wiki.pageAt(scope, args.path);
      return { page: { ...pageInfo(page), content: page.content }, links: stores.wiki.links(scope, page.title) };
    },
  });
}
