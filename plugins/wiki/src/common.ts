import { layerSchema, userIdSchema, z } from '@memory-service/kernel';
import { WIKI_TITLE_MAX, WIKI_TYPES, type Scope, type WikiPageInfo } from '@memory-service/stores';

/** The `layer` input of every wiki tool (wiki_summarize overrides it by perspective). */
export const layerInput = layerSchema.default('user').describe('Memory layer: user (facts about the user) or agent (the agent itself); each has its own wiki space');
export const userIdInput = userIdSchema.describe('Namespace within the layer; default "default"');

export function scopeOf(args: { layer: 'user' | 'agent'; user_id: string }): Scope {
  return { layer: args.layer, user_id: args.user_id };
}

export const titleInput = z.string().min(1).max(WIKI_TITLE_MAX);
export const wikiTypeInput = z.enum(WIKI_TYPES);

/** A page as listed: everything but its content. */
export const pageInfoSchema = z.object({
  id: z.string(),
  title: z.string(),
  wiki_type: z.string(),
  tags: z.array(z.string()),
  path: z.string().describe('Relative to the data dir; pass it to wiki_read'),
  created: z.string(),
  updated: z.string(),
  size: z.number().describe('Bytes of the Markdown file'),
});
export type PageInfo = z.infer<typeof pageInfoSchema>;

export const linkRefSchema = z.object({ title: z.string(), relation: z.string(), created: z.string() });

/** The listed fields of a page (its layer and user_id are the caller's own). */
export function pageInfo(p: WikiPageInfo): PageInfo {
  return { id: p.id, title: p.title, wiki_type: p.wiki_type, tags: p.tags, path: p.path, created: p.created, updated: p.updated, size: p.size };
}

/** The input of a paged listing: `limit` (1 to max) pages from `offset`. */
export const offsetInput = z.number().int().min(0).max(1_000_000).default(0).describe('Pages to skip (next_offset of the previous call)');

/** The answer of a paged listing: the pages, how many on this page and in all, and where the next page starts. */
export const pagedOutput = z.object({
  pages: z.array(pageInfoSchema),
  count: z.number(),
  total: z.number(),
  offset: z.number(),
  next_offset: z.number().nullable(),
});

/** One page of `total` matching pages that starts at `offset`; next_offset is null at the end. */
export function paged(pages: WikiPageInfo[], total: number, offset: number): z.infer<typeof pagedOutput> {
  const listed = pages.map(pageInfo);
  const next = offset + listed.length;
  return { pages: listed, count: listed.length, total, offset, next_offset: next < total && listed.length > 0 ? next : null };
}
