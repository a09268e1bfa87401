import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { WriteWait } from '@memory-service/kernel';
import { Consolidator, type ConsolidationResult } from '../consolidation.js';
import type { Stores } from '../stores.js';
import type { Scope } from '../types.js';
import type { BackupInfo } from './backups.js';
import { notFound } from '../errors.js';
import { checkScope } from '../util.js';
import { SAGA_LIST_MAX, SagaJournal, type CompensatedBy, type JournalStep, type SagaOwner, type SagaRun, type SagaRunStatus } from './saga-journal.js';

/** The sagas memory_saga runs. */
export const SAGA_NAMES = ['consolidate', 'backup'] as const;
export type SagaName = (typeof SAGA_NAMES)[number];

/** Seconds a saga run may take before it is stopped and rolled back, unless saga.timeout_seconds says otherwise. */
export const SAGA_TIMEOUT_SECONDS_DEFAULT = 300;
/** Longest wait of the close path for sagas (and their compensations) still running; what is left, the journal holds for the next start. */
export const SAGA_CLOSE_WAIT_MS = 5_000;

/** What a step's work and its compensation are given: rebuilt from the journal alone when another process compensates. */
export interface SagaStepContext {
  stores: Stores;
  /** The run's layer and user_id; null for a service-wide saga. */
  scope: Scope | null;
  runId: string;
  /** The results of the steps done before, by step name (empty for a compensation). */
  results: Record<string, unknown>;
}

/** One step of a saga: its work, and the work that undoes it from its stored result (none for a step that changes nothing). */
export interface SagaStepDef {
  name: string;
  run(c: SagaStepContext): unknown;
  /** Takes the step's result as the journal holds it (JSON); what it answers is recorded as what was undone. */
  compensate?(result: any, c: SagaStepContext): unknown;
}

export interface SagaDef {
  /** Whether a run acts on a (layer, user_id); false: service-wide, journaled with a null scope. */
  scoped: boolean;
  steps: readonly SagaStepDef[];
  /**
   * At a rollback, before the done steps are compensated: remove what a step stopped midway (its
   * process killed) may have left, which the journal cannot name since the step never ended.
   */
  abandoned?(c: SagaStepContext): void;
}

export type StepStatus = 'done' | 'failed' | 'compensated' | 'compensation_failed' | 'not_run';

export interface StepOutcome {
  step: string;
  status: StepStatus;
  /** What the step did (its result), or, once compensated, { did, undone }. */
  detail: unknown;
  error: string | null;
}

export interface SagaResult {
  /** The journal id of this run (memory_saga action list shows it again). */
  run_id: string;
  saga: string;
  /** completed: every step done; rolled_back: a step failed (or the run timed out) and every done step was compensated; rollback_failed: a compensation failed too. */
  status: 'completed' | 'rolled_back' | 'rollback_failed';
  steps: StepOutcome[];
  error: string | null;
}

/** A journaled run as memory_saga action list answers it. */
export type SagaRunView = Pick<SagaRun, 'saga' | 'layer' | 'user_id' | 'status' | 'started' | 'updated' | 'error' | 'compensated_by'> & {
  run_id: string;
  steps: StepOutcome[];
};

export interface SagaListOptions {
  saga?: string;
  status?: SagaRunStatus;
  runId?: string;
  limit?: number;
}

/**
 * The owners of the Stores of this process whose watchdog has not stopped: a run of another one of
 * them is not orphaned. Owners, not their ids, so that no id is made before a saga needs one.
 */
const LIVE_OWNERS = new Set<SagaOwner>();

function auditStep(action: string, target: 'saga' | 'backup', targetOf: (c: SagaStepContext) => string): SagaStepDef {
  return {
    name: 'audit',
    run: async (c) => {
      await c.stores.transactionWhenFree(() => c.stores.audit.log(c.scope, action, target, targetOf(c), {}));
      return { audit: action, target_id: targetOf(c) };
    },
    // Audit trails are never rewritten: the compensation is a saga_compensated row.
    compensate: async (r: { target_id: string }, c) => {
      await c.stores.transactionWhenFree(() => c.stores.audit.log(c.scope, 'saga_compensated', target, r.target_id, { step: 'audit', run_id: c.runId }));
      return { audit: 'saga_compensated' };
    },
  };
}

