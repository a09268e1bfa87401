import { defineTool, z } from '@memory-service/kernel';
import { WIKI_TYPES_AGENT, WIKI_TYPES_USER, wikiLint, type Stores } from '@memory-service/stores';
import { layerInput, pageInfo, pageInfoSchema, scopeOf, titleInput, userIdInput, wikiTypeInput } from '../common.js';

export function wikiAddTool(stores: Stores) {
  return defineTool({
    name: 'wiki_add',
    title: 'Add or update a wiki page',
    description:
      'Write a Markdown wiki page by title in the layer and user_id: a new title adds a page, an existing title (trimmed, exact case) ' +
      'replaces that page\'s content, type and tags (tags left out keep the page\'s tags). wiki_type is one of the 15 layer types ' +
      `(user: ${WIKI_TYPES_USER.join(', ')}; agent: ${WIKI_TYPES_AGENT.join(', ')}) or skill. ` +
      'Returns status created or updated, the page (title, wiki_type, tags, path for wiki_read, dates, size) and lint notes ' +
      '(a skill page over 4 KB, a type of the other layer); lint never refuses a write.',
    input: () => z.object({
      title: titleInput.describe('Page title; unique within the layer and user_id'),
      content: z.string().describe('Markdown content; replaces the whole page on update'),
      wiki_type: wikiTypeInput.describe('Page type'),
      tags: z.array(z.string().max(200)).max(50).optional().describe('Tags, each one line (no line breaks, tabs or other control characters); left out on update keeps the page\'s tags'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      status: z.enum(['created', 'updated']),
      page: pageInfoSchema,
      lint: z.array(z.string()),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: (args) => {
      const scope = scopeOf(args);
      const tags = args.tags ?? stores.wiki.getByTitle(scope, args.title)?.tags;
      const page = stores.wiki.save(scope, { title: args.title, content: args.content, wiki_type: args.wiki_type, tags });
      const lint = wikiLint(args.layer, page);
      return { status: page.created_new ? ('created' as const) : ('updated' as const), page: pageInfo(page), lint };
    },
  });
}
