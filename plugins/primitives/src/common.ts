import { cutChars, layerSchema, overChars, userIdSchema, z } from '@memory-service/kernel';
import type { Scope } from '@memory-service/stores';

/** The `layer` input of every primitive that takes one (think adds `auto`). */
export const layerInput = layerSchema.default('user').describe('Memory layer: user (facts about the user) or agent (the agent itself)');
export const userIdInput = userIdSchema.describe('Namespace within the layer; default "default"');

export function scopeOf(args: { layer: 'user' | 'agent'; user_id: string }): Scope {
  return { layer: args.layer, user_id: args.user_id };
}

/** Action references: which store a write landed in and the id it got there. */
export const actionSchema = z.object({
  store: z.enum(['l1', 'l3', 'l4', 'wiki', 'graph', 'timeline']),
  id: z.string(),
  kind: z.string().optional(),
  key: z.string().optional(),
  path: z.string().optional(),
});
export type Action = z.infer<typeof actionSchema>;

/** A dream hit: which memory ranked where and why; its text is in the summary, under a heading naming its id. */
export const hitSchema = z.object({
  source: z.string(),
  id: z.string(),
  score: z.number(),
  title: z.string().optional(),
  created: z.string(),
  explain: z
    .object({ bm25: z.number(), importance: z.number(), recency: z.number(), access: z.number() })
    .optional()
    .describe('With explain: true, the weighted parts of the score: bm25 + importance + recency + access = score'),
});

/** A compact single-line excerpt of at most `max` characters (code points: an emoji is never cut in half). */
export function excerpt(text: string, max = 240): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return overChars(flat, max) ? `${cutChars(flat, max - 1)}…` : flat;
}

/** Compact ISO-like timestamp for automatic page titles: 20260101T120000Z. */
export function compactTs(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
}
