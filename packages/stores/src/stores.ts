import { stderrLogger, writeIfFree, type WriteWait } from '@memory-service/kernel';
import { AccessLog } from './access-log.js';
import { AuditLog } from './audit.js';
import { Cleanup } from './cleanup.js';
import { StoreContext } from './context.js';
import { CounterfactualStore } from './counterfactuals.js';
import { dayDigest, type DayDigest } from './day-digest.js';
import { DisclosureStore } from './disclosure.js';
import { EpisodeStore } from './episodes.js';
import { FactStore } from './facts.js';
import { GraphStore } from './graph.js';
import { L1CleanStop } from './l1-clean-stop.js';
import { L1Ring } from './l1.js';
import { LucidityPurge } from './lucidity-purge.js';
import { Nightly } from './nightly.js';
import { ApiKeyStore } from './ops/api-keys.js';
import { BackupStore } from './ops/backups.js';
import { BreakerRegistry } from './ops/breakers.js';
import { Health } from './ops/health.js';
import { SagaWatchdog } from './ops/saga-watchdog.js';
import { Sagas } from './ops/sagas.js';
import { removeLeftTemps } from './stale-temps.js';
import { ProjectStore } from './projects/projects.js';
import { ProposalStore } from './proposals.js';
import { RecallEventStore } from './recall-events.js';
import { Replica } from './replica.js';
import { RecordCounter } from './record-counts.js';
import { Retrieval } from './retrieval/retrieval.js';
import { ScratchpadStore } from './scratchpad.js';
import { SessionCloser } from './session-close.js';
import { ScopeData } from './scope-data.js';
import { SessionStore } from './sessions.js';
import { ShadowBin } from './shadow-bin.js';
import { SkillStore } from './skills.js';
import { TimelineStore } from './timeline.js';
import { TransitionStore } from './transitions.js';
import { DEFAULT_STORES_CONFIG, type Scope, type StoresConfig, type StoresOptions } from './types.js';
import { WikiStore } from './wiki.js';
import { WikiViews } from './wiki-views.js';
import { WriteGate } from './write-gate.js';
import { TypedSchemas } from './typed-schemas.js';
import { WatchRuleStore } from './watch-rules.js';
import { Rememberer } from './remember.js';
import { DailyBrief } from './daily-brief.js';
import { VersionLog } from './versions.js';
import { BranchStore } from './branches.js';
import { StashStore } from './stashes.js';
import { ProcedureStore } from './procedures.js';
import { validationError } from './errors.js';
import { RecallCache } from './memory-search.js';
import { QualityStore } from './quality.js';
import { ReflectionStore } from './reflections.js';
import { StandingStore } from './standing.js';
import { QuietTask } from './quiet-task.js';

/**
 * Longest delay of deferred bookkeeping writes (access counts, recall telemetry). A second:
 * bookkeeping of a burst of recalls is written as one transaction (and one checkpoint) instead of
 * twenty, and an agent waiting on a model between calls never notices when it lands.
 */
export const DEFERRED_WRITE_MS = 1000;
/** Longest delay between two tries of a deferred batch that fails (see Stores.flushDeferred). */
export const DEFERRED_RETRY_MAX_MS = 60_000;
/**
 * Rows with pending access counts at which the batch is written at once instead of at the delay,
 * so one batch (a pause of the event loop) stays small however fast recalls come.
 */
export const ACCESS_FLUSH_ROWS = 2048;
/**
 * Quiet time after the last commit before the retrieval indexes take the new writes in
 * (Retrieval.catchUp). Short enough that it is done long before an agent's next recall; long
 * enough that the answer to the write has left, and that a burst of writes is indexed as one batch.
 */
export const INDEX_CATCH_UP_MS = 5;
/**
 * Longest time the retrieval indexes stay behind a stream of writes that never pauses for
 * INDEX_CATCH_UP_MS (a bulk load, an import): each catch-up then takes in what this much writing
 * added, a pause of a few milliseconds, rather than the whole load at the first search after it
 * (seconds at 100,000 memories).
 */
