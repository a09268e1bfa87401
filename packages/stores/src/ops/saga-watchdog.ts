import { processAlive } from '@memory-service/kernel';
import type { StoreContext } from '../context.js';
import type { Breaker } from './breakers.js';
import type { SagaFinalStatus, SagaRun } from './saga-journal.js';
import { Sagas } from './sagas.js';
import { PeriodicCheck } from './periodic.js';

/** Seconds between two checks of the saga watchdog unless saga.watchdog_interval_seconds says otherwise. */
export const SAGA_WATCHDOG_INTERVAL_SECONDS_DEFAULT = 30;
/** Delay after ready before the first check: after tools/list can answer, so start-up pays nothing for it. */
export const SAGA_WATCHDOG_FIRST_CHECK_MS = 1_000;
/** A run of another process whose heartbeat is older than this (and at least 4 check intervals) is orphaned. */
export const SAGA_STALE_MIN_MS = 60_000;

/** rollback_failed runs changed within this many days make memory_diagnose's sagas check warn. */
export const SAGA_FAILED_WARN_DAYS = 7;

export type WatchdogReason = 'orphaned' | 'timed_out';

export interface WatchdogAction {
  run_id: string;
  saga: string;
  reason: WatchdogReason;
  /** Why, in words (the run's error when it had none). */
  detail: string;
  status: SagaFinalStatus | null;
}

export interface WatchdogReport {
  /** Unfinished runs looked at. */
  checked: number;
  rolled_back: WatchdogAction[];
  /** True when the check did not run: the breaker (saga_watchdog) is open, or the database is closed. */
  skipped: boolean;
  error: string | null;
}

/**
 * The saga watchdog: each check looks at the journal's unfinished runs (running or compensating)
 * and takes over, then compensates from the journal in reverse order, those that are
 * - orphaned: owned by a process that has stopped (crash, kill -9, power loss): on this host its
 *   pid is gone (or it was another Stores of this process, now closed), or its heartbeat is older
 *   than the stale time (4 check intervals, at least 60 s), which covers another host; a run of a
 *   live process is left to that process;
 * - timed out: a run of this Stores still running past saga.timeout_seconds: marked (its runner
 *   stops waiting for its current step, starts no later one, and has that step's work undone when
 *   it ends).
 * The claim is one compare-and-set on the run's row, so two watchdogs never undo the same run. The
 * first check runs shortly after ready (never before tools/list answers), then one per interval; its
 * timers never keep the process alive, and stop() (the close path) waits for a check or saga in progress.
 * Its breaker (saga_watchdog) skips checks after failures in a row until its cooldown.
 */
export class SagaWatchdog {
  private readonly checks = new PeriodicCheck(() => void this.tick());
  private current: Promise<WatchdogReport> | null = null;
  private intervalMs = SAGA_WATCHDOG_INTERVAL_SECONDS_DEFAULT * 1000;
  private lastCheck: number | null = null;

  constructor(
    private readonly ctx: StoreContext,
    private readonly sagas: Sagas,
    private readonly breaker: Breaker,
  ) {}

  /** How old a heartbeat of another process must be for its run to be orphaned. */
  get staleMs(): number {
    return Math.max(SAGA_STALE_MIN_MS, 4 * this.intervalMs);
  }

  /** Whether its timers are set (started and not stopped). */
  get started(): boolean {
    return this.checks.active;
  }

  /** ISO time of the last check that ran, by the clock; null before the first. */
  get lastCheckAt(): string | null {
    return this.lastCheck === null ? null : new Date(this.lastCheck).toISOString();
  }

  /** First check after `firstDelayMs`, then one every `intervalMs`. */
  start(intervalMs: number, firstDelayMs = SAGA_WATCHDOG_FIRST_CHECK_MS): void {
    this.checks.stop();
    this.sagas.enlist();
    this.intervalMs = intervalMs;
    this.checks.start(firstDelayMs, intervalMs);
  }

  /** Stop the checks (SIGTERM, SIGINT: the stores' close path) and wait for a check or a saga in progress (bounded). */
  async stop(): Promise<void> {
    this.checks.stop();
    await this.current;
    await this.sagas.idle();
    this.sagas.retire();
  }

  private async tick(): Promise<void> {
    if (this.current || !this.started) return;
    await this.check();
  }

  /** One check (a timer runs it; tests call it). A check already running is joined. Never throws: a failure is counted on the breaker and reported. */
  check(): Promise<WatchdogReport> {
    if (this.current) return this.current;
    this.current = this.checkOnce().finally(() => {
      this.current = null;
    });
    return this.current;
  }

