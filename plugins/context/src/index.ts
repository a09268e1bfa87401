import { definePlugin } from '@memory-service/kernel';

/**
 * The context tier. Its tools are not built yet, so it registers none: the tier is a valid
 * MEMORY_EXPOSE token and lists no tools until they exist.
 */
export default definePlugin({
  name: '@memory-service/plugin-context',
  version: '0.1.0',
  tier: 'context',
  kernel: '^1.0.0',
  description: 'The context tier of the memory service.',
  setup() {},
});
