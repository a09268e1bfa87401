import { defineTool, z } from '@memory-service/kernel';
import { SAGA_LIST_MAX, SAGA_NAMES, SAGA_RUN_STATUSES, validationError, type Stores } from '@memory-service/stores';
import { layerInput, scopeOf, userIdInput } from '../common.js';

const SAGA_ACTIONS = ['run', 'list'] as const;

/** The fields each action takes beyond action, layer and user_id (the kernel refuses any other the call gives, naming it). */
const SAGA_FIELDS = { run: ['saga'], list: ['saga', 'status', 'run_id', 'limit'] } as const satisfies Record<(typeof SAGA_ACTIONS)[number], readonly string[]>;
const STEP_STATUSES = ['done', 'failed', 'compensated', 'compensation_failed', 'not_run'] as const;

const stepSchema = z.object({
  step: z.string(),
  status: z.enum(STEP_STATUSES),
  detail: z.unknown(),
  error: z.string().nullable(),
});

const runSchema = z.object({
  run_id: z.string(),
  saga: z.string(),
  layer: z.enum(['user', 'agent']).nullable().describe('null for backup, which is service-wide'),
  user_id: z.string().nullable(),
  status: z.enum(SAGA_RUN_STATUSES),
  started: z.string(),
  updated: z.string(),
  error: z.string().nullable(),
  compensated_by: z.enum(['saga', 'watchdog']).nullable(),
  steps: z.array(stepSchema),
});

export function memorySagaTool(stores: Stores) {
  return defineTool({
    name: 'memory_saga',
    title: 'Run a compensation saga, or list saga runs',
    description:
      'action run (the default; `saga` alone runs one): runs a saga, a list of steps, each with a compensation; when a step fails, ' +
      'the steps already done are undone in reverse order and the rest are not run. Every run is journaled (one row, and each ' +
      'step written before the next starts), so a watchdog rolls back a run whose process died midway, or one that ran past ' +
      'saga.timeout_seconds (config.yaml, default 300: its later steps are not started). saga consolidate (on the given layer ' +
      'and user_id): consolidate (episodes above importance 0.7 become L4 facts, as memory_context_inject does; undone by ' +
      'deleting those facts), audit (an audit_log row; undone by a saga_compensated row), reindex (the search indexes take the ' +
      'new facts in). saga backup (the whole database, every layer and user_id): flush (pending writes), backup (a ' +
      'saga-<time>.db file in <data_dir>/backups/; undone by removing it), verify (the file is a whole database), audit. ' +
      'Returns run_id (the journal id), saga, status (completed, rolled_back, or rollback_failed when a compensation failed ' +
      "too), error (the failing step's message, null when completed) and steps: each step's status (done, failed, compensated, " +
      'compensation_failed, not_run), detail (what it did and what its compensation undid) and error. ' +
      `action list: the journaled runs of this layer and user_id plus the service-wide backup runs, newest first (limit, default 20, at most ${SAGA_LIST_MAX}), ` +
      'optionally of one saga, one status (running, compensating, completed, rolled_back, rollback_failed) or one run_id; each with its ' +
      'steps, error and compensated_by (saga: a step failed; watchdog: its process stopped or it timed out). An unknown saga, ' +
      'status or action, or a run_id of no run of this scope, is an error naming that field.',
    input: () => z.object({
      action: z.enum(SAGA_ACTIONS).default('run').describe('run (default) or list'),
      saga: z.enum(SAGA_NAMES).optional().describe('run: consolidate or backup (required); list: only runs of this saga'),
      status: z.enum(SAGA_RUN_STATUSES).optional().describe('list: only runs in this state'),
      run_id: z.string().min(1).max(200).optional().describe('list: only this run (its run_id from run)'),
      limit: z.number().int().min(1).max(SAGA_LIST_MAX).default(20).describe(`list: at most this many runs (1..${SAGA_LIST_MAX})`),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      action: z.enum(SAGA_ACTIONS),
      run_id: z.string().optional(),
      saga: z.string().optional(),
      status: z.enum(['completed', 'rolled_back', 'rollback_failed']).optional(),
      error: z.string().nullable().optional(),
      steps: z.array(stepSchema).optional(),
      runs: z.array(runSchema).optional().describe('list: newest first'),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    actionFields: SAGA_FIELDS,
    // Each step commits on its own (a compensation undoes it): no transaction around the whole saga. Its
    // writes wait for another process's lock without blocking the server, the run's start within the call's budget (call).
    transaction: false,
    handler: async (args, call) => {
      const scope = scopeOf(args);
      if (args.action === 'list') {
        return { action: 'list' as const, runs: stores.sagas.runs(scope, { saga: args.saga, status: args.status, runId: args.run_id, limit: args.limit }) };
      }
      if (args.saga === undefined) throw validationError('saga', 'saga is required to run one: consolidate or backup', SAGA_NAMES);
      return { action: 'run' as const, ...(await stores.sagas.run(args.saga, scope, call)) };
    },
  });
}
