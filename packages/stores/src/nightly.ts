import { hostname } from 'node:os';
import { processAlive, writeIfFree, type NightlyContext, type NightlyResults } from '@memory-service/kernel';
import { Consolidator } from './consolidation.js';
import { mergeScopes, pluginScopes, storeScopesSince, type NightlyScopesHook, type PluginScopesOutcome } from './nightly-scopes.js';
import type { Breaker } from './ops/breakers.js';
import { RECALL_TRIM_MAX_ROWS } from './recall-events.js';
import { DREAM_SKILL_TAG, SKILL_PROMOTED_TAG } from './skills.js';
import type { Stores } from './stores.js';
import type { Scope } from './types.js';
import { isoOf, makeId, parseJson } from './util.js';
import { PeriodicCheck } from './ops/periodic.js';

/**
 * The built-in phases of the nightly run, in the order they run in each scope visited. The hook's
 * taps (plugins) run after them, each recorded as a phase named after its plugin:
 * 1. consolidation: the L3 to L4 Consolidator (memory_context_inject runs it too): additive, each
 *    promotion revertible (memory_proposals revert_transition).
 * 2. dream_buffer: trims the scope's dream telemetry (recall_events) to retrieval.recall_events_keep,
 *    as every dream already does in chunks (memory_cleanup's dream_buffer task); no memory is touched.
 * 3. index_refresh: brings the retrieval indexes up to date with the writes above, rebuilding in
 *    slices as the idle rebuild does once writes pause, so the morning's first search does not do it.
 * 4. skill_promotion: dream_skill episodes created since the run before and not yet promoted become
 *    skill pages (SkillStore.promoteEpisodes); an episode refused (a page over 4 KB) is counted.
 * 5. reflection: the daily reflection (ReflectionStore.write over NIGHTLY_REFLECTION_HOURS);
 *    skipped when nothing the reflection counts was recorded in the scope since the run before.
 */
export const NIGHTLY_PHASES = ['consolidation', 'dream_buffer', 'index_refresh', 'skill_promotion', 'reflection'] as const;
export type NightlyPhase = (typeof NIGHTLY_PHASES)[number];

/** Hours between runs unless nightly.interval_hours says otherwise (0 turns the scheduler off). */
export const NIGHTLY_INTERVAL_HOURS_DEFAULT = 24;
/** How often a running server checks whether a run is due. */
export const NIGHTLY_CHECK_EVERY_MS = 3_600_000;
/** The first check's delay after ready: off the start-up path. */
export const NIGHTLY_FIRST_CHECK_MS = 5_000;
/** The period of the reflection the reflection phase writes. */
export const NIGHTLY_REFLECTION_HOURS = 24;
/** Run ids are `night_<n>`. */
export const NIGHTLY_PREFIX = 'night';
/** The `since` of a first run on a data dir whose scheduler never recorded its first start: every record. */
const BEGINNING = '0000-01-01T00:00:00.000Z';

export type NightlyTrigger = 'scheduled' | 'manual';
export type NightlyRunStatus = 'running' | 'ok' | 'failed' | 'interrupted';
export type PhaseStatus = 'ok' | 'skipped' | 'failed';

export interface PhaseOutcome {
  /** A built-in phase (NIGHTLY_PHASES) or the name of the plugin whose `nightly` tap ran. */
  phase: string;
  status: PhaseStatus;
  counts: Record<string, number>;
  /** What a failed phase threw; null otherwise. */
  error: string | null;
  /** A note (why it was skipped, the reflection written, the episodes refused); null when there is none. */
  detail: string | null;
}

/** What a built-in phase's work answers (phase() makes its PhaseOutcome). */
type PhaseResult = { counts: Record<string, number>; status?: PhaseStatus; detail?: string | null };

export interface ScopeOutcome extends Scope {
  phases: PhaseOutcome[];
}

export interface NightlyRun {
  id: string;
  trigger: NightlyTrigger;
  started: string;
  ended: string | null;
  /** The scopes visited are those with a write after this time (the end of the run before, or the first start). */
  since: string;
  status: NightlyRunStatus;
  /** Scopes visited. */
  scopes: number;
  phases_failed: number;
  results: ScopeOutcome[];
  /** What stopped the run itself (listing the scopes to visit, say); null when it went through. */
  error: string | null;
  /** Per plugin tapping `nightly_scopes`: the scopes it listed, the entries dropped, or its failure. */
  plugin_scopes: PluginScopesOutcome[];
}

