import { defineTool, MemoryError, shownValue, z } from '@memory-service/kernel';
import { HEAL_ACTIONS, type HealAction, type MigrationHost, type Stores } from '@memory-service/stores';
import { layerInput, userIdInput } from '../common.js';

export function memoryHealTool(stores: Stores, migrations: MigrationHost) {
  return defineTool({
    name: 'memory_heal',
    title: 'Repair the memory service',
    description:
      'Repairs what memory_diagnose reports, over the whole service (its data dir, every layer and user_id; layer and user_id are ' +
      `accepted and do not narrow it). action, one of ${HEAL_ACTIONS.join(', ')}; omitted runs all three in that order. ` +
      'remigrate re-applies pending database migrations (idempotent: nothing happens at the head). reset_breakers closes every open ' +
      'or half-open circuit breaker of the background work, so it runs again at once. purge_invalid_l1 removes each L1 ring file ' +
      'that is not a valid ring, after copying it to backups/l1-invalid/<time>/ in the data dir, and rewrites it from the stored ring. ' +
      'Returns results: per action run, its detail and what it changed (applied migrations per owner, the breakers reset, the files ' +
      'removed and their copies). An unknown action is a ValueError naming action.',
    input: () => z.object({
      action: z.string().max(100).optional().describe(`One of ${HEAL_ACTIONS.join(', ')}; omitted: all three`),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      results: z.array(
        z.object({
          action: z.enum(HEAL_ACTIONS),
          detail: z.string(),
          applied: z.record(z.string(), z.array(z.number())).optional(),
          reset: z.array(z.string()).optional(),
          removed: z.array(z.string()).optional(),
          backed_up: z.array(z.string()).optional(),
        }),
      ),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    // Each migration runs in its own transaction, and the L1 files are files: no transaction around the call.
    // remigrate waits for another process's lock without blocking the server, within the call's budget (call).
    transaction: false,
    handler: async (args, call) => {
      let actions: readonly HealAction[] = HEAL_ACTIONS;
      if (args.action !== undefined) {
        const action = args.action.trim();
        if (!(HEAL_ACTIONS as readonly string[]).includes(action)) {
          throw new MemoryError('KERNEL_ERR_VALUE', `Unknown memory_heal action ${shownValue(args.action)}; known actions: ${HEAL_ACTIONS.join(', ')}`, {
            field: 'action',
            accepted: HEAL_ACTIONS,
          });
        }
        actions = [action as HealAction];
      }
      return { results: await stores.health.heal(actions, migrations, call) };
    },
  });
}
