import { defineTool, z } from '@memory-service/kernel';
import { validationError, type Stores } from '@memory-service/stores';
import { layerInput, limitInput, offsetInput, page, pagingOutput, READ_ONLY, scopeOf, tagFilterInput, tagList, userIdInput } from '../common.js';
import { nodeOut, nodeSchema, nodeTypeInput } from '../graph-common.js';

export function memoryGraphQueryTool(stores: Stores) {
  return defineTool({
    name: 'memory_graph_query',
    title: 'Query graph nodes by tag or type',
    description:
      'Find the knowledge-graph nodes of the layer and user_id by tag, by node_type, or both (at least one is required). Tags are ' +
      'faceted ("dimension:value"; a plain tag is its own dimension): tags of one dimension match any of them, different dimensions ' +
      'all of them. Highest confidence first, a page at a time (limit, offset). Returns the nodes (node_id, content, node_type, tags, ' +
      'confidence, created), count (on this page), total (all matching nodes) and next_offset. Use memory_graph_edges for the relations of a node.',
    input: () => z.object({
      tag: tagFilterInput,
      node_type: nodeTypeInput,
      limit: limitInput(50, 200),
      offset: offsetInput,
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({ nodes: z.array(nodeSchema), ...pagingOutput, total: z.number().describe('Matching nodes in all pages') }),
    annotations: READ_ONLY,
    handler: (args) => {
      const tag = tagList(args.tag) ?? [];
      if (tag.length === 0 && args.node_type === undefined) {
        throw validationError('tag', 'give tag (one or more tags) or node_type, or both; use memory_graph_nodes to list every node', 'tag or node_type');
      }
      const scope = scopeOf(args);
      const filter = { tag, node_type: args.node_type };
      const p = page(stores.graph.query(scope, { ...filter, limit: args.limit + 1, offset: args.offset }), args.limit, args.offset);
      return { nodes: p.items.map(nodeOut), count: p.count, offset: p.offset, next_offset: p.next_offset, total: stores.graph.countQuery(scope, filter) };
    },
  });
}