/** The `nightly` hook as the run calls it (the kernel's AsyncSeriesWaterfallHook). */
export interface NightlyHook {
  readonly taps: readonly { name: string }[];
  promise(results: NightlyResults, run: NightlyContext): Promise<NightlyResults>;
}

/** A nightly_runs row: the run with its numeric id, and its results and plugin scopes as JSON text. */
type RunRow = Omit<NightlyRun, 'id' | 'results' | 'plugin_scopes'> & { id: number; body: string; plugin_scopes: string };

const toRun = (r: RunRow): NightlyRun => ({
  id: makeId(NIGHTLY_PREFIX, r.id),
  trigger: r.trigger,
  started: r.started,
  ended: r.ended,
  since: r.since,
  status: r.status,
  scopes: r.scopes,
  phases_failed: r.phases_failed,
  results: parseJson<ScopeOutcome[]>(r.body, []),
  error: r.error,
  plugin_scopes: parseJson<PluginScopesOutcome[]>(r.plugin_scopes, []),
});

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The nightly run: once per scope (layer, user_id) written since the run before (in the stores'
 * tables, or in a plugin's as its `nightly_scopes` tap lists them: nightly-scopes.ts), the built-in
 * phases (NIGHTLY_PHASES) in order, each in a transaction of its own (index_refresh writes no row
 * and runs outside one), then the `nightly` hook's taps. A failing phase is recorded with its error
 * and the next phases still run. Each run is a nightly_runs row (per scope, each phase's status,
 * counts and error) and one audit_log row `nightly_run`. One run at a time: a second request while
 * one runs gets that run. The scheduler (startScheduler) runs it once it is due: an interval after
 * the last run's start, or after the first start when there is none (catch-up, like anacron: a
 * server that was down at the hour runs it at its next check), checking shortly after ready and
 * then hourly; its breaker (`nightly`) counts the runs with a failed phase.
 */
export class Nightly {
  private hook: NightlyHook | null = null;
  private scopesHook: NightlyScopesHook | null = null;
  private running: Promise<NightlyRun | null> | null = null;
  /** What began the run in progress (a scheduled one may end without a run: not due once it had the lock). */
  private runningTrigger: NightlyTrigger | null = null;
  private readonly checks = new PeriodicCheck(() => void this.tick());
  private intervalMs = 0;
  /** ISO time the scheduler was started (ready), recorded as the first start at its first check when there is none. */
  private startedAt: string | null = null;

  constructor(
    private readonly stores: Stores,
    private readonly breaker: Breaker,
  ) {}

  /**
   * The kernel's `nightly` hook, whose taps run after the built-in phases, and its `nightly_scopes`
   * hook, whose taps list the scopes of the plugins' own tables to visit too (kernel-binding.ts).
   */
  attach(hook: NightlyHook, scopesHook?: NightlyScopesHook): void {
    this.hook = hook;
    this.scopesHook = scopesHook ?? null;
  }

  /** Whether a run is in progress. */
  get busy(): boolean {
    return this.running !== null;
  }

  /** Hours between runs of the scheduler; 0 when it is off. */
  get intervalHours(): number {
    return this.intervalMs / 3_600_000;
  }

  /**
   * Start the scheduler (0 leaves it off): a check NIGHTLY_FIRST_CHECK_MS after the call (made
   * after ready), then every NIGHTLY_CHECK_EVERY_MS; its timers never keep the process alive.
   */
  startScheduler(intervalMs: number): void {
    this.checks.stop();
    this.intervalMs = intervalMs > 0 ? intervalMs : 0;
    if (this.intervalMs === 0) return;
    this.startedAt = this.stores.ctx.iso();
    this.checks.start(NIGHTLY_FIRST_CHECK_MS, NIGHTLY_CHECK_EVERY_MS);
  }

  /** Stop the scheduler and wait for a run in progress (the stores' close path). */
  async stop(): Promise<void> {
    this.checks.stop();
    this.intervalMs = 0;
    if (this.running) await this.running.catch(() => undefined);
  }