/**
 * The saga step `reindex`: the retrieval indexes brought up to date, rebuilt in slices a turn apart
 * (Retrieval.refreshInSlices), so the process answers other calls meanwhile. Fails when the
 * database closed before they were.
 */
async function reindex(stores: Stores): Promise<{ indexes: 'current' }> {
  if (!(await stores.retrieval.refreshInSlices(() => !stores.ctx.db.open))) throw new Error('the database closed before the retrieval indexes were brought up to date');
  return { indexes: 'current' };
}

/**
 * The compensation sagas of memory_saga, keyed by name; each compensation takes only the step's
 * stored result and the run's scope, so a new process can undo a run from the journal:
 * - consolidate (a scope): `consolidate` (the L3 to L4 Consolidator; undone by deleting the facts
 *   it wrote that still hold the entry_id it gave them), `audit` (an audit_log row
 *   `saga_consolidate`; undone by a `saga_compensated` row), `reindex` (the retrieval indexes take the new facts in);
 * - backup (service-wide): `flush` (pending bookkeeping and L1 files written), `backup` (a `saga-`
 *   backup file; undone by removing it; the temp copy of a step killed midway is removed at the
 *   rollback), `verify` (the file is a whole database), `audit` (as above).
 */
export const SAGA_DEFS: Readonly<Record<SagaName, SagaDef>> = Object.freeze({
  consolidate: {
    scoped: true,
    steps: [
      {
        name: 'consolidate',
        run: (c) => c.stores.transactionWhenFree(() => new Consolidator(c.stores, c.stores.ctx.clock).consolidate(c.scope!)),
        compensate: (r: ConsolidationResult, c) =>
          c.stores.transactionWhenFree(() => ({
            deleted_facts: r.consolidated
              .filter((x) => c.stores.facts.get(c.scope!, x.key)?.entry_id === x.entry_id)
              .filter((x) => c.stores.facts.delete(c.scope!, x.key, 'saga_compensation') !== null)
              .map((x) => x.key),
          })),
      },
      auditStep('saga_consolidate', 'saga', (c) => c.runId),
      { name: 'reindex', run: (c) => reindex(c.stores) },
    ],
  },
  backup: {
    scoped: false,
    // A backup step killed midway leaves its unfinished copy under a temp name: removed once its process is gone.
    abandoned: (c) => void c.stores.backups.removeStaleCopies(),
    steps: [
      {
        name: 'flush',
        run: async (c) => {
          // The bookkeeping first, waiting for another process's write lock in the write queue; then the files.
          await c.stores.writeDeferredWhenFree();
          c.stores.flush();
          return { flushed: true };
        },
      },
      {
        name: 'backup',
        run: (c) => c.stores.backups.create('saga'),
        compensate: (r: BackupInfo, c) => ({ removed: c.stores.backups.remove(r.name) ? r.name : null }),
      },
      {
        name: 'verify',
        run: (c) => {
          const name = (c.results.backup as BackupInfo).name;
          c.stores.backups.verify(name);
          return { verified: name };
        },
      },
      auditStep('saga_backup', 'backup', (c) => (c.results.backup as BackupInfo).name),
    ],
  },
});

/** A promise with its resolve. */
function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

interface ActiveRun {
  started: number;
  /** Stop waiting for the current step: the watchdog took the run over (it overran its timeout). */
  abort(reason: string): void;
  done: Promise<unknown>;
}

/**
 * Runs the sagas with a journal (SagaJournal): the run is written before its first step, each
 * step's outcome before the next one starts. When a step fails, or the run is past its timeout
 * (saga.timeout_seconds) before a step starts, the done steps are compensated in reverse order
 * from the journal (each compensation's failure is recorded and the others still run) and the
 * steps after it are not run. compensate(runId) is the same undo for a run taken over by the
 * watchdog: every compensation is rebuilt from the saga's table (SAGA_DEFS) and the stored results.
 */
/**
 * This process as a saga owner. Its random id is made when first read (the first saga, or the
 * watchdog finding unfinished runs): node:crypto, with its fourteen internal modules, is then not
 * loaded by every start for it (about 4 ms of spawn to tools/list).
 */
