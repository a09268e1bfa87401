import { defineTool, z } from '@memory-service/kernel';
import { REPLICA_COUNTED_TABLES, REPLICA_FILE, REPLICA_FRESH_SECONDS, type Stores } from '@memory-service/stores';
import { layerInput, scopeOf, scopeOutput, userIdInput } from '../common.js';

const counts = z.object(Object.fromEntries(REPLICA_COUNTED_TABLES.map((t) => [t, z.number()])) as Record<(typeof REPLICA_COUNTED_TABLES)[number], z.ZodNumber>);

export function memorySyncReplicaTool(stores: Stores) {
  return defineTool({
    name: 'memory_sync_replica',
    title: 'Sync the read-only replica',
    description:
      `Keep the read-only replica of the memory database, <data_dir>/${REPLICA_FILE}, for readers that must not load the live ` +
      'database (dashboards, metrics, reports). action sync (default) copies the whole live database with SQLite\'s online ' +
      'backup into a temp file and renames it into place (a reader sees the old copy or the new one, never half), and returns ' +
      'its size_bytes, synced_at, duration_ms, row counts per table (rows, all layers and user_ids) and the same counts for ' +
      'the layer and user_id given (scope_rows). action status reads nothing but the replica: whether it exists, its size, ' +
      `when it was synced, its age_seconds and whether it is fresh (synced at most ${REPLICA_FRESH_SECONDS} s ago). The live ` +
      'database is never changed. The dashboard of this version still reads the live database. An unknown action is an ' +
      'error naming action; a copy that fails leaves the previous replica in place and no temp file behind.',
    input: () => z.object({
      action: z.enum(['sync', 'status']).default('sync').describe('sync (copy the live database now) or status (the replica as it is)'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      ...scopeOutput,
      action: z.enum(['sync', 'status']),
      exists: z.boolean(),
      path: z.string().describe('The replica file, relative to the data dir'),
      size_bytes: z.number().nullable(),
      synced_at: z.string().nullable(),
      age_seconds: z.number().nullable(),
      fresh: z.boolean(),
      fresh_seconds: z.number().describe('The age up to which a replica is fresh'),
      duration_ms: z.number().optional().describe('sync: wall time the copy took'),
      rows: counts.optional().describe('sync: rows per table in the replica, all scopes'),
      scope_rows: counts.optional().describe('sync: rows per table in the replica for this layer and user_id'),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    // The online backup runs in steps on the event loop and must not hold the write lock.
    transaction: false,
    handler: async (args, call) => {
      const scope = scopeOf(args);
      if (args.action === 'status') return { ...scope, action: args.action, ...stores.replica.status() };
      // Queued bookkeeping (access counts, dream telemetry) is written first, so the copy holds it,
      // waiting for another process's write lock without blocking the server, within the call's budget (call).
      await stores.writeDeferredWhenFree(call);
      const done = await stores.replica.sync(scope);
      return { ...scope, action: args.action, ...stores.replica.status(), duration_ms: done.duration_ms, rows: done.rows, scope_rows: done.scope_rows };
    },
  });
}
