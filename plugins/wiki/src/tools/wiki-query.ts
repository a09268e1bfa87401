import { defineTool, z } from '@memory-service/kernel';
import { isoBoundDescription, WIKI_QUERY_CONTENT_MAX, WIKI_QUERY_DEFAULT_LIMIT, WIKI_QUERY_MAX_LIMIT, WIKI_QUERY_TITLE_MAX, type DateOnly, type Stores } from '@memory-service/stores';
import { layerInput, offsetInput, paged, pagedOutput, scopeOf, userIdInput, wikiTypeInput } from '../common.js';

const timestamp = (what: string, dateOnly: DateOnly) => z.string().max(100).optional().describe(isoBoundDescription(what, dateOnly));

export function wikiQueryTool(stores: Stores) {
  return defineTool({
    name: 'wiki_query',
    title: 'Filter wiki pages',
    description:
      'Find the wiki pages of the layer and user_id that match every filter given (none: every page): wiki_type; tags, faceted ' +
      '("dimension:value"; a plain tag is its own dimension): tags of one dimension match any of them, different dimensions all; ' +
      'title and content: whole words ignoring case and accents, several words as a phrase ("cat" finds "my cat", not "vacation"); ' +
      'created_since / created_until and updated_since / updated_until: ISO 8601 times, bounds included (a date alone as an until includes that day). ' +
      'Most recently updated first, ' +
      `limit (default ${WIKI_QUERY_DEFAULT_LIMIT}, at most ${WIKI_QUERY_MAX_LIMIT}) from offset. Returns the pages without content ` +
      '(title, wiki_type, tags, path for wiki_read, dates, size), count (on this page), total (all matching) and next_offset ' +
      '(null when there are no more). Use wiki_search to rank pages by relevance to a question instead.',
    input: () => z.object({
      wiki_type: wikiTypeInput.optional().describe('Only pages of this type'),
      tags: z.array(z.string().max(200)).max(50).optional().describe('Faceted tags: same dimension any of, different dimensions all of'),
      title: z.string().max(WIKI_QUERY_TITLE_MAX).optional().describe('Whole words the title holds (case and accents ignored)'),
      content: z.string().max(WIKI_QUERY_CONTENT_MAX).optional().describe('Whole words the content holds (case and accents ignored)'),
      created_since: timestamp('Created at or after', 'start'),
      created_until: timestamp('Created at or before', 'end'),
      updated_since: timestamp('Last updated at or after', 'start'),
      updated_until: timestamp('Last updated at or before', 'end'),
      limit: z.number().int().min(1).max(WIKI_QUERY_MAX_LIMIT).default(WIKI_QUERY_DEFAULT_LIMIT).describe('Most pages returned'),
      offset: offsetInput,
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: pagedOutput,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: (args) => {
      const { layer: _layer, user_id: _user, ...filter } = args;
      const r = stores.wiki.query(scopeOf(args), filter);
      return paged(r.pages, r.total, args.offset);
    },
  });
}
