import { definePlugin } from '@memory-service/kernel';
import { useStores } from '@memory-service/stores';
import { memoryCounterfactualTool } from './tools/memory-counterfactual.js';
import { memoryEpisodeSaveTool } from './tools/memory-episode-save.js';
import { memoryGraphAddTool } from './tools/memory-graph-add.js';
import { memoryScratchpadTool } from './tools/memory-scratchpad.js';
import { memorySessionEndTool } from './tools/memory-session-end.js';
import { memorySessionStartTool } from './tools/memory-session-start.js';
import { memorySkillPromoteTool } from './tools/memory-skill-promote.js';

/**
 * The write tier, its tools so far: memory_scratchpad, memory_episode_save, memory_graph_add,
 * memory_session_start, memory_session_end, memory_skill_promote, memory_counterfactual. Every
 * tool writes only the caller's layer and user_id. The tier's other tools are not built yet and
 * are not registered.
 */
export default definePlugin({
  name: '@memory-service/plugin-write',
  version: '0.1.0',
  tier: 'write',
  kernel: '^1.0.0',
  description: 'The write tier of the memory service: scratchpad, episodes, graph, sessions, skills and counterfactuals.',
  setup(ctx) {
    const stores = useStores(ctx);
    ctx.tools.register(memoryScratchpadTool(stores));
    ctx.tools.register(memoryEpisodeSaveTool(stores));
    ctx.tools.register(memoryGraphAddTool(stores, ctx.hooks, ctx.logger));
    ctx.tools.register(memorySessionStartTool(stores));
    ctx.tools.register(memorySessionEndTool(stores, ctx.hooks, ctx.logger));
    ctx.tools.register(memorySkillPromoteTool(stores));
    ctx.tools.register(memoryCounterfactualTool(stores));
  },
});
