import { definePlugin } from '@memory-service/kernel';
import { useStores } from '@memory-service/stores';
import { memoryDiagnoseTool } from './tools/memory-diagnose.js';
import { memoryEpisodeGetTool } from './tools/memory-episode-get.js';
import { memoryEpisodeListTool } from './tools/memory-episode-list.js';
import { memoryEpisodeRecallTool } from './tools/memory-episode-recall.js';
import { memoryFactBlameTool } from './tools/memory-fact-blame.js';
import { memoryGraphEdgesTool } from './tools/memory-graph-edges.js';
import { memoryGraphNodesTool } from './tools/memory-graph-nodes.js';
import { memoryGraphQueryTool } from './tools/memory-graph-query.js';
import { memoryQualityTool } from './tools/memory-quality.js';
import { memoryQueryTool } from './tools/memory-query.js';
import { memoryRecallTool } from './tools/memory-recall.js';
import { memoryReflectTool } from './tools/memory-reflect.js';
import { memorySearchTool } from './tools/memory-search.js';
import { memoryStandingTool } from './tools/memory-standing.js';
import { memoryStatsTool } from './tools/memory-stats.js';
import { memorySessionListTool } from './tools/memory-session-list.js';

/**
 * The insight tier, its tools so far: the reads memory_episode_list, memory_episode_get,
 * memory_episode_recall, memory_session_list, memory_graph_nodes, memory_graph_edges, memory_graph_query,
 * memory_fact_blame, memory_query, memory_stats, memory_search and memory_recall (cached); memory_quality
 * (feedback on facts and its report), memory_reflect (deterministic reflections, stored) and
 * memory_standing (saved memory_query filters; registered once in the insight and write tiers: list
 * and run are insight actions, save and delete write actions). Every tool reads and writes only the
 * caller's layer and user_id.
 */
export default definePlugin({
  name: '@memory-service/plugin-insight',
  version: '0.1.0',
  tier: 'insight',
  kernel: '^1.0.0',
  description: 'The insight tier: views of episodes, sessions, the graph and core memory of a layer and user_id, search and cached recall, feedback on facts, reflections and standing queries.',
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
    ctx.tools.register(memorySearchTool(stores));
    ctx.tools.register(memoryRecallTool(stores));
    ctx.tools.register(memoryQualityTool(stores));
    ctx.tools.register(memoryReflectTool(stores));
    ctx.tools.register(memoryStandingTool(stores));
    ctx.tools.register(memoryDiagnoseTool(stores, ctx.storage));
  },
});