  /**
   * One check of the scheduler: records the first start when there is none, and runs when due and
   * the breaker allows it. Never throws: a failure is logged and counted on the breaker.
   */
  async tick(): Promise<NightlyRun | null> {
    if (this.intervalMs === 0 || this.running || !this.stores.ctx.db.open) return null;
    try {
      this.markStopped();
      // Not recorded while another process holds the write lock: this check is skipped, the next one tries again.
      if (this.firstStart() === null) return null;
      if (!this.isDue() || !this.breaker.allow()) return null;
      return await this.start('scheduled');
    } catch (err) {
      this.breaker.failure(err);
      this.stores.ctx.logger.error(`the nightly run failed: ${message(err)}`);
      return null;
    }
  }

  /**
   * ISO time the scheduler first started on this data dir (the ready of that start, recorded at its
   * first check, so nothing written after ready is before it); null before. Recording it never
   * waits for another process's write lock (writeIfFree: SQLite's busy handler would stop the whole
   * server, on a timer, for up to the busy timeout): while the lock is taken it answers null and
   * records nothing, and the scheduler's next check tries again.
   */
  firstStart(record = true): string | null {
    const get = () => this.stores.ctx.stmt('SELECT first_start FROM nightly_state WHERE id = 1').pluck(true).get() as string | undefined;
    const known = get();
    if (known !== undefined || !record) return known ?? null;
    let recorded: string | null = null;
    writeIfFree(this.stores.ctx.db, () => {
      recorded = this.stores.transaction(() => {
        this.stores.ctx.stmt('INSERT OR IGNORE INTO nightly_state (id, first_start) VALUES (1, ?)').run(this.startedAt ?? this.stores.ctx.iso());
        return get()!;
      });
    });
    return recorded;
  }

  /** When the next run is due: an interval after the last run's start (or the first start); null when off or unknown. */
  nextDue(): string | null {
    if (this.intervalMs === 0) return null;
    // Before its first check the scheduler's start is not recorded yet: it is the one it will record.
    const from = this.lastRun()?.started ?? this.firstStart(false) ?? this.startedAt;
    return from === null ? null : isoOf(Date.parse(from) + this.intervalMs);
  }

  private isDue(): boolean {
    const due = this.nextDue();
    return due !== null && this.stores.ctx.clock.now() >= Date.parse(due);
  }

  /** The newest run (also one in progress or interrupted), or null. */
  lastRun(): NightlyRun | null {
    const row = this.stores.ctx.stmt('SELECT * FROM nightly_runs ORDER BY id DESC LIMIT 1').get() as RunRow | undefined;
    return row ? toRun(row) : null;
  }

  /** The newest run that went through all its scopes (ok, or failed in some phase only), or null. */
  private lastCompleteRun(): NightlyRun | null {
    const row = this.stores.ctx
      .stmt("SELECT * FROM nightly_runs WHERE status IN ('ok', 'failed') AND error IS NULL AND ended IS NOT NULL ORDER BY id DESC LIMIT 1")
      .get() as RunRow | undefined;
    return row ? toRun(row) : null;
  }

  /**
   * The newest finished run that visited the scope, with that scope's phases only (the other
   * scopes' outcomes are not shown), or null (memory_report_card).
   */
  lastVisit(scope: Scope): { run_id: string; started: string; ended: string | null; phases: PhaseOutcome[] } | null {
    const row = this.stores.ctx
      .stmt(
        `SELECT * FROM nightly_runs WHERE status <> 'running'
           AND EXISTS (SELECT 1 FROM json_each(body) WHERE json_extract(value, '$.layer') = ? AND json_extract(value, '$.user_id') = ?)
         ORDER BY id DESC LIMIT 1`,
      )
      .get(scope.layer, scope.user_id) as RunRow | undefined;
    if (!row) return null;
    const run = toRun(row);
    const mine = run.results.find((r) => r.layer === scope.layer && r.user_id === scope.user_id);
    return { run_id: run.id, started: run.started, ended: run.ended, phases: mine?.phases ?? [] };
  }