export const INDEX_CATCH_UP_MAX_MS = 50;
/**
 * Quiet time after the last commit before an index the catch-up left for a rebuild (a bulk edit, a
 * trimmed log, one worn out by edits) is rebuilt anyway, so the next search does not pay for it.
 * Long enough that the pauses within a stream of edits do not rebuild it over and over.
 */
export const INDEX_IDLE_REBUILD_MS = 1000;

function resolveConfig(over: Partial<StoresConfig> = {}): StoresConfig {
  const cfg: StoresConfig = { ...DEFAULT_STORES_CONFIG, ...over };
  for (const [k, v] of Object.entries(cfg)) {
    if (!Number.isInteger(v) || (v as number) < 1) throw validationError(`config.${k}`, `${k} must be a positive integer`);
  }
  return cfg;
}

/**
 * The memory domain over one open SQLite connection and a data dir. The constructor assumes
 * `storesMigrations` are applied. Every store write runs in a BEGIN IMMEDIATE transaction (a
 * savepoint when nested), so writers in several processes on one data dir serialize.
 */
export class Stores {
  readonly ctx: StoreContext;
  readonly config: StoresConfig;
  readonly audit: AuditLog;
  readonly l1: L1Ring;
  /** Whether the L1 files must be compared with their rings at this start (see L1CleanStop). */
  readonly l1Stop: L1CleanStop;
  readonly sessions: SessionStore;
  /** Closes a session and saves its summary episode (memory_session_end, memory_hook session_ended). */
  readonly sessionCloser: SessionCloser;
  readonly scratchpad: ScratchpadStore;
  readonly episodes: EpisodeStore;
  readonly facts: FactStore;
  readonly wiki: WikiStore;
  readonly graph: GraphStore;
  readonly timeline: TimelineStore;
  readonly recallEvents: RecallEventStore;
  readonly shadowBin: ShadowBin;
  readonly projects: ProjectStore;
  readonly retrieval: Retrieval;
  /** Skill pages: episodes promoted verbatim, or skills written directly (memory_skill_promote). */
  readonly skills: SkillStore;
  /** Counterfactuals: anchor, premise, projection (memory_counterfactual). */
  readonly counterfactuals: CounterfactualStore;
  /** Wiki search and perspective digests (the page store with retrieval). */
  readonly wikiViews: WikiViews;
  /** Write-gate rules of <data_dir>/rules.yaml (importance boost and episode tags). */
  readonly writeGate: WriteGate;
  /** Typed-fact schemas (built-in and <data_dir>/schemas/*.yaml) and memory_save_typed. */
  readonly typedSchemas: TypedSchemas;
  /** Watch rules (memory_watch) and their hits. */
  readonly watchRules: WatchRuleStore;
  /** memory_remember: scrubbed, deduplicated, gated L4 facts with a graph node. */
  readonly rememberer: Rememberer;
  /** daily_brief's sections. */
  readonly dailyBrief: DailyBrief;
  /** Version history of facts and wiki pages (memory_history). */
  readonly versions: VersionLog;
  /** Named what-if copies of a scope's facts (memory_branch). */
  readonly branches: BranchStore;
  /** Scratchpad entries set aside (memory_stash). */
  readonly stashes: StashStore;
  /** Named step lists with run counts (memory_procedure). */
  readonly procedures: ProcedureStore;
  /** Staged mutations (memory_proposals). */
  readonly proposals: ProposalStore;
  /** L3 to L4 promotions of the Consolidator (memory_transitions). */
  readonly transitions: TransitionStore;
  /** Disclosure rules (memory_disclose). */
  readonly disclosure: DisclosureStore;
  /** The emergency purge of a scope's last hours (memory_lucidity_purge). */
  readonly lucidityPurge: LucidityPurge;
  /** Dedup, episode merging, trims and compaction (memory_cleanup). */
  readonly cleanup: Cleanup;
  /** A scope's export and import (memory_data). */
  readonly scopeData: ScopeData;
  /** The read-only copy of the database at <data_dir>/replica.db (memory_sync_replica). */
  readonly replica: Replica;
  /** Records per kind and layer, from the replica when fresh, else the live database (the server's /metrics). */
  readonly recordCounts: RecordCounter;
  /** Standing queries: named memory_query filters kept as YAML files (memory_standing). */
  readonly standing: StandingStore;
  /** Feedback on core facts and its report (memory_quality). */
  readonly quality: QualityStore;
  /** Deterministic reflections over a period (memory_reflect). */
  readonly reflections: ReflectionStore;
  /** memory_recall's TTL cache over L3 and L4 retrieval, dropped on any write to the scope. */
  readonly recall: RecallCache;
  /** Circuit breakers of the background work (deferred writes, index catch-up, L1 files, backup scheduler, saga watchdog). */
  readonly breakers: BreakerRegistry;
  /** HTTP API keys (memory_api_key), service-wide. */
  readonly apiKeys: ApiKeyStore;
  /** Online backups of memory.db and their scheduler (memory_backup). */
  readonly backups: BackupStore;
  /** The nightly run of phases per scope written since the run before, and its scheduler. */
  readonly nightly: Nightly;
  /** Data-dir checks and repairs (memory_diagnose, memory_heal). */
  readonly health: Health;
  /** Compensation sagas (memory_saga) and their journal. */
  readonly sagas: Sagas;
  /** Rolls back the journaled saga runs left by a stopped process or past their timeout (started after ready, stopped on close). */
  readonly sagaWatchdog: SagaWatchdog;

