import { definePlugin } from '@memory-service/kernel';

/**
 * The wiki tier. Its tools are not built yet, so it registers none: the tier is a valid
 * MEMORY_EXPOSE token and lists no tools until they exist.
 */
export default definePlugin({
  name: '@memory-service/plugin-wiki',
  version: '0.1.0',
  tier: 'wiki',
  kernel: '^1.0.0',
  description: 'The wiki tier of the memory service.',
  setup() {},
});