function processOwner(): SagaOwner {
  let id: string | undefined;
  return {
    get id() {
      return (id ??= randomBytes(8).toString('hex'));
    },
    pid: process.pid,
    host: hostname(),
  };
}

export class Sagas {
  /** Steps (`<saga>:<step>`) made to fail once at their next run: for tests, to show the rollback. Never set by a tool. */
  readonly faults = new Set<string>();
  /** Steps (`<saga>:<step>`) that wait for the promise before their work, once: for tests, to show a hanging step. Never set by a tool. */
  readonly stalls = new Map<string, Promise<unknown>>();
  readonly owner: SagaOwner = processOwner();
  readonly journal: SagaJournal;
  private readonly defs = new Map<string, SagaDef>(Object.entries(SAGA_DEFS));
  private readonly active = new Map<string, ActiveRun>();
  /** Compensations under way, by run id: one at a time per run. */
  private readonly compensating = new Map<string, Promise<void>>();
  /** Steps that went on after their run was taken over, until their result is compensated. */
  private readonly late = new Set<Promise<unknown>>();

  constructor(private readonly stores: Stores) {
    this.journal = new SagaJournal(stores.ctx, this.owner);
    LIVE_OWNERS.add(this.owner);
  }

  /** The timeout of a run, from the stores' config (saga.timeout_seconds). */
  get timeoutMs(): number {
    return this.stores.config.sagaTimeoutSeconds * 1000;
  }

  /** Add a saga definition (tests: a saga of their own steps). The tools only run SAGA_NAMES. */
  define(name: string, def: SagaDef): void {
    this.defs.set(name, def);
  }

  /** Whether this Stores runs the run now. */
  isActive(runId: string): boolean {
    return this.active.has(runId);
  }

  /** Whether this Stores compensates the run now. */
  isCompensating(runId: string): boolean {
    return this.compensating.has(runId);
  }

  /** Whether the owner id is a Stores of this process that has not stopped. */
  static isLiveOwnerHere(owner: string): boolean {
    for (const live of LIVE_OWNERS) if (live.id === owner) return true;
    return false;
  }

  /** This Stores runs (again): its unfinished runs are its own, not orphans. */
  enlist(): void {
    LIVE_OWNERS.add(this.owner);
  }

  /** This Stores stops (the close path): its runs left unfinished are orphans for the next process. */
  retire(): void {
    LIVE_OWNERS.delete(this.owner);
  }

  /**
   * Run a saga; never throws on a step's failure: the outcome of every step is in the answer. Its
   * journal's writes and its steps' transactions wait for another process's write lock in the
   * kernel's write queue, not in SQLite's busy handler (which stopped the whole server): the run's
   * start within the busy timeout counted from `wait.since` (the tool call's), each later write
   * within a busy timeout of its own (a run's steps may take longer than a call's budget).
   */
  run(saga: string, scope: Scope, wait?: WriteWait): Promise<SagaResult> {
    const def = this.defs.get(saga);
    if (!def) throw new Error(`unknown saga ${saga}`);
    const runScope = def.scoped ? scope : null;
    return this.stores.transactionWhenFree(() => this.journal.begin(saga, runScope), wait).then((runId) => {
      const abort = deferred<string>();
      const done = deferred<unknown>();
      this.active.set(runId, { started: this.stores.ctx.clock.now(), abort: abort.resolve, done: done.promise });
      return this.execute(saga, def, runScope, runId, abort.promise).finally(() => {
        this.active.delete(runId);
        done.resolve(undefined);
      });
    });
  }

  /** A write of the journal (one transaction), waiting for another process's write lock in the write queue. */
  private record<T>(fn: () => T): Promise<T> {
    return this.stores.transactionWhenFree(fn);
  }

