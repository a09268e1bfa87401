import { definePlugin } from '@memory-service/kernel';
import { memoryCompressTool } from './tools/memory-compress.js';
import { memorySteeringTool } from './tools/memory-steering.js';

export { steer, STEERING_ROUTES, STEERING_MAX_HINTS } from './services/steering.js';
export { compress, compressLog, compressPython, isPython } from './services/compress.js';

/**
 * The context tier: memory_steering, memory_compress. memory_recall_protocol and memory_recap
 * need stores that do not exist yet (proposals, gaps, dream markers) and are not registered.
 */
export default definePlugin({
  name: '@memory-service/plugin-context',
  version: '0.1.0',
  tier: 'context',
  kernel: '^1.0.0',
  description: 'The context tier: tool steering, log and code compression, context summaries within a token budget.',
  // Written by the build (scripts/tool-schemas.mjs) beside dist/bundle.js and dist/index.js.
  toolSchemas: new URL('./tool-schemas.json', import.meta.url),
  setup(ctx) {
    ctx.tools.register(memorySteeringTool());
    ctx.tools.register(memoryCompressTool());
  },
});
