import { defineTool, z } from '@memory-service/kernel';
import {
  AUDIT_RETENTION_DAYS_DEFAULT,
  AUDIT_RETENTION_DAYS_MAX,
  BACKUPS_KEEP_DEFAULT,
  BACKUPS_KEEP_MAX,
  CLEANUP_LIST_MAX,
  CLEANUP_TASKS,
  type Stores,
} from '@memory-service/stores';
import { layerInput, scopeOf, scopeOutput, userIdInput } from '../common.js';

const list = z.array(z.string()).describe(`At most ${CLEANUP_LIST_MAX} names; the count is whole`);

export function memoryCleanupTool(stores: Stores) {
  return defineTool({
    name: 'memory_cleanup',
    title: 'Clean up memory',
    description:
      'Housekeeping of a layer and user_id, dry run by default: with dry_run true (the default) it reports what each task ' +
      'would remove and changes nothing; pass dry_run false to apply. tasks (default all) picks some of: ' +
      'dedup_core (L4 facts holding the same value: the most important, then the latest updated, stays; the others are archived ' +
      'in the Shadow Bin and deleted, with the graph nodes made from them that no remaining fact or episode names: removed_nodes), compress_episodes (L3 episodes whose summaries are the same ignoring case, accents, ' +
      'punctuation and spacing are merged: the most important, then the newest, stays and takes in their tags; the others are ' +
      'archived and deleted), dream_buffer (recorded dream queries beyond the kept number per scope), audit (the scope\'s audit_log rows older ' +
      `than audit_retention_days, default ${AUDIT_RETENTION_DAYS_DEFAULT}), backups (files of <data_dir>/backups beyond the ` +
      `newest backups_keep, default ${BACKUPS_KEEP_DEFAULT}, for the whole data dir; also the saga journal's finished runs, ` +
      'completed or rolled_back, older than audit_retention_days: saga_rows_removed, and the audit_log rows of no scope, written by project and ' +
      'the nightly run, older than audit_retention_days: scopeless_audit_removed), compaction (for the whole database: clears the texts of deleted records the retrieval change log still holds, ' +
      'rebuilds worn retrieval indexes and gives free pages back with VACUUM). Returns per-task counts with the keys, ids or ' +
      'file names removed (or that would be). An unknown task, an empty tasks list or an option out of range is an error ' +
      'naming that field, and nothing is done.',
    input: () => z.object({
      dry_run: z.boolean().default(true).describe('true (default): report only, change nothing; false: apply'),
      tasks: z.array(z.enum(CLEANUP_TASKS)).min(1).max(CLEANUP_TASKS.length).optional().describe('The tasks to run; default all'),
      audit_retention_days: z.number().int().min(1).max(AUDIT_RETENTION_DAYS_MAX).default(AUDIT_RETENTION_DAYS_DEFAULT).describe('audit task: keep this many days of audit_log rows'),
      backups_keep: z.number().int().min(1).max(BACKUPS_KEEP_MAX).default(BACKUPS_KEEP_DEFAULT).describe('backups task: keep this many newest files'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      ...scopeOutput,
      dry_run: z.boolean(),
      tasks: z.array(z.enum(CLEANUP_TASKS)),
      dedup_core: z
        .object({
          groups: z.number(),
          removed: z.number(),
          removed_nodes: z.number().describe('Graph nodes made from the removed facts (derived_nodes) that no remaining fact or episode names, removed with them'),
          archived: z.number().describe('Facts and graph nodes archived in the Shadow Bin'),
          removed_keys: list,
        })
        .optional(),
      compress_episodes: z.object({ groups: z.number(), removed: z.number(), archived: z.number(), retagged: z.number(), removed_ids: list }).optional(),
      dream_buffer: z.object({ rows: z.number(), keep: z.number(), removed: z.number() }).optional(),
      audit: z.object({ retention_days: z.number(), cutoff: z.string(), removed: z.number() }).optional(),
      backups: z
        .object({
          dir_exists: z.boolean(),
          files: z.number(),
          keep: z.number(),
          removed: z.number(),
          removed_files: list,
          saga_table: z.boolean(),
          saga_rows_removed: z.number(),
          scopeless_audit_removed: z.number().describe('audit_log rows of no scope (project, nightly runs) older than audit_retention_days'),
        })
        .optional(),
      compaction: z
        .object({
          old_texts: z.number(),
          freelist_pages_before: z.number(),
          freelist_pages_after: z.number(),
          vacuum: z.enum(['vacuum', 'incremental', 'none', 'busy']),
          indexes_refreshed: z.boolean(),
        })
        .optional(),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    // VACUUM cannot run in a transaction: the scope tasks group their writes in one themselves, and
    // each write waits for another process's lock without blocking the server, within the call's budget (call).
    transaction: false,
    handler: async (args, call) => {
      const scope = scopeOf(args);
      const result = await stores.cleanup.run(scope, { dryRun: args.dry_run, tasks: args.tasks, auditRetentionDays: args.audit_retention_days, backupsKeep: args.backups_keep }, call);
      return { ...scope, ...result };
    },
  });
}
