import { defineTool, z } from '@memory-service/kernel';
import { SAGA_NAMES, type Stores } from '@memory-service/stores';
import { layerInput, scopeOf, userIdInput } from '../common.js';

export function memorySagaTool(stores: Stores) {
  return defineTool({
    name: 'memory_saga',
    title: 'Run a compensation saga',
    description:
      'Runs a saga: a list of steps, each with a compensation; when a step fails, the steps already done are undone in reverse ' +
      'order and the rest are not run. saga consolidate (on the given layer and user_id): consolidate (episodes above importance ' +
      '0.7 become L4 facts, as memory_context_inject does; undone by deleting those facts), audit (an audit_log row; undone by a ' +
      'saga_compensated row), reindex (the search indexes take the new facts in). saga backup (the whole database, every layer and ' +
      'user_id): flush (pending writes), backup (a saga-<time>.db file in <data_dir>/backups/; undone by removing it), verify (the ' +
      'file is a whole database), audit. Returns saga, status (completed, rolled_back, or rollback_failed when a compensation failed ' +
      'too), error (the failing step\'s message, null when completed) and steps: each step\'s status (done, failed, compensated, ' +
      'compensation_failed, not_run), detail (what it did and what its compensation undid) and error.',
    input: () => z.object({
      saga: z.enum(SAGA_NAMES).describe('consolidate or backup'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      saga: z.string(),
      status: z.enum(['completed', 'rolled_back', 'rollback_failed']),
      error: z.string().nullable(),
      steps: z.array(
        z.object({
          step: z.string(),
          status: z.enum(['done', 'failed', 'compensated', 'compensation_failed', 'not_run']),
          detail: z.unknown(),
          error: z.string().nullable(),
        }),
      ),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    // Each step commits on its own (a compensation undoes it): no transaction around the whole saga.
    transaction: false,
    handler: (args) => stores.sagas.run(args.saga, scopeOf(args)),
  });
}
