import { defineTool, z } from '@memory-service/kernel';
import type { Stores } from '@memory-service/stores';
import { layerInput, pageInfo, pageInfoSchema, scopeOf, userIdInput, wikiTypeInput } from '../common.js';

export function wikiListTool(stores: Stores) {
  return defineTool({
    name: 'wiki_list',
    title: 'List wiki pages',
    description:
      'List the wiki pages of the layer and user_id, most recently updated first, optionally of one wiki_type, a page of results at a time ' +
      '(limit, offset). Returns the pages without content (title, wiki_type, tags, path for wiki_read, dates, size), count (on this page), ' +
      'total (all matching) and next_offset (null when there are no more).',
    input: z.object({
      wiki_type: wikiTypeInput.optional().describe('Only pages of this type'),
      limit: z.number().int().min(1).max(200).default(50).describe('Most pages returned'),
      offset: z.number().int().min(0).max(1_000_000).default(0).describe('Pages to skip (next_offset of the previous call)'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: z.object({
      pages: z.array(pageInfoSchema),
      count: z.number(),
      total: z.number(),
      offset: z.number(),
      next_offset: z.number().nullable(),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: (args) => {
      const scope = scopeOf(args);
      const pages = stores.wiki.list(scope, { wiki_type: args.wiki_type, limit: args.limit, offset: args.offset }).map(pageInfo);
      const total = stores.wiki.count(scope, args.wiki_type);
      const next = args.offset + pages.length;
      return { pages, count: pages.length, total, offset: args.offset, next_offset: next < total && pages.length > 0 ? next : null };
    },
  });
}
