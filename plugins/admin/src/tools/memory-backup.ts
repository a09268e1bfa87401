import { defineTool, z } from '@memory-service/kernel';
import { BACKUP_KINDS, validationError, type MigrationHost, type Stores } from '@memory-service/stores';
import { layerInput, userIdInput } from '../common.js';

const BACKUP_ACTIONS = ['status', 'now', 'list', 'restore'] as const;

/** The fields each action takes beyond action, layer and user_id (the kernel refuses any other the call gives, naming it). */
const BACKUP_FIELDS = { status: [], now: [], list: [], restore: ['name'] } as const satisfies Record<(typeof BACKUP_ACTIONS)[number], readonly string[]>;

const backupSchema = z.object({
  name: z.string(),
  kind: z.enum([...BACKUP_KINDS, 'other']),
  size_bytes: z.number(),
  created: z.string(),
  standing_files: z
    .object({ saved: z.number(), left_out: z.number() })
    .optional()
    .describe('now, and restore\'s safety_backup: standing query files the backup holds, and those left out (not regular files, over 1 MB, not UTF-8)'),
});

export function memoryBackupTool(stores: Stores, migrations: MigrationHost) {
  return defineTool({
    name: 'memory_backup',
    title: 'Back up and restore the database',
    description:
      'Online backups of the whole database (memory.db: every layer and user_id; layer and user_id are accepted and do not narrow ' +
      'it) into <data_dir>/backups/, named <kind>-<time>.db, each one file that also holds the saved standing queries (memory_standing, ' +
      'every layer and user_id). The database holds every wiki page\'s text, so restore also makes the page files under ' +
      '<data_dir>/wiki/ match the restored pages; other files of the data dir (rules.yaml, schemas, CONTEXT.md) are not included. ' +
      'action status: the scheduler (enabled, interval_hours, next_run, last_error; set by backup.interval_hours in config.yaml, ' +
      'off by default), last_backup, count and total_bytes. action now: takes a backup at once (kind manual) while the service ' +
      'keeps serving; returns it. action list: every backup, newest first (name, kind, size_bytes, created). action restore (name ' +
      'from list): checks the backup is a whole memory database, backs the current database up first (kind pre-restore, returned ' +
      'as safety_backup, so the restore can itself be undone), copies the backup into the live database and brings its schema to ' +
      'the current migrations; the service keeps running on the restored content, and the HTTP API keys stay as they were ' +
      '(credentials are not memory: a key revoked since the backup stays revoked). Then every restored page\'s file is written ' +
      'from its stored text and the page files of pages the backup does not have are removed (wiki_files: written, removed, and ' +
      'behind: files that could not be written, tried again later while reads take the stored text). The standing queries are made ' +
      'exactly those of the backup (standing_files: written, removed, kept_unchanged, left_alone, failed, renamed: an older name with _ or - ' +
      'is restored with those removed); a backup taken before ' +
      'backups held standing queries leaves them as they are (standing_files.restored false, with skipped_reason). A bad or unknown ' +
      'name, or a backup whose standing query entries are not standing query files, is an error naming name, and nothing is changed; ' +
      'a second backup or restore while one runs is a ConflictError.',
    input: () => z.object({
      action: z.enum(BACKUP_ACTIONS).describe('status, now, list or restore'),
      name: z.string().max(300).optional().describe('restore: the backup file name, as list returns it'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      action: z.enum(BACKUP_ACTIONS),
      scheduler: z
        .object({ enabled: z.boolean(), interval_hours: z.number(), next_run: z.string().nullable(), last_error: z.string().nullable() })
        .optional(),
      last_backup: backupSchema.nullable().optional(),
      count: z.number().optional(),
      total_bytes: z.number().optional(),
      backup: backupSchema.optional().describe('now: the backup taken'),
      backups: z.array(backupSchema).optional().describe('list: newest first'),
      restored: backupSchema.optional(),
      safety_backup: backupSchema.optional().describe('restore: the copy of the database as it was just before'),
      wiki_files: z
        .object({ written: z.number(), removed: z.number(), behind: z.number() })
        .optional()
        .describe('restore: page files written from the restored pages, page files of pages it does not have removed, files left behind to retry'),
      standing_files: z
        .object({
          restored: z.boolean().describe('false: the backup holds no standing queries (taken before backups held them); they were left as they are'),
          written: z.number().describe('standing query files written from the backup'),
          removed: z.number().describe('standing query files the backup does not hold, removed (the safety_backup holds them)'),
          kept_unchanged: z.number().describe('files that already held the backup\'s text'),
          left_alone: z.number().describe('.yaml entries of the standing folder no backup takes (not regular files, over 1 MB, not a query name): not touched'),
          failed: z.number().describe('files that could not be written or removed'),
          renamed: z
            .array(z.object({ folder: z.string(), from: z.string(), to: z.string() }))
            .describe('queries the backup holds under an older name with _ or - (names are letters and digits only now), restored under the new name'),
          skipped_reason: z.string().nullable().describe('why the standing queries were left as they are, when restored is false'),
        })
        .optional()
        .describe('restore: what was done to the standing query files'),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    actionFields: BACKUP_FIELDS,
    // The backup API runs outside any transaction, over several turns of the event loop. The bookkeeping
    // written first waits for another process's write lock without blocking the server, within the call's budget (call).
    transaction: false,
    handler: async (args, call) => {
      const b = stores.backups;
      if (args.action === 'status') return { action: 'status' as const, ...b.status() };
      if (args.action === 'list') return { action: 'list' as const, backups: b.list() };
      if (args.action === 'now') return { action: 'now' as const, backup: await b.create('manual', call) };
      if (args.name === undefined) throw validationError('name', 'name is required for action restore: a backup name from memory_backup list', 'a backup name from memory_backup list');
      const out = await b.restore(args.name, () => void migrations.remigrate(), call);
      return { action: 'restore' as const, ...out };
    },
  });
}
