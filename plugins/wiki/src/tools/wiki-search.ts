import { defineTool, z } from '@memory-service/kernel';
import type { Stores } from '@memory-service/stores';
import { layerInput, pageInfo, pageInfoSchema, scopeOf, userIdInput, wikiTypeInput } from '../common.js';

export function wikiSearchTool(stores: Stores) {
  return defineTool({
    name: 'wiki_search',
    title: 'Search wiki pages',
    description:
      'Full-text search over the wiki pages of the layer and user_id (stemmed, BM25 over title and content, as dream ranks them, ' +
      'wiki pages only), optionally of one wiki_type. Returns the pages best first, each with its score, its fields ' +
      '(title, wiki_type, tags, path for wiki_read, dates, size) and a one-line excerpt around the first query word it holds, ' +
        'in any spelling dream matches (fetch_user_profile for fetchuserprofile, $12,400 for 12400).',
    input: () => z.object({
      query: z.string().min(1).max(4000).describe('Words to find in page titles and content'),
      wiki_type: wikiTypeInput.optional().describe('Only pages of this type'),
      limit: z.number().int().min(1).max(50).default(10).describe('Most pages returned'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      query: z.string(),
      count: z.number(),
      results: z.array(pageInfoSchema.extend({ score: z.number(), excerpt: z.string() })),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: (args) => {
      const hits = stores.wikiViews.search(scopeOf(args), args.query, { wiki_type: args.wiki_type, limit: args.limit });
      return { query: args.query, count: hits.length, results: hits.map((h) => ({ ...pageInfo(h), score: h.score, excerpt: h.excerpt })) };
    },
  });
}