  private async checkOnce(): Promise<WatchdogReport> {
    if (!this.ctx.db.open || !this.breaker.allow()) return { checked: 0, rolled_back: [], skipped: true, error: null };
    const journal = this.sagas.journal;
    const done: WatchdogAction[] = [];
    let checked = 0;
    try {
      const now = this.ctx.clock.now();
      this.lastCheck = now;
      const unfinished = journal.unfinished();
      // Only a read when nothing runs: no write lock taken every interval (nor on a read-only database).
      // Its writes wait for another process's write lock in the write queue, not in SQLite's busy handler (a timer would stop the whole server).
      if (unfinished.some((r) => r.owner === this.sagas.owner.id)) await this.ctx.txWhenFree(() => journal.beat());
      for (const run of unfinished) {
        checked++;
        const verdict = this.verdict(run, now);
        if (!verdict) continue;
        if (!(await this.ctx.txWhenFree(() => journal.claim(run.id, 'watchdog', verdict.detail, run.owner)))) continue;
        if (verdict.reason === 'timed_out') this.sagas.abort(run.id, verdict.detail);
        await this.sagas.compensate(run.id, 'watchdog', verdict.detail);
        const status = journal.status(run.id);
        done.push({ run_id: run.id, saga: run.saga, ...verdict, status: status === 'running' || status === 'compensating' ? null : status });
      }
      this.breaker.success();
      return { checked, rolled_back: done, skipped: false, error: null };
    } catch (err) {
      this.breaker.failure(err);
      const message = (err as Error).message;
      this.ctx.logger.error(`saga watchdog check failed: ${message}`);
      return { checked, rolled_back: done, skipped: false, error: message };
    }
  }

  /**
   * memory_diagnose's sagas check: fail when a run is still unfinished past its timeout plus the
   * stale time (the watchdog should have rolled it back: is it stopped, or its breaker open?); warn
   * when a run failed to roll back within the last SAGA_FAILED_WARN_DAYS days (a compensation
   * failed: what it left needs a look, memory_saga action list status rollback_failed); ok otherwise.
   */
  diagnose(): { status: 'ok' | 'warn' | 'fail'; detail: string } {
    const journal = this.sagas.journal;
    const now = this.ctx.clock.now();
    const counts = journal.counts();
    const unfinished = journal.unfinished();
    const stuck = unfinished.filter((r) => now - Date.parse(r.started) > this.sagas.timeoutMs + this.staleMs);
    const summary = `${counts.completed} completed, ${counts.rolled_back} rolled back, ${counts.rollback_failed} rollback failed, ${unfinished.length} unfinished`;
    const show = (runs: SagaRun[]) => runs.slice(0, 5).map((r) => `${r.id} (${r.saga}, ${r.status}${r.error ? `: ${r.error}` : ''})`).join('; ');
    if (stuck.length > 0) {
      return { status: 'fail', detail: `${summary}: ${stuck.length} run(s) still unfinished past their timeout, not rolled back by the watchdog (its breaker saga_watchdog, or is it stopped?): ${show(stuck)}` };
    }
    const since = new Date(now - SAGA_FAILED_WARN_DAYS * 86_400_000).toISOString();
    const failed = journal.rollbackFailed(50).filter((r) => r.updated >= since);
    if (failed.length > 0) {
      return { status: 'warn', detail: `${summary}: ${failed.length} run(s) in the last ${SAGA_FAILED_WARN_DAYS} days failed to roll back (memory_saga action list, status rollback_failed, shows what each step left): ${show(failed)}` };
    }
    return { status: 'ok', detail: `${summary}; watchdog ${this.started ? 'running' : 'stopped'}, last check ${this.lastCheckAt ?? 'not yet'}` };
  }

  /** Whether the watchdog takes the run over, and why; null: leave it to its runner. */
  private verdict(run: SagaRun, now: number): { reason: WatchdogReason; detail: string } | null {
    const me = this.sagas.owner;
    if (run.owner === me.id) {
      if (this.sagas.isActive(run.id)) {
        if (run.status !== 'running' || now - Date.parse(run.started) <= this.sagas.timeoutMs) return null;
        return { reason: 'timed_out', detail: `the saga ran past its timeout of ${this.sagas.timeoutMs / 1000} s` };
      }
      if (this.sagas.isCompensating(run.id)) return null;
      return { reason: 'orphaned', detail: 'its runner stopped before the saga finished' };
    }
    if (Sagas.isLiveOwnerHere(run.owner)) return null;
    if (run.owner_host === me.host && run.owner_pid !== null) {
      if (run.owner_pid === me.pid) return { reason: 'orphaned', detail: `the service that ran it (owner ${run.owner}) stopped before the saga finished` };
      if (!processAlive(run.owner_pid)) return { reason: 'orphaned', detail: `the process that ran it (pid ${run.owner_pid}) stopped before the saga finished` };
    }
    const silent = now - Date.parse(run.heartbeat);
    if (silent > this.staleMs) return { reason: 'orphaned', detail: `no sign of life from the process that ran it (owner ${run.owner}) for ${Math.round(silent / 1000)} s` };
    return null;
  }
}
