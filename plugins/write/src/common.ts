import { invalid, layerSchema, userIdSchema, z } from '@memory-service/kernel';
import type { Episode, GraphEdge, GraphNode, Scope, Session } from '@memory-service/stores';

/** The `layer` input of every write tool. */
export const layerInput = layerSchema.default('user').describe('Memory layer: user (facts about the user) or agent (the agent itself); the layers never see each other');
export const userIdInput = userIdSchema.describe('Namespace within the layer; default "default"');

export function scopeOf(args: { layer: 'user' | 'agent'; user_id: string }): Scope {
  return { layer: args.layer, user_id: args.user_id };
}

/** Annotations of a tool that adds or updates records without removing any. */
export const ADDITIVE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;

/**
 * Tags of a write: a list of strings, each a plain tag or a faceted `dimension:value` (both parts
 * non-empty). Blank tags are dropped and duplicates kept once (the stores do that).
 */
export const tagsInput = z.array(z.string().max(200)).max(50).optional();

/** The tags, trimmed; a faceted tag with an empty dimension or value (":x", "x:") is an error naming `field`. */
export function checkTags(tags: string[] | undefined, field = 'tags'): string[] {
  const out = (tags ?? []).map((t) => t.trim()).filter((t) => t.length > 0);
  for (const t of out) {
    const i = t.indexOf(':');
    if (i === 0 || i === t.length - 1) {
      throw invalid(field, `holds ${JSON.stringify(t)}: a faceted tag needs a dimension and a value on both sides of ":"`, 'plain tags or dimension:value');
    }
  }
  return out;
}

export const episodeSchema = z.object({
  id: z.string().describe('Episode id (ep_<n>)'),
  summary: z.string(),
  emotional_weight: z.number(),
  importance: z.number(),
  tags: z.array(z.string()),
  created: z.string(),
});

/** The shown fields of an episode (its layer and user_id are the caller's own). */
export function episodeOut(e: Episode): z.infer<typeof episodeSchema> {
  return { id: e.id, summary: e.summary, emotional_weight: e.emotional_weight, importance: e.importance, tags: e.tags, created: e.created };
}

export const nodeSchema = z.object({
  node_id: z.string(),
  content: z.string(),
  node_type: z.string(),
  tags: z.array(z.string()),
  confidence: z.number(),
  created: z.string(),
});

export function nodeOut(n: GraphNode): z.infer<typeof nodeSchema> {
  return { node_id: n.node_id, content: n.content, node_type: n.node_type, tags: n.tags, confidence: n.confidence, created: n.created };
}

const endpoint = z.object({ node_id: z.string(), content: z.string(), node_type: z.string() });
export const edgeSchema = z.object({ edge_id: z.string(), relation: z.string(), strength: z.number(), created: z.string(), from: endpoint, to: endpoint });

export function edgeOut(e: GraphEdge): z.infer<typeof edgeSchema> {
  return { edge_id: e.edge_id, relation: e.relation, strength: e.strength, created: e.created, from: e.from, to: e.to };
}

export const sessionSchema = z.object({
  id: z.string().describe('Session id (sess_<n>)'),
  status: z.enum(['open', 'closed']),
  started: z.string(),
  ended: z.string().nullable(),
  summary: z.string().nullable(),
  topics: z.array(z.string()),
  state_deltas: z.unknown(),
  quality: z.number().nullable().describe('0..80, set when the session closes'),
  quality_detail: z
    .object({ score: z.number(), depth: z.number(), decision: z.number(), linked_entries: z.number(), user_engagement: z.number() })
    .nullable()
    .describe('The four components of the quality score, 0..20 each'),
});

export function sessionOut(s: Session): z.infer<typeof sessionSchema> {
  return {
    id: s.id,
    status: s.status,
    started: s.started,
    ended: s.ended,
    summary: s.summary,
    topics: s.topics,
    state_deltas: s.state_deltas,
    quality: s.quality,
    quality_detail: s.quality_detail,
  };
}
