import { defineTool, z } from '@memory-service/kernel';
import { LIMITS, type BookmarkStore } from '../bookmark-store.js';
import { bookmarkOutput, scopeInput } from '../schemas.js';

const input = z.object({
  url: z
    .url({ protocol: /^https?$/, error: 'must be an absolute http or https URL, e.g. "https://example.com/page"' })
    .max(LIMITS.url, { error: `must be at most ${LIMITS.url} characters` })
    .describe('The page to bookmark: an absolute http:// or https:// URL'),
  title: z
    .string({ error: 'is required: a short human-readable title' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(LIMITS.title, { error: `must be at most ${LIMITS.title} characters` })
    .describe('A short title for the page'),
  note: z
    .string({ error: 'must be a string' })
    .max(LIMITS.note, { error: `must be at most ${LIMITS.note} characters` })
    .optional()
    .describe('Why the page matters or what to remember about it'),
  tags: z
    .array(
      z
        .string({ error: 'each tag must be a string' })
        .trim()
        .min(1, { error: 'each tag must be non-empty' })
        .max(LIMITS.tag, { error: `each tag must be at most ${LIMITS.tag} characters` }),
      { error: 'must be an array of strings' },
    )
    .max(LIMITS.tags, { error: `must hold at most ${LIMITS.tags} tags` })
    .optional()
    .describe('Labels to group and filter by; stored lower-cased'),
  ...scopeInput,
});

const output = z.object({
  status: z
    .enum(['created', 'updated', 'unchanged'])
    .describe('created: new bookmark; updated: same URL existed and was changed; unchanged: it already said the same'),
  bookmark: bookmarkOutput,
});

export function bookmarkAddTool(store: BookmarkStore) {
  return defineTool({
    name: 'bookmark_add',
    title: 'Save a bookmark',
    description:
      'Save a web page as a bookmark with a title, an optional note and optional tags, in the given layer and user_id. ' +
      'Use it when the user shares a link worth keeping or asks you to remember a page. ' +
      'Saving a URL that is already bookmarked in the same scope replaces its title, note and tags. ' +
      'Returns the saved bookmark and whether it was created, updated or unchanged. Does not fetch the page.',
    input,
    output,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: (args) =>
      store.add({ layer: args.layer, user_id: args.user_id }, { url: args.url, title: args.title, note: args.note, tags: args.tags }),
  });
}
