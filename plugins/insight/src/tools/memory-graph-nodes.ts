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
      'confidence and created time, with count and next_offset (null when there are no more).',
    input: () => z.object({
      node_type: nodeTypeInput,
      limit: limitInput(50, 200),
      offset: offsetInput,
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({ nodes: z.array(nodeSchema), ...pagingOutput }),
    annotations: READ_ONLY,
    handler: (args) => {
      const rows = stores.graph.nodes(scopeOf(args), { node_type: args.node_type, limit: args.limit + 1, offset: args.offset });
      const p = page(rows, args.limit, args.offset);
      return { nodes: p.items.map(nodeOut), count: p.count, offset: p.offset, next_offset: p.next_offset };
    },
  });
}
