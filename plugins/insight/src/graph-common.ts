import { z } from '@memory-service/kernel';
import type { GraphEdge, GraphNode } from '@memory-service/stores';

export const nodeSchema = z.object({
  node_id: z.string().describe('Node id (node_<n>)'),
  content: z.string(),
  node_type: z.string(),
  tags: z.array(z.string()),
  confidence: z.number(),
  created: z.string(),
});

/** The shown fields of a node (its layer and user_id are the caller's own). */
export function nodeOut(n: GraphNode): z.infer<typeof nodeSchema> {
  return { node_id: n.node_id, content: n.content, node_type: n.node_type, tags: n.tags, confidence: n.confidence, created: n.created };
}

const endpoint = z.object({ node_id: z.string(), content: z.string(), node_type: z.string() });
export const edgeSchema = z.object({
  edge_id: z.string(),
  relation: z.string(),
  strength: z.number().describe('Causal weight 0 to 1'),
  created: z.string(),
  from: endpoint,
  to: endpoint,
});

export function edgeOut(e: GraphEdge): z.infer<typeof edgeSchema> {
  return { edge_id: e.edge_id, relation: e.relation, strength: e.strength, created: e.created, from: e.from, to: e.to };
}

export const nodeTypeInput = z.string().trim().min(1).max(100).optional().describe('Only nodes of this type (e.g. person, decision, error), ignoring case and NFC/NFD');