  /** The newest runs, newest first. */
  list(limit = 10): NightlyRun[] {
    return (this.stores.ctx.stmt('SELECT * FROM nightly_runs ORDER BY id DESC LIMIT ?').all(limit) as RunRow[]).map(toRun);
  }

  /** Run now (or join the run in progress: the same promise as the request that began it). */
  run(): Promise<NightlyRun> {
    const joined = this.start('manual');
    if (this.runningTrigger === 'manual') return joined as Promise<NightlyRun>;
    // A scheduled run that finds, once it has the lock, that it is not due after all answers null: one is begun then.
    return joined.then((run) => run ?? this.run());
  }

  /**
   * Join the run in progress, or begin one: a scheduled one only while due (null otherwise). The
   * run is in progress from the call on, its start's record waiting for the write lock included.
   */
  private start(trigger: NightlyTrigger): Promise<NightlyRun | null> {
    if (this.running) return this.running;
    this.runningTrigger = trigger;
    const run = this.begin(trigger)
      .then((begun) => (begun === null ? null : this.proceed(begun)))
      .finally(() => {
        this.running = null;
      });
    this.running = run;
    return run;
  }

  /**
   * Mark `interrupted` each run left `running` by a process of this host that has stopped (killed
   * mid-run; its pid no longer runs, or is this process's own while it runs none): such a run stayed
   * "in progress" until the next run began, an interval later. A run of another host, or one
   * recorded before owners were, is left to the next run's start. Answers how many were marked;
   * while another process holds the write lock, none (the next check marks them).
   */
  markStopped(): number {
    const rows = this.stores.ctx.stmt("SELECT id, owner_pid, owner_host FROM nightly_runs WHERE status = 'running'").all() as {
      id: number;
      owner_pid: number | null;
      owner_host: string | null;
    }[];
    let marked = 0;
    for (const r of rows) {
      if (r.owner_pid === null || r.owner_host !== hostname()) continue;
      if (r.owner_pid === process.pid ? this.running !== null : processAlive(r.owner_pid)) continue;
      // Never waits for another process's write lock (a scheduler check, memory_diagnose): left to the next check then.
      const mark = () => {
        marked += this.stores.ctx.stmt("UPDATE nightly_runs SET status = 'interrupted' WHERE id = ? AND status = 'running'").run(r.id).changes;
      };
      if (this.stores.ctx.db.inTransaction) mark();
      else writeIfFree(this.stores.ctx.db, mark);
    }
    return marked;
  }

  /** memory_diagnose's `nightly` check: the last run, warn when a phase failed or it was interrupted. */
  check(): { status: 'ok' | 'warn'; detail: string } {
    if (this.stores.ctx.db.open) this.markStopped();
    const last = this.lastRun();
    const next = this.nextDue();
    const schedule = this.intervalMs === 0 ? 'the scheduler is off (nightly.interval_hours 0, or not started)' : `next run due at ${next}`;
    if (!last) return { status: 'ok', detail: `no nightly run yet; ${schedule}` };
    const head = `last run ${last.id} started ${last.started}`;
    if (last.status === 'running') return { status: 'ok', detail: `${head}, in progress` };
    if (last.status === 'interrupted') return { status: 'warn', detail: `${head} was interrupted (the process stopped mid-run); ${schedule}` };
    if (last.status === 'failed' && last.error !== null) return { status: 'warn', detail: `${head} failed: ${last.error}; ${schedule}` };
    const unlisted = last.plugin_scopes.filter((p) => p.status === 'failed').map((p) => `${p.plugin}: ${p.error}`);
    if (last.status === 'failed') {
      const failed = last.results.flatMap((s) => s.phases.filter((p) => p.status === 'failed').map((p) => `${s.layer}/${s.user_id} ${p.phase}: ${p.error}`));
      const what = [
        ...(last.phases_failed > 0 ? [`${last.phases_failed} phase(s) failed (${failed.slice(0, 3).join('; ')})`] : []),
        ...(unlisted.length > 0 ? [`${unlisted.length} plugin(s) failed to list their scopes on nightly_scopes (${unlisted.slice(0, 3).join('; ')})`] : []),
      ];
      return { status: 'warn', detail: `${head}: ${what.join(', ')}; ${schedule}` };
    }
    const dropped = last.plugin_scopes.filter((p) => p.dropped > 0).map((p) => `${p.plugin}: ${p.dropped}`);
    if (dropped.length > 0) {
      return {
        status: 'warn',
        detail: `${head}, ended ${last.ended}: ok, ${last.scopes} scope(s) visited, invalid scopes listed on nightly_scopes dropped (${dropped.slice(0, 3).join('; ')}); ${schedule}`,
      };
    }
    return { status: 'ok', detail: `${head}, ended ${last.ended}: ok, ${last.scopes} scope(s) visited; ${schedule}` };
  }

