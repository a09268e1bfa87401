import { definePlugin } from '@memory-service/kernel';

/**
 * The write tier. Its tools are not built yet, so it registers none: the tier is a valid
 * MEMORY_EXPOSE token and lists no tools until they exist.
 */
export default definePlugin({
  name: '@memory-service/plugin-write',
  version: '0.1.0',
  tier: 'write',
  kernel: '^1.0.0',
  description: 'The write tier of the memory service.',
  setup() {},
});
