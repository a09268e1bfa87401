import { defineTool, z } from '@memory-service/kernel';
import { LIMITS, type BookmarkStore } from '../bookmark-store.js';
import { bookmarkOutput, limitInput, scopeInput } from '../schemas.js';

const input = z.object({
  query: z
    .string({ error: 'is required: the words to search for' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(LIMITS.query, { error: `must be at most ${LIMITS.query} characters` })
    .describe('Words to look for in titles, notes, URLs and tags; word forms match ("deploying" finds "deploy")'),
  limit: limitInput.describe('How many results to return, 1..200, default 50'),
  ...scopeInput,
});

const output = z.object({
  query: z.string(),
  count: z.number().int(),
  results: z
    .array(bookmarkOutput.extend({ score: z.number().describe('Relevance, higher is better') }))
    .describe('Best match first'),
});

export function bookmarkSearchTool(store: BookmarkStore) {
  return defineTool({
    name: 'bookmark_search',
    title: 'Search bookmarks',
    description:
      'Full-text search of the saved bookmarks of the given layer and user_id by title, note, URL and tags, best match first. ' +
      'Any of the query words may match; pages matching more of them rank higher. ' +
      'Use it to find a page saved earlier about a topic. Returns matching bookmarks with a relevance score.',
    input,
    output,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: (args) => {
      const results = store.search({ layer: args.layer, user_id: args.user_id }, args.query, args.limit);
      return { query: args.query, count: results.length, results };
    },
  });
}