  /** The newest audit entry when this Stores was made: the saves after it are its own (repairAfterStop). */
  private readonly auditMarkAtStart: number;

  constructor(opts: StoresOptions) {
    this.config = resolveConfig(opts.config);
    const afterCommit = opts.afterCommit;
    this.ctx = new StoreContext(opts.db, opts.dataDir, opts.clock, this.config, opts.logger ?? stderrLogger(), () => {
      afterCommit?.();
      this.indexSoon();
    }, opts.transactions);
    this.audit = new AuditLog(this.ctx);
    this.auditMarkAtStart = (this.ctx.stmt('SELECT max(id) FROM audit_log').pluck(true).get() as number | null) ?? 0;
    this.breakers = new BreakerRegistry(opts.clock);
    this.l1 = new L1Ring(this.ctx, this.breakers.get('l1_files'));
    this.l1Stop = new L1CleanStop(opts.dataDir, this.ctx.logger);
    this.sessions = new SessionStore(this.ctx, this.audit);
    this.episodes = new EpisodeStore(this.ctx, this.audit);
    this.versions = new VersionLog(this.ctx);
    this.facts = new FactStore(this.ctx, this.audit, this.versions);
    this.scratchpad = new ScratchpadStore(this.ctx, { episodes: this.episodes, facts: this.facts });
    this.sessionCloser = new SessionCloser(this.sessions, this.episodes, (fn) => this.ctx.tx(fn));
    this.wiki = new WikiStore(this.ctx, this.audit, this.versions);
    this.branches = new BranchStore(this.ctx, this.facts);
    this.stashes = new StashStore(this.ctx, this.scratchpad);
    this.procedures = new ProcedureStore(this.ctx);
    this.graph = new GraphStore(this.ctx, this.audit);
    this.timeline = new TimelineStore(this.ctx);
    // Its reads write the queued telemetry first (writeDeferred): a view of the dreams holds those already answered.
    this.recallEvents = new RecallEventStore(this.ctx, () => this.writeDeferred());
    this.shadowBin = new ShadowBin(this.ctx, this.audit, {
      facts: this.facts,
      episodes: this.episodes,
      graph: this.graph,
      wiki: this.wiki,
    });
    this.projects = new ProjectStore(this.ctx, this.audit);
    this.retrieval = new Retrieval(this.ctx, (source, id) => this.accesses.pending(source, id));
    this.wikiViews = new WikiViews(this.wiki, this.retrieval);
    this.skills = new SkillStore(this.ctx, this.episodes, this.wiki);
    this.counterfactuals = new CounterfactualStore(this.ctx, this.audit);
    this.writeGate = new WriteGate(this.ctx, this.episodes);
    this.typedSchemas = new TypedSchemas(this.ctx, this.facts);
    this.watchRules = new WatchRuleStore(this.ctx, this.audit, this.episodes, this.scratchpad);
    this.rememberer = new Rememberer(this.ctx, this.facts, this.graph, this.writeGate);
    this.dailyBrief = new DailyBrief(this.ctx, this.facts, this.episodes, this.scratchpad, this.timeline);
    this.proposals = new ProposalStore(this.ctx, this.audit, { facts: this.facts, wiki: this.wiki, shadowBin: this.shadowBin });
    this.transitions = new TransitionStore(this.ctx, this.audit, this.facts);
    this.disclosure = new DisclosureStore(this.ctx, this.audit);
    this.lucidityPurge = new LucidityPurge(this);
    this.cleanup = new Cleanup(this);
    this.scopeData = new ScopeData(this);
    this.replica = new Replica(this.ctx);
    this.recordCounts = new RecordCounter(this.ctx, this.replica);
    this.standing = new StandingStore(this.ctx, this.facts, this.episodes);
    this.quality = new QualityStore(this.ctx, this.audit, this.facts);
    this.reflections = new ReflectionStore(this.ctx, () => this.writeDeferred());
    this.recall = new RecallCache(this.ctx, this.retrieval);
    this.apiKeys = new ApiKeyStore(this.ctx);
    this.backups = new BackupStore(this.ctx, this.breakers.get('backup_scheduler'), {
      beforeCopy: (wait) => this.writeDeferredWhenFree(wait),
      changeSeqTop: () => this.retrieval.changeSeqTop(),
      restartIndexes: (top) => this.retrieval.restarted(top),
      afterRestore: () => {
        this.retrieval.reset();
        this.l1.reconcileFiles();
        this.l1.flush();
      },
      matchFiles: () => {
        const matched = this.wiki.filesBehind.matchRows();
        // The removals and writes the restored database noted as unfinished: its files are matched now.
        this.wiki.filesBehind.finishRemovals();
        this.wiki.filesBehind.finishWrites();
        // Its standing query files are the backup's copy (restored after this): the notes of that time are not owed.
        this.standing.dropOwed();
        return matched;
      },
    });
    this.nightly = new Nightly(this, this.breakers.get('nightly'));
    this.sagas = new Sagas(this);
    this.sagaWatchdog = new SagaWatchdog(this.ctx, this.sagas, this.breakers.get('saga_watchdog'));
    this.health = new Health(this.ctx, this.l1, this.breakers, { nightly: () => this.nightly.check(), sagas: () => this.sagaWatchdog.diagnose() });
  }