  /**
   * Record the run's start, in one transaction: a scheduled run checks again there that it is due,
   * so two processes on one data dir (a stdio and an HTTP server) do not both run it. Like every
   * write of the run, it waits for another process's write lock in the kernel's write queue
   * (Stores.transactionWhenFree), within the busy timeout, instead of in SQLite's busy handler,
   * which stopped the whole server: the run has no call, so its budget counts from the write.
   */
  private begin(trigger: NightlyTrigger): Promise<{ rowid: number; started: string; since: string; skillSince: string } | null> {
    const s = this.stores;
    const started = s.ctx.iso();
    return s.transactionWhenFree(() => {
      if (trigger === 'scheduled' && !this.isDue()) return null;
      // A run left 'running' was cut short by a stopped process (only one runs at a time here).
      s.ctx.stmt("UPDATE nightly_runs SET status = 'interrupted' WHERE status = 'running'").run();
      // The window starts where the last run that went through all its scopes ended: an interrupted
      // run, or one that failed itself, leaves its scopes to this one.
      const prev = this.lastCompleteRun();
      const since = prev ? prev.ended! : (this.firstStart(false) ?? BEGINNING);
      const info = s.ctx
        .stmt("INSERT INTO nightly_runs (trigger, started, since, status, owner_pid, owner_host) VALUES (?, ?, ?, 'running', ?, ?)")
        .run(trigger, started, since, process.pid, hostname());
      // Episodes written during the run before are offered again: the skill_promoted tag keeps any from a second promotion.
      return { rowid: Number(info.lastInsertRowid), started, since, skillSince: prev ? prev.started : since };
    });
  }

  private async proceed(begun: { rowid: number; started: string; since: string; skillSince: string }): Promise<NightlyRun> {
    const s = this.stores;
    const { rowid, started, since, skillSince } = begun;
    const id = makeId(NIGHTLY_PREFIX, rowid);
    const results: ScopeOutcome[] = [];
    let plugins: PluginScopesOutcome[] = [];
    let runError: string | null = null;
    try {
      const listed = this.scopesToVisit({ run_id: id, started, since });
      plugins = listed.plugins;
      for (const scope of listed.scopes) {
        if (!s.ctx.db.open) break;
        results.push({ ...scope, phases: await this.visit(scope, { id, started, since, skillSince }) });
        // Tool calls waiting get their turn between scopes.
        await nextTurn();
      }
    } catch (err) {
      // The run itself failed (the phases fail alone): recorded on its row, then thrown on.
      runError = message(err);
      throw err;
    } finally {
      if (s.ctx.db.open) await this.finish(rowid, id, results, plugins, since, runError);
    }
    const run = this.lastRunById(rowid);
    const failed = [
      ...run.results.flatMap((r) => r.phases.filter((p) => p.status === 'failed').map((p) => `${r.layer}/${r.user_id} ${p.phase}: ${p.error}`)),
      ...run.plugin_scopes.filter((p) => p.status === 'failed').map((p) => `nightly_scopes of ${p.plugin}: ${p.error}`),
    ];
    if (failed.length > 0) this.breaker.failure(new Error(`${failed.length} nightly phase(s) or scope listing(s) failed, first ${failed[0]}`));
    else this.breaker.success();
    return run;
  }