  private async execute(saga: string, def: SagaDef, scope: Scope | null, runId: string, aborted: Promise<string>): Promise<SagaResult> {
    const started = this.stores.ctx.clock.now();
    const results: Record<string, unknown> = {};
    let error: string | null = null;
    let takenOver = false;
    for (let i = 0; i < def.steps.length; i++) {
      const step = def.steps[i]!;
      if (this.stores.ctx.clock.now() - started > this.timeoutMs) {
        error = `the saga ran past its timeout of ${this.timeoutMs / 1000} s: step ${step.name} and the steps after it were not started`;
        break;
      }
      const key = `${saga}:${step.name}`;
      const stall = this.stalls.get(key);
      this.stalls.delete(key);
      const ctx: SagaStepContext = { stores: this.stores, scope, runId, results: { ...results } };
      const work = (async () => {
        if (stall) await stall;
        if (this.faults.delete(key)) throw new Error(`injected fault in step ${step.name}`);
        return step.run(ctx);
      })();
      const outcome = await Promise.race([
        work.then(
          (value) => ({ kind: 'done' as const, value }),
          (err: unknown) => ({ kind: 'failed' as const, message: err instanceof Error ? err.message : String(err) }),
        ),
        aborted.then((reason) => ({ kind: 'aborted' as const, reason })),
      ]);
      if (outcome.kind === 'aborted') {
        // The watchdog took the run over and compensates the done steps; this one is compensated when it ends.
        await this.record(() => this.journal.step(runId, i, step.name, 'failed', null, `${outcome.reason}; the step was still running: its work is undone when it ends`));
        this.trackLate(work.then((value) => this.lateStep(runId, i, step.name, value), () => undefined));
        takenOver = true;
        break;
      }
      if (outcome.kind === 'failed') {
        error = outcome.message;
        const failed = error;
        await this.record(() => this.journal.step(runId, i, step.name, 'failed', null, failed));
        break;
      }
      results[step.name] = outcome.value ?? null;
      const status = await this.record(() => this.journal.step(runId, i, step.name, 'done', outcome.value));
      if (status !== 'running') {
        // Taken over while the step ran (between the race and the write): its result is undone by
        // this Stores when it holds the run, else by the process that claimed it.
        if (this.journal.get(runId)?.owner === this.owner.id) await this.compensate(runId, 'watchdog', 'taken over');
        takenOver = true;
        break;
      }
    }
    if (takenOver) {
      await this.compensating.get(runId);
    } else if (error === null) {
      await this.record(() => this.journal.finish(runId, 'completed'));
    } else {
      const failed = error;
      if (await this.record(() => this.journal.claim(runId, 'saga', failed, this.owner.id))) await this.compensate(runId, 'saga', error);
    }
    return this.resultOf(this.journal.get(runId)!, def);
  }

  /** A step that ended after its run was taken over: record it done and compensate it. */
  private async lateStep(runId: string, seq: number, name: string, value: unknown): Promise<void> {
    await this.compensating.get(runId);
    await this.record(() => this.journal.step(runId, seq, name, 'done', value));
    await this.compensate(runId, 'watchdog', 'taken over');
  }

  /** Keep a late step until it is compensated (idle() waits for it); a failure there (the database closed meanwhile) is reported on the logger, never left unhandled. */
  private trackLate(p: Promise<unknown>): void {
    const safe = p.then(
      () => undefined,
      (err: unknown) => this.stores.ctx.logger.warn(`a saga step that ended after its run was rolled back could not be recorded or undone: ${(err as Error).message}`),
    );
    this.late.add(safe);
    void safe.finally(() => this.late.delete(safe));
  }

  /** Stop waiting for a run's current step (the watchdog, for a run of this Stores past its timeout, after claiming it). */
  abort(runId: string, reason: string): void {
    this.active.get(runId)?.abort(reason);
  }

  /**
   * Compensate a run from the journal: its done steps in reverse order, each by its saga's table
   * with its stored result, each outcome written as it ends; then the run is rolled_back, or
   * rollback_failed when a compensation failed (or none is known). The caller has claimed the run
   * (status compensating). One compensation at a time per run.
   */
  compensate(runId: string, by: CompensatedBy, reason: string): Promise<void> {
    const before = this.compensating.get(runId) ?? Promise.resolve();
    const next = before.then(() => this.undo(runId, by, reason));
    const tracked = next.finally(() => {
      if (this.compensating.get(runId) === tracked) this.compensating.delete(runId);
    });
    this.compensating.set(runId, tracked);
    return tracked;
  }

