import { defineTool, z } from '@memory-service/kernel';
import type { MigrationHost, Stores } from '@memory-service/stores';
import { layerInput, READ_ONLY, userIdInput } from '../common.js';

const checkSchema = z.object({
  name: z.string().describe('database, data_dir, migrations, l1_files, proposals, breakers, nightly or sagas'),
  status: z.enum(['ok', 'warn', 'fail']),
  detail: z.string(),
});

export function memoryDiagnoseTool(stores: Stores, migrations: MigrationHost) {
  return defineTool({
    name: 'memory_diagnose',
    title: 'Diagnose the memory service',
    description:
      'Health checks of the whole service (its data dir, every layer and user_id; layer and user_id are accepted and do not narrow them). ' +
      'Returns checks, a list of {name, status ok|warn|fail, detail}: database (memory.db exists and PRAGMA quick_check is ok), ' +
      'data_dir (the data dir can be written now: a small probe file is created, written, synced and removed, memory.db untouched; fail ' +
      'names the dir, the step and the OS error code, e.g. EROFS on a read-only remount), ' +
      'migrations (every applied migration at the head, as GET /ready reports; fail lists the pending ones), l1_files (each L1 ring ' +
      'file is valid JSON; warn names the invalid ones), proposals (the pending-proposal backlog; warn at 100 pending or one older ' +
      'than 7 days), breakers (the circuit breakers of the background work: fail when one ' +
      'is open, warn when half-open), nightly (the last nightly run of consolidation, skill promotion, reflection and the plugins\' ' +
      'phases: its time and scopes, warn when a phase failed, the run was interrupted or a plugin\'s nightly_scopes listing failed or ' +
      'named scopes that were dropped; ok with "no nightly run yet" and when the next is due ' +
      'before the first), sagas (the saga journal of memory_saga: fail when a run is still unfinished past its ' +
      'timeout, i.e. the saga watchdog did not roll it back; warn when a run failed to roll back in the last 7 days; the detail ' +
      'counts runs by outcome and names the watchdog\'s last check). Also returns status, ok when every check is ok and degraded otherwise, and breakers (each ' +
      'breaker\'s state, failures in a row, opened_at, last_error). Problems are reported in the checks, never as an error. ' +
      'memory_heal repairs what they report. Read-only.',
    input: () => z.object({ layer: layerInput, user_id: userIdInput }),
    output: () => z.object({
      status: z.enum(['ok', 'degraded']),
      checks: z.array(checkSchema),
      breakers: z.array(
        z.object({
          name: z.string(),
          state: z.enum(['closed', 'open', 'half-open']),
          failures: z.number(),
          opened_at: z.string().nullable(),
          last_error: z.string().nullable(),
        }),
      ),
    }),
    annotations: READ_ONLY,
    handler: () => stores.health.diagnose(migrations),
  });
}
