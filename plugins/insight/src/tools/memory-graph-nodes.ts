import { defineTool, z } from '@memory-service/kernel';
import type { Stores } from '@memory-service/stores';
import { layerInput, limitInput, offsetInput, page, pagingOutput, READ_ONLY, scopeOf, userIdInput } from '../common.js';
import { nodeOut, nodeSchema, nodeTypeInput } from '../graph-common.js';

export function memoryGraphNodesTool(stores: Stores) {
  return defineTool({
    name: 'memory_graph_nodes',
    title: 'List graph nodes',
    description:
      'List the knowledge-graph nodes of the layer and user_id, highest confidence first (ties: newest first), optionally only one ' +
      'node_type, a page at a time (limit, offset). Returns each node\'s node_id (for memory_graph_edges), content, node_type, tags, ' +
      'confidence and created time, with count (on this page), total (all nodes of the type, or of the scope) and next_offset (null when there are no more).',
    input: () => z.object({
      node_type: nodeTypeInput,
      limit: limitInput(50, 200),
      offset: offsetInput,
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({ nodes: z.array(nodeSchema), ...pagingOutput, total: z.number().describe('Nodes of the type (or of the scope) in all pages') }),
    annotations: READ_ONLY,
    handler: (args) => {
      const scope = scopeOf(args);
      const filter = { node_type: args.node_type };
      const p = page(stores.graph.query(scope, { ...filter, limit: args.limit + 1, offset: args.offset }), args.limit, args.offset);
      return { nodes: p.items.map(nodeOut), count: p.count, offset: p.offset, next_offset: p.next_offset, total: stores.graph.countQuery(scope, filter) };
    },
  });
}
