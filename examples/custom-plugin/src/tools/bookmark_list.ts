import { defineTool, z } from '@memory-service/kernel';
import { LIMITS, type BookmarkStore } from '../bookmark-store.js';
import { bookmarkOutput, limitInput, scopeInput } from '../schemas.js';

const input = z.object({
  tag: z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, { error: 'must not be empty; leave it out to list every bookmark' })
    .max(LIMITS.tag, { error: `must be at most ${LIMITS.tag} characters` })
    .optional()
    .describe('Only bookmarks carrying this tag (case-insensitive)'),
  limit: limitInput.describe('How many bookmarks to return, 1..200, default 50'),
  ...scopeInput,
});

const output = z.object({
  total: z.number().int().describe('How many bookmarks match in this scope (and tag), beyond the limit too'),
  count: z.number().int().describe('How many are returned'),
  bookmarks: z.array(bookmarkOutput).describe('Most recently saved first'),
});

export function bookmarkListTool(store: BookmarkStore) {
  return defineTool({
    name: 'bookmark_list',
    title: 'List bookmarks',
    description:
      'List saved bookmarks of the given layer and user_id, most recently saved first, optionally only those with a tag. ' +
      'Use it to browse what was saved; use bookmark_search to find pages about a topic. ' +
      'Returns the bookmarks with their URL, title, note and tags, plus the total count.',
    input,
    output,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: (args) => {
      const scope = { layer: args.layer, user_id: args.user_id };
      const bookmarks = store.list(scope, { tag: args.tag, limit: args.limit });
      return { total: store.count(scope, args.tag), count: bookmarks.length, bookmarks };
    },
  });
}