  private async finish(rowid: number, id: string, results: ScopeOutcome[], plugins: PluginScopesOutcome[], since: string, error: string | null): Promise<void> {
    const s = this.stores;
    const phasesFailed = results.reduce((n, r) => n + r.phases.filter((p) => p.status === 'failed').length, 0);
    // A plugin whose scopes could not be listed fails the run as a failed phase does, not the run
    // itself (no `error`): the window still closes, so a tap that keeps failing does not make every
    // later run take the whole window since again.
    const listingsFailed = plugins.filter((p) => p.status === 'failed').length;
    const status: NightlyRunStatus = phasesFailed > 0 || listingsFailed > 0 || error !== null ? 'failed' : 'ok';
    await s.transactionWhenFree(() => {
      s.ctx
        .stmt('UPDATE nightly_runs SET ended = ?, status = ?, scopes = ?, phases_failed = ?, body = ?, error = ?, plugin_scopes = ? WHERE id = ?')
        .run(s.ctx.iso(), status, results.length, phasesFailed, JSON.stringify(results), error, JSON.stringify(plugins), rowid);
      s.audit.log(null, 'nightly_run', 'nightly', id, { status, since, scopes: results.length, phases_failed: phasesFailed, plugin_scopes_failed: listingsFailed, error });
    });
  }

  private lastRunById(rowid: number): NightlyRun {
    return toRun(this.stores.ctx.stmt('SELECT * FROM nightly_runs WHERE id = ?').get(rowid) as RunRow);
  }

  /** The scopes with a record of the stores' tables written (created or updated) after `since`, in layer then user_id order. */
  scopesSince(since: string): Scope[] {
    return storeScopesSince((sql) => this.stores.ctx.stmt(sql), since);
  }

  /**
   * The scopes a run visits: the stores' own (scopesSince: a failure there fails the run itself)
   * merged with those the `nightly_scopes` taps list, each once, in layer then user_id order; and
   * per tapping plugin what its tap gave (a tap that fails, or an invalid entry, never stops the run).
   */
  private scopesToVisit(run: { run_id: string; started: string; since: string }): { scopes: Scope[]; plugins: PluginScopesOutcome[] } {
    const own = this.scopesSince(run.since);
    const listed = pluginScopes(this.scopesHook, run, this.stores.ctx.logger);
    return { scopes: listed.scopes.length > 0 ? mergeScopes(own, listed.scopes) : own, plugins: listed.outcomes };
  }

  /** Whether the scope recorded anything a reflection counts after `since` (the nightly's own writes come later). */
  private reflectable(scope: Scope, since: string): boolean {
    const tables: [string, string][] = [
      ['facts', 'created'],
      ['episodes', 'created'],
      ['wiki_pages', 'updated'],
      ['graph_nodes', 'created'],
      ['timeline_events', 'created'],
      ['sessions', 'ended'],
      ['recall_events', 'created'],
    ];
    const sql = 'SELECT ' + tables.map(([t, c]) => `EXISTS (SELECT 1 FROM ${t} WHERE layer = @layer AND user_id = @user_id AND ${c} > @since)`).join(' OR ');
    return (this.stores.ctx.stmt(sql).pluck(true).get({ layer: scope.layer, user_id: scope.user_id, since }) as number) === 1;
  }

  private async visit(scope: Scope, run: { id: string; started: string; since: string; skillSince: string }): Promise<PhaseOutcome[]> {
    const s = this.stores;
    // Measured before the phases write: a scope where only the nightly wrote gets no reflection.
    // A failure to read it is the reflection phase's failure, not the run's.
    let active: boolean | Error;
    try {
      active = this.reflectable(scope, run.since);
    } catch (err) {
      active = err instanceof Error ? err : new Error(String(err));
    }
    const phases: PhaseOutcome[] = [
      await this.phase('consolidation', true, () => ({ counts: { facts: new Consolidator(s, s.ctx.clock).consolidate(scope).consolidated.length } })),
      await this.phase('dream_buffer', true, () => {
        let removed = 0;
        for (;;) {
          const n = s.recallEvents.trim(scope);
          removed += n;
          if (n < RECALL_TRIM_MAX_ROWS) break;
        }
        return { counts: { removed } };
      }),
      // Outside a transaction, in slices a turn apart (Retrieval.refreshInSlices): a rebuild in one
      // block left every other call of the process unanswered for seconds at 50,000 memories.
      await this.phase('index_refresh', false, async () => {
        if (!(await s.retrieval.refreshInSlices(() => !s.ctx.db.open))) throw new Error('the database closed before the retrieval indexes were brought up to date');
        return { counts: {} };
      }),
      await this.phase('skill_promotion', true, () => this.promoteSkills(scope, run.skillSince)),
      await this.phase('reflection', true, () => {
        if (active instanceof Error) throw active;
        if (!active) return { status: 'skipped', counts: { reflections: 0 }, detail: `nothing was recorded since ${run.since}` };
        const r = s.reflections.write(scope, { period_hours: NIGHTLY_REFLECTION_HOURS });
        return { counts: { reflections: 1 }, detail: r.id };
      }),
    ];
    return [...phases, ...(await this.hookPhases(scope, run))];
  }

