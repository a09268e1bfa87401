import { defineTool, z } from '@memory-service/kernel';
import { NODE_PREFIX, notFound, validationError, type Stores } from '@memory-service/stores';
import { checkId, layerInput, limitInput, READ_ONLY, scopeOf, userIdInput } from '../common.js';
import { edgeOut, edgeSchema, nodeOut, nodeSchema } from '../graph-common.js';

export function memoryGraphEdgesTool(stores: Stores) {
  return defineTool({
    name: 'memory_graph_edges',
    title: 'List graph edges',
    description:
      'List knowledge-graph edges of the layer and user_id with both endpoint nodes\' contents: with node_id, the edges of that node (oldest first) in ' +
      'a direction, out (default: from the node), in (to it) or both; without node_id, the newest edges of the scope. Each edge has its ' +
      'relation (knows, works_with, family_of, friend_of, met, mentions, relates_to, or causal led_to, caused, blocked), strength and ' +
      'from/to nodes. A malformed or unknown node_id is an error naming node_id. Returns the node (with node_id), the edges and count.',
    input: () => z.object({
      node_id: z.string().min(1).max(100).optional().describe('Node id (node_<n>) from memory_graph_nodes or memory_graph_query'),
      direction: z.enum(['out', 'in', 'both']).optional().describe('With node_id: out (default), in or both'),
      limit: limitInput(100, 200),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({ node: nodeSchema.nullable().describe('The node asked for; null without node_id'), edges: z.array(edgeSchema), count: z.number() }),
    annotations: READ_ONLY,
    handler: (args) => {
      const scope = scopeOf(args);
      if (args.node_id === undefined) {
        if (args.direction !== undefined) throw validationError('direction', 'direction applies only with node_id (the node whose edges to list)', 'node_id with out, in or both');
        const edges = stores.graph.edges(scope, { limit: args.limit }).map(edgeOut);
        return { node: null, edges, count: edges.length };
      }
      checkId(args.node_id, NODE_PREFIX, 'node_id');
      const node = stores.graph.getNode(scope, args.node_id.trim());
      if (!node) throw notFound(`graph node of layer ${args.layer}, user_id ${JSON.stringify(args.user_id)}`, args.node_id.trim(), 'node_id');
      const edges = stores.graph.edges(scope, { node_id: node.node_id, direction: args.direction ?? 'out', limit: args.limit }).map(edgeOut);
      return { node: nodeOut(node), edges, count: edges.length };
    },
  });
}