  private async undo(runId: string, by: CompensatedBy, reason: string): Promise<void> {
    const run = this.journal.get(runId);
    if (!run) return;
    const def = this.defs.get(run.saga);
    const scope: Scope | null = run.layer === null || run.user_id === null ? null : { layer: run.layer, user_id: run.user_id };
    const ctx: SagaStepContext = { stores: this.stores, scope, runId, results: {} };
    try {
      def?.abandoned?.(ctx);
    } catch (err) {
      this.stores.ctx.logger.warn(`saga ${run.saga} run ${runId}: what a step stopped midway left could not be removed: ${(err as Error).message}`);
    }
    for (const step of [...run.steps].reverse()) {
      if (step.status !== 'done') continue;
      const stepDef = def?.steps.find((s) => s.name === step.name);
      try {
        if (!stepDef) throw new Error(`no compensation is known for step ${step.name} of saga ${run.saga} in this version`);
        const undone = stepDef.compensate ? await stepDef.compensate(step.result, ctx) : 'nothing to undo';
        await this.record(() => this.journal.compensated(runId, step.seq, undone ?? null, null));
      } catch (err) {
        await this.record(() => this.journal.compensated(runId, step.seq, null, (err as Error).message));
      }
    }
    const after = this.journal.get(runId)!;
    const failed = after.steps.some((s) => s.status === 'compensation_failed');
    await this.record(() => this.journal.finish(runId, failed ? 'rollback_failed' : 'rolled_back', after.error === null ? reason : null));
    if (by === 'watchdog') this.stores.ctx.logger.warn(`saga ${run.saga} run ${runId} rolled back by the watchdog (${after.error ?? reason}): ${failed ? 'a compensation failed' : 'every done step undone'}`);
  }

  /** Wait (at most `ms`) for the runs of this Stores, their compensations and late steps to end. */
  async idle(ms = SAGA_CLOSE_WAIT_MS): Promise<boolean> {
    const all = [...[...this.active.values()].map((a) => a.done), ...this.compensating.values(), ...this.late];
    if (all.length === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const settled = await Promise.race([
      Promise.allSettled(all).then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), ms);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
    return settled;
  }

  /**
   * The journaled runs of the scope and the service-wide ones, newest first (at most `limit`,
   * SAGA_LIST_MAX), optionally of one saga or status; `runId` answers that run alone (not found,
   * naming run_id, when it is unknown or another scope's).
   */
  runs(scope: Scope, opts: SagaListOptions = {}): SagaRunView[] {
    checkScope(scope);
    const limit = Math.min(Math.max(1, Math.floor(opts.limit ?? 20)), SAGA_LIST_MAX);
    let runs: SagaRun[];
    if (opts.runId !== undefined) {
      const run = this.journal.get(opts.runId);
      const visible = run && (run.layer === null || (run.layer === scope.layer && run.user_id === scope.user_id));
      if (!visible) throw notFound('saga run', opts.runId, 'run_id');
      runs = [run];
    } else {
      runs = this.journal.list(scope, { limit, saga: opts.saga, status: opts.status });
    }
    return runs.map((r) => ({
      run_id: r.id,
      saga: r.saga,
      layer: r.layer,
      user_id: r.user_id,
      status: r.status,
      started: r.started,
      updated: r.updated,
      error: r.error,
      compensated_by: r.compensated_by,
      steps: this.resultOf(r).steps,
    }));
  }

  /** A run as memory_saga answers it: every step of its saga, those the journal has not as not_run. */
  resultOf(run: SagaRun, def = this.defs.get(run.saga)): SagaResult {
    const names = def ? def.steps.map((s) => s.name) : run.steps.map((s) => s.name);
    const bySeq = new Map(run.steps.map((s) => [s.seq, s]));
    const steps = names.map((name, seq) => outcomeOf(name, bySeq.get(seq)));
    const status = run.status === 'running' || run.status === 'compensating' ? 'rolled_back' : run.status;
    return { run_id: run.id, saga: run.saga, status, steps, error: run.error };
  }
}

function outcomeOf(name: string, s: JournalStep | undefined): StepOutcome {
  if (!s) return { step: name, status: 'not_run', detail: null, error: null };
  if (s.status === 'compensated') return { step: name, status: s.status, detail: { did: s.result, undone: s.undone }, error: null };
  return { step: name, status: s.status, detail: s.status === 'failed' ? null : s.result, error: s.error };
}
