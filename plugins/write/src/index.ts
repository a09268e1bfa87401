import { cutChars, definePlugin } from '@memory-service/kernel';
import { DISCLOSURE_MATCH_SCORE, useStores } from '@memory-service/stores';
import { memoryCounterfactualTool } from './tools/memory-counterfactual.js';
import { memoryEpisodeSaveTool } from './tools/memory-episode-save.js';
import { memoryGraphAddTool } from './tools/memory-graph-add.js';
import { memoryLoadRulesTool } from './tools/memory-load-rules.js';
import { memoryRememberTool } from './tools/memory-remember.js';
import { memorySaveTypedTool } from './tools/memory-save-typed.js';
import { memoryScratchpadTool } from './tools/memory-scratchpad.js';
import { memorySessionEndTool } from './tools/memory-session-end.js';
import { memorySessionStartTool } from './tools/memory-session-start.js';
import { memorySkillPromoteTool } from './tools/memory-skill-promote.js';
import { memoryBranchTool } from './tools/memory-branch.js';
import { memoryHistoryTool } from './tools/memory-history.js';
import { memoryProcedureTool } from './tools/memory-procedure.js';
import { memoryStashTool } from './tools/memory-stash.js';
import { memoryDiscloseTool } from './tools/memory-disclose.js';
import { memoryHealTool } from './tools/memory-heal.js';

/**
 * The write tier: memory_remember, memory_save_typed, memory_load_rules, memory_scratchpad,
 * memory_episode_save, memory_graph_add, memory_session_start, memory_session_end,
 * memory_skill_promote, memory_counterfactual. Every tool writes only the caller's layer and user_id.
 *
 * The write-gate rules (<data_dir>/rules.yaml, the stores' WriteGate) work whether or not the
 * tier's tools are exposed: the plugin taps importance_gate (memory_remember's importance gets the
 * rules' boost) and thought_stored (the episodes think wrote get the boost and the rules' tags).
 */
export default definePlugin({
  name: '@memory-service/plugin-write',
  version: '0.1.0',
  tier: 'write',
  kernel: '^1.0.0',
  description: 'The write tier of the memory service: remembered and typed facts, write-gate rules, scratchpad, episodes, graph, sessions, skills and counterfactuals.',
  // Written by the build (scripts/tool-schemas.mjs) beside dist/bundle.js and dist/index.js.
  toolSchemas: new URL('./tool-schemas.json', import.meta.url),
  setup(ctx) {
    const stores = useStores(ctx);
    ctx.tools.register(memoryRememberTool(stores, ctx.hooks));
    ctx.tools.register(memorySaveTypedTool(stores));
    ctx.tools.register(memoryLoadRulesTool(stores));
    ctx.tools.register(memoryScratchpadTool(stores));
    ctx.tools.register(memoryEpisodeSaveTool(stores));
    ctx.tools.register(memoryGraphAddTool(stores, ctx.hooks, ctx.logger));
    ctx.tools.register(memorySessionStartTool(stores));
    ctx.tools.register(memorySessionEndTool(stores, ctx.hooks, ctx.logger));
    ctx.tools.register(memorySkillPromoteTool(stores));
    ctx.tools.register(memoryCounterfactualTool(stores));
    ctx.tools.register(memoryHistoryTool(stores));
    ctx.tools.register(memoryBranchTool(stores));
    ctx.tools.register(memoryStashTool(stores));
    ctx.tools.register(memoryProcedureTool(stores));
    ctx.tools.register(memoryDiscloseTool(stores));
    ctx.tools.register(memoryHealTool(stores, ctx.storage));
    ctx.hooks.importance_gate.tap(ctx.name, (importance, fact) => importance + stores.writeGate.evaluate(fact.value).boost);
    ctx.hooks.thought_stored.tap(ctx.name, (message) => {
      const scope = { layer: message.layer, user_id: message.user_id };
      for (const ref of message.ids) if (ref.store === 'l3') stores.writeGate.applyToEpisode(scope, ref.id);
    });
    ctx.hooks.session_inject.tapPromise(ctx.name, async (blocks, c) => {
      const rules = stores.disclosure.matching({ layer: c.layer, user_id: c.user_id }, c.text);
      if (rules.length === 0) return blocks;
      const text = rules.map((r) => `- ${r.name} (${r.rule_id}): ${cutChars(r.content, 1000)}`).join('\n');
      // First: a rule the text triggered is what the caller asked to be shown.
      return [{ source: 'triggered', title: 'Triggered disclosures', text, score: DISCLOSURE_MATCH_SCORE }, ...blocks];
    });
  },
});