  /** Today's activity of the scope by the clock (day-digest.ts): counts and newest facts, episodes, wiki pages, timeline events. */
  dayDigest(scope: Scope): DayDigest {
    return dayDigest(this.ctx, scope);
  }

  private readonly deferred: (() => void)[] = [];
  private deferTimer: NodeJS.Timeout | null = null;
  /** Whether deferTimer is the immediate one (ACCESS_FLUSH_ROWS reached) rather than the delay. */
  private deferSoon = false;
  /**
   * Set when a write on the timer found another process holding the write lock (or failed), cleared once a
   * batch is written: until then the retry is the delayed one, and reaching ACCESS_FLUSH_ROWS does
   * not bring it forward (each try takes the whole batch out and puts it back).
   */
  private lockBusy = false;
  /** Deferred batches in a row that failed (see flushDeferred). */
  private deferFailures = 0;
  private readonly accesses = new AccessLog();
  /** performance.now() of the last commit, for the quiet times of the index work below. */
  private lastCommit = 0;
  /**
   * Once writes have paused for INDEX_CATCH_UP_MS (under a stream of writes, at least every
   * INDEX_CATCH_UP_MAX_MS), bring the retrieval indexes up to date. Without it the next search does
   * that work before it can answer: about a third of a dream that follows a think, and the whole
   * load after a bulk load. What it leaves (a rebuild) goes to `idleRebuild`.
   */
  private readonly catchUp = new QuietTask(
    INDEX_CATCH_UP_MS,
    () => this.lastCommit,
    () => {
      // Its breaker (index_catch_up) counts the outcome; while open the catch-up is skipped (a search catches up itself).
      const run = this.breakers.get('index_catch_up').run(() => this.retrieval.catchUp());
      if (run.ran && run.value.left.length > 0) this.idleRebuild.arm();
    },
    INDEX_CATCH_UP_MAX_MS,
  );
  /**
   * Once writes have stopped for INDEX_IDLE_REBUILD_MS, rebuild (and save) what the catch-up left:
   * after a bulk edit, the first search would otherwise build the whole index (about 0.17 s at
   * 10,000 memories, 1.4 s at 100,000 on a small machine).
   */
  private readonly idleRebuild = new QuietTask(
    INDEX_IDLE_REBUILD_MS,
    () => this.lastCommit,
    () => {
      // In slices, so requests are answered during the rebuild (a search of its source reads the
      // rest at once); a failure is left to the next search, as for the other work done ahead of time.
      this.retrieval.refreshInSlices(() => !this.ctx.db.open).catch(() => undefined);
    },
  );

