import { layerSchema, userIdSchema, z } from '@memory-service/kernel';
import { parseId, validationError, type Episode, type Scope } from '@memory-service/stores';

/** The `layer` and `user_id` inputs of every insight tool: a tool only ever reads this scope. */
export const layerInput = layerSchema.default('user').describe('Memory layer: user (facts about the user) or agent (the agent itself)');
export const userIdInput = userIdSchema.describe('Namespace within the layer; default "default"');

export const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

export function scopeOf(args: { layer: 'user' | 'agent'; user_id: string }): Scope {
  return { layer: args.layer, user_id: args.user_id };
}

/** The rowid of a store id `<prefix>_<n>` (ep_12, node_3, fact_7), or an error naming `field` and the form accepted. */
export function checkId(value: string, prefix: string, field: string): number {
  const n = parseId(prefix, value.trim());
  if (n === null) throw validationError(field, `${field} must be an id of the form ${prefix}_<number> (e.g. ${prefix}_12); got ${JSON.stringify(value.slice(0, 100))}`, `${prefix}_<number>`);
  return n;
}

export const limitInput = (def: number, max: number) => z.number().int().min(1).max(max).default(def).describe(`Most records returned (default ${def}, at most ${max})`);
export const offsetInput = z.number().int().min(0).max(1_000_000).default(0).describe('Records to skip (next_offset of the previous call)');

/** Paging fields of a listing fetched with one record beyond the page (`rows.length > limit` means more). */
export function page<T>(rows: T[], limit: number, offset: number): { items: T[]; count: number; offset: number; next_offset: number | null } {
  const items = rows.slice(0, limit);
  return { items, count: items.length, offset, next_offset: rows.length > limit ? offset + items.length : null };
}

export const pagingOutput = {
  count: z.number().describe('Records on this page'),
  offset: z.number(),
  next_offset: z.number().nullable().describe('Offset of the next page; null when there are no more'),
};

export const episodeSchema = z.object({
  id: z.string().describe('Episode id (ep_<n>), as think and dream report it'),
  summary: z.string(),
  emotional_weight: z.number(),
  importance: z.number(),
  tags: z.array(z.string()),
  created: z.string(),
});
export type EpisodeOut = z.infer<typeof episodeSchema>;

/** The shown fields of an episode (its layer and user_id are the caller's own). */
export function episodeOut(e: Episode): EpisodeOut {
  return { id: e.id, summary: e.summary, emotional_weight: e.emotional_weight, importance: e.importance, tags: e.tags, created: e.created };
}

export const tagFilterInput = z
  .union([z.string().min(1).max(200), z.array(z.string().min(1).max(200)).max(50)])
  .optional()
  .describe('Faceted tags ("dimension:value"; a plain tag is its own dimension): tags of one dimension match any of them, different dimensions all');

/** The tags of a tag filter as a list, trimmed, blanks dropped; undefined when none was given. */
export function tagList(tag: string | string[] | undefined): string[] | undefined {
  return tag === undefined ? undefined : (typeof tag === 'string' ? [tag] : tag).map((t) => t.trim()).filter(Boolean);
}
