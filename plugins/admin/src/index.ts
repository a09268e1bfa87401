import { definePlugin } from '@memory-service/kernel';
import { useStores } from '@memory-service/stores';
import { memoryCleanupTool } from './tools/memory-cleanup.js';
import { memoryDataTool } from './tools/memory-data.js';
import { memoryLucidityPurgeTool } from './tools/memory-lucidity-purge.js';
import { memorySyncReplicaTool } from './tools/memory-sync-replica.js';
import { memoryApiKeyTool } from './tools/memory-api-key.js';
import { memoryBackupTool } from './tools/memory-backup.js';
import { memorySagaTool } from './tools/memory-saga.js';

/**
 * The admin tier, its tools so far: memory_cleanup (dedup, episode merging, trims, backups pruning
 * and compaction; dry run by default), memory_data (a user's export and import), memory_lucidity_purge
 * (emergency purge of the last hours, confirm required) and memory_sync_replica (the read-only copy
 * of the database), memory_api_key (HTTP API keys), memory_backup (online backups, restore, the
 * scheduler) and memory_saga (compensation sagas, journaled, and the list of their runs: what the
 * stores' saga watchdog rolled back after a crash or a timeout).
 */
export default definePlugin({
  name: '@memory-service/plugin-admin',
  version: '0.1.0',
  tier: 'admin',
  kernel: '^1.0.0',
  description: 'The admin tier of the memory service: housekeeping, export and import, emergency purge and the read-only replica.',
  // Written by the build (scripts/tool-schemas.mjs) beside dist/bundle.js and dist/index.js.
  toolSchemas: new URL('./tool-schemas.json', import.meta.url),
  setup(ctx) {
    const stores = useStores(ctx);
    ctx.tools.register(memoryCleanupTool(stores));
    ctx.tools.register(memoryDataTool(stores));
    ctx.tools.register(memoryLucidityPurgeTool(stores));
    ctx.tools.register(memorySyncReplicaTool(stores));
    ctx.tools.register(memoryApiKeyTool(stores));
    ctx.tools.register(memoryBackupTool(stores, ctx.storage));
    ctx.tools.register(memorySagaTool(stores));
  },
});