  /** After a commit: note its time, and have the indexes catch up once writes pause (one timer for a burst). */
  private indexSoon(): void {
    this.lastCommit = performance.now();
    this.catchUp.arm();
  }

  /**
   * Count a retrieval access on each hit's episode, fact or graph node (access_count and
   * last_access). Written with the deferred bookkeeping, coalesced per row (access-log.ts);
   * retrieval.touch() writes at once instead.
   */
  noteAccess(hits: readonly { source: string; id: string }[]): void {
    this.accesses.add(hits, this.ctx.iso());
    if (this.accesses.rows >= ACCESS_FLUSH_ROWS) this.flushSoon();
    else this.scheduleDeferred();
  }

  /** Pending access counts not written yet (distinct rows). */
  get pendingAccessRows(): number {
    return this.accesses.rows;
  }

  /**
   * Queue bookkeeping writes that need not hold up a read (access counts, recall telemetry): they
   * run together in one transaction at most DEFERRED_WRITE_MS later, or at flush().
   */
  defer(write: () => void): void {
    this.deferred.push(write);
    this.scheduleDeferred();
  }

  private scheduleDeferred(delay = DEFERRED_WRITE_MS): void {
    if (this.deferTimer) return;
    this.deferTimer = setTimeout(() => this.flushDeferred(false), delay);
    // A pending batch never keeps the process alive; close() flushes what is left.
    this.deferTimer.unref();
  }

  /** Write the batch once the current turn is over (its answer written), not at the delay. */
  private flushSoon(): void {
    if (this.lockBusy || (this.deferTimer && this.deferSoon)) return;
    if (this.deferTimer) clearTimeout(this.deferTimer);
    this.deferSoon = true;
    this.deferTimer = setTimeout(() => this.flushDeferred(false), 0);
    this.deferTimer.unref();
  }

