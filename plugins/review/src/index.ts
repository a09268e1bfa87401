import { definePlugin } from '@memory-service/kernel';
import { useStores } from '@memory-service/stores';
import { dailyBriefTool } from './tools/daily-brief.js';
import { memoryWatchTool } from './tools/memory-watch.js';
import { tapWatchRules } from './watch-taps.js';

/**
 * The review tier, its tools so far: memory_watch and daily_brief (memory_proposals and
 * memory_report_card are not built yet and are not registered). The watch rules are evaluated in
 * taps registered here (think's message_received, the new_message and auto_save_candidate events,
 * memory_remember's importance_gate), so they work whether or not the tier's tools are exposed.
 */
export default definePlugin({
  name: '@memory-service/plugin-review',
  version: '0.1.0',
  tier: 'review',
  kernel: '^1.0.0',
  description: 'The review tier of the memory service.',
  setup(ctx) {
    const stores = useStores(ctx);
    ctx.tools.register(memoryWatchTool(stores));
    ctx.tools.register(dailyBriefTool(stores));
    tapWatchRules(ctx.name, ctx.hooks, stores);
  },
});