  private promoteSkills(scope: Scope, since: string): Partial<PhaseOutcome> & { counts: Record<string, number> } {
    const s = this.stores;
    const ids = (
      s.ctx
        .stmt(
          `SELECT e.id FROM episode_tags t JOIN episodes e ON e.id = t.episode_id
           WHERE t.layer = ? AND t.user_id = ? AND t.tag = ? AND e.created > ?
             AND NOT EXISTS (SELECT 1 FROM episode_tags p WHERE p.episode_id = e.id AND p.tag = ?)
           ORDER BY e.id`,
        )
        .pluck(true)
        .all(scope.layer, scope.user_id, DREAM_SKILL_TAG, since, SKILL_PROMOTED_TAG) as number[]
    ).map((n) => makeId('ep', n));
    let promoted = 0;
    const refused: string[] = [];
    for (const id of ids) {
      try {
        // One savepoint per episode: a refused one (over 4 KB) keeps the others' pages.
        if (s.skills.promoteEpisodes(scope, [id])[0]?.status === 'promoted') promoted++;
      } catch (err) {
        refused.push(`${id}: ${message(err)}`);
      }
    }
    return {
      counts: { candidates: ids.length, promoted, refused: refused.length },
      detail: refused.length > 0 ? `refused ${refused.slice(0, 5).join('; ')}` : null,
    };
  }

  /**
   * One phase: `fn` in a transaction of its own when `tx` (it must then answer at once; it waits
   * for another process's write lock in the write queue, a phase still refused it failing alone),
   * else awaited.
   */
  private async phase(
    name: NightlyPhase,
    tx: boolean,
    fn: () => PhaseResult | Promise<PhaseResult>,
  ): Promise<PhaseOutcome> {
    try {
      const r = tx ? await this.stores.transactionWhenFree(fn as () => PhaseResult) : await fn();
      return { phase: name, status: r.status ?? 'ok', counts: r.counts, error: null, detail: r.detail ?? null };
    } catch (err) {
      this.stores.ctx.logger.error(`nightly phase ${name} failed: ${message(err)}`);
      return { phase: name, status: 'failed', counts: {}, error: message(err), detail: null };
    }
  }

  /** The `nightly` taps in this scope, one phase per tapping plugin: failed with its error, or ok with the numbers of its `counts`. */
  private async hookPhases(scope: Scope, run: { id: string; started: string; since: string }): Promise<PhaseOutcome[]> {
    const hook = this.hook;
    if (!hook || hook.taps.length === 0) return [];
    const names = [...new Set(hook.taps.map((t) => t.name))];
    let results: NightlyResults;
    try {
      results = (await hook.promise({}, { layer: scope.layer, user_id: scope.user_id, run_id: run.id, started: run.started, since: run.since })) ?? {};
    } catch (err) {
      return names.map((phase) => ({ phase, status: 'failed', counts: {}, error: message(err), detail: null }));
    }
    return names.map((phase): PhaseOutcome => {
      const answer = results[phase] as { error?: { message?: unknown }; counts?: Record<string, unknown>; detail?: unknown } | undefined;
      if (answer && typeof answer === 'object' && answer.error !== undefined) {
        return { phase, status: 'failed', counts: {}, error: String(answer.error?.message ?? answer.error), detail: null };
      }
      const counts: Record<string, number> = {};
      for (const [k, v] of Object.entries(answer?.counts ?? {})) if (typeof v === 'number' && Number.isFinite(v)) counts[k] = v;
      return { phase, status: 'ok', counts, error: null, detail: typeof answer?.detail === 'string' ? answer.detail : null };
    });
  }
}