  /**
   * Write the queued bookkeeping in one transaction. On the timer (`wait` false) it never waits for
   * another process's write lock: the batch stays queued and is tried again DEFERRED_WRITE_MS later.
   * Nor does it throw there: a batch that fails (a read-only or full disk) is reported on the
   * logger and stays queued, tried again after a delay that doubles with each failure in a row, up
   * to DEFERRED_RETRY_MAX_MS.
   */
  private flushDeferred(wait: boolean): void {
    if (this.deferTimer) clearTimeout(this.deferTimer);
    this.deferTimer = null;
    this.deferSoon = false;
    if ((this.deferred.length === 0 && this.accesses.rows === 0) || !this.ctx.db.open) return;
    const breaker = this.breakers.get('deferred_writes');
    // On the timer, an open breaker (deferred_writes) skips the write until its cooldown ends; the batch stays queued.
    if (!wait && !breaker.allow()) return this.scheduleDeferred(Math.max(DEFERRED_WRITE_MS, breaker.remainingMs()));
    const batch = this.deferred.splice(0);
    const accesses = this.accesses.take(this.ctx);
    const write = () =>
      this.ctx.tx(() => {
        accesses?.write();
        this.recallEvents.queuedBatch(() => {
          for (const w of batch) w();
        });
      });
    const putBack = () => {
      this.deferred.unshift(...batch);
      accesses?.putBack();
    };
    if (wait) {
      try {
        write();
      } catch (err) {
        putBack();
        throw err;
      }
      this.lockBusy = false;
      this.deferFailures = 0;
      breaker.success();
      return;
    }
    try {
      this.lockBusy = !writeIfFree(this.ctx.db, write);
    } catch (err) {
      putBack();
      // Retried at the delay, like a busy lock (not brought forward by ACCESS_FLUSH_ROWS).
      this.lockBusy = true;
      const delay = Math.min(DEFERRED_WRITE_MS * 2 ** this.deferFailures, DEFERRED_RETRY_MAX_MS);
      this.deferFailures++;
      breaker.failure(err);
      this.ctx.logger.error(`writing the deferred bookkeeping failed (kept, tried again in ${delay} ms): ${(err as Error).message}`);
      this.scheduleDeferred(delay);
      return;
    }
    if (this.lockBusy) {
      putBack();
      this.scheduleDeferred();
    } else {
      this.deferFailures = 0;
      breaker.success();
    }
  }

  /**
   * Write the queued bookkeeping now (access counts, recall telemetry), waiting for the lock if
   * need be: forget calls it first, so the recall_events rows of the dream calls just made are in
   * the table it deletes from, not written after it.
   */
  writeDeferred(): void {
    this.flushDeferred(true);
  }

  /**
   * writeDeferred, waiting for another process's write lock in the kernel's write queue
   * (StoreContext.txWhenFree) rather than in SQLite's busy handler: before a copy (a backup, the
   * replica). Nothing queued takes no lock, so such a copy during another process's write does not wait.
   */
  writeDeferredWhenFree(wait?: WriteWait): Promise<void> {
    if (this.deferred.length === 0 && this.accesses.rows === 0) return Promise.resolve();
    return this.ctx.txWhenFree(() => this.writeDeferred(), wait);
  }

  /**
   * Write what is still pending (deferred bookkeeping, the L1 files, the wiki page files that
   * could not be written), waiting for the lock if need be; call before closing the database.
   */
  flush(): void {
    try {
      this.flushDeferred(true);
    } finally {
      this.l1.flush();
      this.wiki.filesBehind.bulk.drain();
      this.wiki.filesBehind.retry();
      // After the writes above, which ask for it too: nothing is lost, the next search applies the log.
      this.catchUp.cancel();
      this.idleRebuild.cancel();
    }
  }

