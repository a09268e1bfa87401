import { definePlugin } from '@memory-service/kernel';
import { useStores } from '@memory-service/stores';
import { memoryCompressTool } from './tools/memory-compress.js';
import { memoryContextInjectTool } from './tools/memory-context-inject.js';
import { memoryContextTool } from './tools/memory-context.js';
import { memoryGetSmartContextTool } from './tools/memory-get-smart-context.js';
import { memoryRecallProtocolTool } from './tools/memory-recall-protocol.js';
import { memoryRecapTool } from './tools/memory-recap.js';
import { memorySteeringTool } from './tools/memory-steering.js';

export { steer, STEERING_ROUTES, STEERING_MAX_HINTS } from './services/steering.js';
export { compress, compressLog, compressPython, isPython } from './services/compress.js';
export { Consolidator } from '@memory-service/stores';
export { allocate, SMART_SOURCES, SMART_WEIGHTS, SmartContextBuilder } from './services/smart-context.js';

/**
 * The context tier: memory_recall_protocol, memory_recap, memory_get_smart_context, memory_context,
 * memory_context_inject, memory_steering, memory_compress. memory_recall_protocol is listed here
 * although the spec's rule 6 also calls it operator-tier (docs/decisions.md).
 */
export default definePlugin({
  name: '@memory-service/plugin-context',
  version: '0.1.0',
  tier: 'context',
  kernel: '^1.0.0',
  description: 'The context tier: context summaries and snapshots within a token budget, tool steering, log and code compression.',
  // Written by the build (scripts/tool-schemas.mjs) beside dist/bundle.js and dist/index.js.
  toolSchemas: new URL('./tool-schemas.json', import.meta.url),
  setup(ctx) {
    const stores = useStores(ctx);
    ctx.tools.register(memoryRecallProtocolTool(stores));
    ctx.tools.register(memoryRecapTool(stores, ctx.clock));
    ctx.tools.register(memoryGetSmartContextTool(stores, ctx.clock));
    ctx.tools.register(memoryContextTool(stores));
    ctx.tools.register(memoryContextInjectTool(stores, ctx.clock, (...segments) => ctx.resolvePath(...segments), ctx.logger));
    ctx.tools.register(memorySteeringTool());
    ctx.tools.register(memoryCompressTool());
  },
});
