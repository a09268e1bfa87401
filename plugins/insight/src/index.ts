import { definePlugin } from '@memory-service/kernel';
import { useStores } from '@memory-service/stores';
import { memoryEpisodeGetTool } from './tools/memory-episode-get.js';
import { memoryEpisodeListTool } from './tools/memory-episode-list.js';
import { memoryEpisodeRecallTool } from './tools/memory-episode-recall.js';
import { memoryFactBlameTool } from './tools/memory-fact-blame.js';
import { memoryGraphEdgesTool } from './tools/memory-graph-edges.js';
import { memoryGraphNodesTool } from './tools/memory-graph-nodes.js';
import { memoryGraphQueryTool } from './tools/memory-graph-query.js';
import { memoryQueryTool } from './tools/memory-query.js';
import { memoryStatsTool } from './tools/memory-stats.js';
import { memorySessionListTool } from './tools/memory-session-list.js';

/**
 * The insight tier, its read-only tools so far: memory_episode_list, memory_episode_get,
 * memory_episode_recall, memory_session_list, memory_graph_nodes, memory_graph_edges, memory_graph_query,
 * memory_fact_blame, memory_query, memory_stats. Every tool reads only the caller's layer and user_id.
 */
export default definePlugin({
  name: '@memory-service/plugin-insight',
  version: '0.1.0',
  tier: 'insight',
  kernel: '^1.0.0',
  description: 'The insight tier: read-only views of episodes, sessions, the graph and core memory of a layer and user_id.',
  // Written by the build (scripts/tool-schemas.mjs) beside dist/bundle.js and dist/index.js.
  toolSchemas: new URL('./tool-schemas.json', import.meta.url),
  setup(ctx) {
    const stores = useStores(ctx);
    ctx.tools.register(memoryEpisodeListTool(stores));
    ctx.tools.register(memoryEpisodeGetTool(stores));
    ctx.tools.register(memoryEpisodeRecallTool(stores));
    ctx.tools.register(memorySessionListTool(stores));
    ctx.tools.register(memoryGraphNodesTool(stores));
    ctx.tools.register(memoryGraphEdgesTool(stores));
    ctx.tools.register(memoryGraphQueryTool(stores));
    ctx.tools.register(memoryFactBlameTool(stores));
    ctx.tools.register(memoryQueryTool(stores));
    ctx.tools.register(memoryStatsTool(stores));
  },
});
