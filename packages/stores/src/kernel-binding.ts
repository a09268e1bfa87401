import { asValue, TEXT_LIMIT_DEFAULT, TEXT_LIMIT_KEY, type Logger, type PluginContext, type Storage } from '@memory-service/kernel';
import path from 'node:path';
import { setAsideEarlierFiles } from './earlier-files.js';
import { storesMigrations } from './migrations/index.js';
import { BACKUP_DIR } from './ops/backups.js';
import { NIGHTLY_INTERVAL_HOURS_DEFAULT } from './nightly.js';
import { SAGA_WATCHDOG_INTERVAL_SECONDS_DEFAULT } from './ops/saga-watchdog.js';
import { SAGA_TIMEOUT_SECONDS_DEFAULT } from './ops/sagas.js';
import { Stores } from './stores.js';
import { DEFAULT_STORES_CONFIG } from './types.js';

export const STORES_OWNER = '@memory-service/stores';

/** Hours between scheduled backups unless backup.interval_hours says otherwise: 0, the scheduler is off. */
export const BACKUP_INTERVAL_HOURS_DEFAULT = 0;

/** Delay after ready before the retrieval indexes are built in the background. */
export const RETRIEVAL_WARM_DELAY_MS = 250;

/**
 * The one Stores instance of a kernel: the first plugin that asks applies the stores'
 * migrations and registers it in the container; every other plugin gets the same instance.
 * This is how a plugin, first-party or not, reads and writes the memory (call it in `setup`;
 * README "Write a plugin"). Its writes join the tool call's transaction when made synchronously.
 */
