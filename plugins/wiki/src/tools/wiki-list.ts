import { defineTool, z } from '@memory-service/kernel';
import type { Stores } from '@memory-service/stores';
import { layerInput, offsetInput, paged, pagedOutput, scopeOf, userIdInput, wikiTypeInput } from '../common.js';

export function wikiListTool(stores: Stores) {
  return defineTool({
    name: 'wiki_list',
    title: 'List wiki pages',
    description:
      'List the wiki pages of the layer and user_id, most recently updated first, optionally of one wiki_type, a page of results at a time ' +
      '(limit, offset). Returns the pages without content (title, wiki_type, tags, path for wiki_read, dates, size), count (on this page), ' +
      'total (all matching) and next_offset (null when there are no more).',
    input: () => z.object({
      wiki_type: wikiTypeInput.optional().describe('Only pages of this type'),
      limit: z.number().int().min(1).max(200).default(50).describe('Most pages returned'),
      offset: offsetInput,
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: pagedOutput,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: (args) => {
      const scope = scopeOf(args);
      const pages = stores.wiki.list(scope, { wiki_type: args.wiki_type, limit: args.limit, offset: args.offset });
      return paged(pages, stores.wiki.count(scope, args.wiki_type), args.offset);
    },
  });
}