  /**
   * Mend what a process stopped mid-write (killed) can leave on disk, cheaply enough for every
   * start: L1 files behind their rings, the page and standing query files a committed import owed
   * (noted with its rows), the files of the last wiki pages saved, the files of deleted or moved
   * pages it had not removed, and the temp files of killed writes (stale-temps.ts: backup
   * copies, exports, the replica, L1, index, standing and CONTEXT.md files, and those pages' folders). Returns how many files were rewritten (or, for wiki, also removed).
   */
  repairAfterStop(): { l1_files: number; wiki_files: number } {
    if (!this.ctx.db.open) return { l1_files: 0, wiki_files: 0 };
    // A damaged L1 folder (a file in its place) must not keep the page files from their repair.
    // Not after a clean stop of every process (L1CleanStop): the files are then their rings.
    let l1Files = 0;
    try {
      if (this.l1Stop.mustReconcile) {
        l1Files = this.l1.reconcileFiles();
        this.l1Stop.reconciled();
      }
    } catch (err) {
      this.warnReconcile(err);
    }
    return { l1_files: l1Files, wiki_files: this.repairFilesAfterStop() };
  }

  /**
   * repairAfterStop with the L1 files compared in slices (L1Ring.reconcileFilesInSlices), yielding
   * to the event loop between two, so requests are served meanwhile (at 10,000 scopes the
   * comparison took seconds); the rest, bounded, is done first. `stopped` ends it early (close):
   * the comparison then counts as not done, so no clean stop is recorded.
   */
  async repairAfterStopInSlices(stopped: () => boolean = () => false): Promise<{ l1_files: number; wiki_files: number }> {
    if (!this.ctx.db.open) return { l1_files: 0, wiki_files: 0 };
    const wikiFiles = this.repairFilesAfterStop();
    let l1Files = 0;
    try {
      if (this.l1Stop.mustReconcile) {
        const n = await this.l1.reconcileFilesInSlices(stopped);
        if (n !== null) {
          l1Files = n;
          this.l1Stop.reconciled();
        }
      }
    } catch (err) {
      this.warnReconcile(err);
    }
    return { l1_files: l1Files, wiki_files: wikiFiles };
  }

  private warnReconcile(err: unknown): void {
    this.ctx.logger.warn(`comparing the L1 files with their rings failed (the rings are stored; a scope's next push rewrites its file): ${(err as Error).message}`);
  }

  /** The page, standing query and temp files of repairAfterStop (all but the L1 files); returns how many page files were written or removed. */
  private repairFilesAfterStop(): number {
    // The files a committed import owed first (whatever their time), then the newest saves' and the
    // removals; a lock another process holds past the busy timeout leaves the notes to the next start.
    let owed = 0;
    try {
      owed = this.wiki.filesBehind.finishWrites();
    } catch (err) {
      this.ctx.logger.warn(`writing the page files an import owed failed (tried again at the next start): ${(err as Error).message}`);
    }
    const wikiFiles = owed + this.wiki.repairRecent(this.auditMarkAtStart) + this.wiki.filesBehind.finishRemovals();
    try {
      this.standing.finishWrites();
    } catch (err) {
      this.ctx.logger.warn(`finishing the standing query files an import owed failed (tried again at the next start): ${(err as Error).message}`);
    }
    // An older build's import may have owed files under names holding `_` or `-`: renamed as at start.
    this.standing.renameLegacyFiles();
    // Temp files of writes a killed process left (a backup's copy, an export, the replica, L1 and snapshot files).
    removeLeftTemps(this.ctx.dataDir);
    return wikiFiles;
  }

  /** Run fn in one BEGIN IMMEDIATE transaction (nested calls become savepoints). */
  transaction<T>(fn: () => T): T {
    return this.ctx.tx(fn);
  }

  /**
   * transaction(fn), waiting for another process's write lock without blocking the event loop
   * (StoreContext.txWhenFree): for `transaction: false` tools and event handlers, which pass their
   * call (or event) as `wait`.
   */
  transactionWhenFree<T>(fn: () => T, wait?: WriteWait): Promise<T> {
    return this.ctx.txWhenFree(fn, wait);
  }

  /** fn, which writes outside the kernel's transaction (VACUUM, its own), waiting for the lock in the write queue (StoreContext.writeWhenFree). */
  writeWhenFree<T>(fn: () => T, wait?: WriteWait): Promise<T> {
    return this.ctx.writeWhenFree(fn, wait);
  }
}