export function useStores(ctx: PluginContext): Stores {
  if (ctx.container.hasRegistration('stores')) return ctx.container.resolve<Stores>('stores');
  // The kernel's logger, not the asking plugin's (ctx.logger begins each line with its name): the
  // stores are shared, and their lines are no one plugin's.
  const logger = ctx.container.resolve<Logger>('logger');
  // The kernel's own storage, not the asking plugin's view (ctx.storage), which runs migrations
  // only under that plugin's name and tier: the stores' migrations are the core schema's.
  const storage = ctx.container.resolve<Storage>('storage');
  // A database made anew beside files of an earlier one (memory.db lost, emptied or moved away):
  // those files are set aside before anything here could rewrite them from the empty tables.
  if (storage.fresh) {
    const aside = setAsideEarlierFiles(ctx.dataDir, ctx.clock.now());
    if (aside) {
      logger.warn(
        `${storage.file} was made anew, but the data dir held files written from an earlier database (${aside.moved.join(', ')}): ` +
          `moved to ${aside.to}, nothing deleted. If the database was lost or emptied by mistake, stop the server and copy a backup from ` +
          `${path.join(ctx.dataDir, BACKUP_DIR)} to ${storage.file} (its -wal and -shm files removed).`,
      );
    }
  }
  storage.migrate(STORES_OWNER, storesMigrations);
  const stores = new Stores({
    db: ctx.db,
    dataDir: ctx.dataDir,
    clock: ctx.clock,
    logger,
    afterCommit: () => storage.checkpointSoon(),
    transactions: storage,
    config: {
      l1Size: ctx.config.integer('l1.size', 50, 1, 10_000),
      scratchpadMax: ctx.config.integer('scratchpad.max_entries', 20, 1, 10_000),
      tokenBudget: ctx.config.integer('retrieval.token_budget', 2000, 50, 1_000_000),
      maxTextChars: ctx.config.integer(TEXT_LIMIT_KEY, TEXT_LIMIT_DEFAULT, 100, 10_000_000),
      recallEventsKeep: ctx.config.integer('retrieval.recall_events_keep', DEFAULT_STORES_CONFIG.recallEventsKeep, 1, 1_000_000),
      indexMaxScopes: ctx.config.integer('retrieval.index_max_scopes', DEFAULT_STORES_CONFIG.indexMaxScopes, 1, 10_000_000),
      sagaTimeoutSeconds: ctx.config.integer('saga.timeout_seconds', SAGA_TIMEOUT_SECONDS_DEFAULT, 1, 86_400),
    },
  });
  // A memory_backup restore killed after its copy into the database is finished before anything is
  // served (the API keys it keeps, the page and standing query files).
  stores.backups.finishPending();
  // Standing queries an older build saved under names holding `_` or `-` (this one takes letters and
  // digits only): renamed before anything is served, so none is stranded (one logged line each).
  stores.standing.renameLegacyFiles();
  // apiKeys: the HTTP server checks a request's Authorization against it (packages/server/src/http.ts);
  // recordCounts and breakers: its /metrics reads them (packages/server/src/metrics-route.ts).
  ctx.container.register({
    stores: asValue(stores),
    apiKeys: asValue(stores.apiKeys),
    recordCounts: asValue(stores.recordCounts),
    breakers: asValue(stores.breakers),
  });
  // The backup scheduler: off unless backup.interval_hours is set (0 = off); stopped by close (SIGTERM, SIGINT).
  const backupHours = ctx.config.integer('backup.interval_hours', BACKUP_INTERVAL_HOURS_DEFAULT, 0, 8760);
  // The nightly run (nightly.ts): due every nightly.interval_hours (0 = off), checked after ready and
  // then hourly; the `nightly_scopes` hook's taps add the scopes of the plugins' own tables, the
  // `nightly` hook's taps run after its built-in phases. Stopped by close, which waits for a run in
  // progress.
  const nightlyHours = ctx.config.integer('nightly.interval_hours', NIGHTLY_INTERVAL_HOURS_DEFAULT, 0, 8760);
  stores.nightly.attach(ctx.hooks.nightly, ctx.hooks.nightly_scopes);
  // The saga watchdog: its first check shortly after ready (off the start-up path), then one per
  // interval; stopped by close, which waits for a saga in progress.
  const sagaCheckSeconds = ctx.config.integer('saga.watchdog_interval_seconds', SAGA_WATCHDOG_INTERVAL_SECONDS_DEFAULT, 1, 3600);
  // The retrieval indexes are built shortly after ready, off the start-up path, instead of on the
  // first search (about 2 s at 100,000 memories on a small machine); what a killed process left
  // on disk is mended then too (Stores.repairAfterStop).
  let warming: NodeJS.Timeout | null = null;
  let repairing: Promise<void> | null = null;
  let closing = false;
  // Whether the L1 files must be compared with their rings after ready: not after a clean stop.
  stores.l1Stop.begin();
  ctx.hooks.ready.tapPromise(STORES_OWNER, async () => {
    warming = setTimeout(() => {
      warming = null;
      // Only done ahead of time (a search builds what is missing, the next push rewrites a file):
      // a failure here is reported, never thrown from a timer. The indexes are built in slices
      // (a build from the tables took 0.7-1.3 s per 20,000 memories, with no request answered).
      const warm = stores.retrieval.warmInSlices(() => closing).catch((err: unknown) => {
        logger.warn(`warming the stores after start failed: ${(err as Error).message}`);
      });
      // The repairs after the warm-up, the L1 files in slices (seconds at 10,000 scopes).
      repairing = warm
        .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
        .then(() => stores.repairAfterStopInSlices(() => closing))
        .then(
          () => undefined,
          (err: unknown) => logger.warn(`repairing the files after start failed: ${(err as Error).message}`),
        );
    }, RETRIEVAL_WARM_DELAY_MS);
    warming.unref();
    stores.backups.startScheduler(backupHours * 3_600_000);
    stores.nightly.startScheduler(nightlyHours * 3_600_000);
    stores.sagaWatchdog.start(sagaCheckSeconds * 1000);
  });
  ctx.hooks.close.tapPromise(STORES_OWNER, async () => {
    if (warming) clearTimeout(warming);
    // A comparison of the L1 files in progress stops at its next slice (and is then not done).
    closing = true;
    await repairing;
    stores.backups.stopScheduler();
    await stores.nightly.stop();
    await stores.sagaWatchdog.stop();
    stores.flush();
    // Recorded once every L1 file is written (a file that could not be is left to the next start).
    stores.l1Stop.end(stores.l1.filesBehind === 0);
    stores.retrieval.persist();
  });
  return stores;
}
