import { randomBytes } from 'node:crypto';
import type { StoreContext } from '../context.js';
import type { Scope } from '../types.js';
import { isoOf } from '../util.js';

/** The states of a saga run: running (steps being done), compensating (its done steps being undone), and the three final ones. */
export const SAGA_RUN_STATUSES = ['running', 'compensating', 'completed', 'rolled_back', 'rollback_failed'] as const;
export type SagaRunStatus = (typeof SAGA_RUN_STATUSES)[number];
/** The states of a finished run. */
export type SagaFinalStatus = 'completed' | 'rolled_back' | 'rollback_failed';
export type JournalStepStatus = 'done' | 'failed' | 'compensated' | 'compensation_failed';
/** Who compensated a run: the saga itself (a step failed) or the watchdog (its process died, or it overran its timeout). */
export type CompensatedBy = 'saga' | 'watchdog';

/** Most runs one list answers. */
export const SAGA_LIST_MAX = 100;

/** Who runs a saga: a Stores' random owner id, with its process id and host for a quick liveness check. */
export interface SagaOwner {
  id: string;
  pid: number;
  host: string;
}

export interface JournalStep {
  seq: number;
  name: string;
  status: JournalStepStatus;
  /** What the step did: the result its compensation is given (JSON). */
  result: unknown;
  /** What its compensation did; null until compensated. */
  undone: unknown;
  error: string | null;
  updated: string;
}

export interface SagaRun {
  id: string;
  saga: string;
  /** null for a service-wide saga (backup). */
  layer: Scope['layer'] | null;
  user_id: string | null;
  status: SagaRunStatus;
  started: string;
  updated: string;
  /** Last sign of life of its owner (each step written, each watchdog check of the owner). */
  heartbeat: string;
  owner: string;
  owner_pid: number | null;
  owner_host: string | null;
  error: string | null;
  /** saga (a step failed) or watchdog (its process stopped, or it ran past its timeout); null when not compensated. */
  compensated_by: CompensatedBy | null;
  steps: JournalStep[];
}

type RunRow = Omit<SagaRun, 'steps'>;
interface StepRow {
  seq: number;
  name: string;
  status: JournalStepStatus;
  result: string | null;
  undone: string | null;
  error: string | null;
  updated: string;
}

const parse = (text: string | null): unknown => (text === null ? null : JSON.parse(text));
const json = (value: unknown): string => JSON.stringify(value ?? null);

/**
 * The saga journal (tables saga_runs and saga_steps): every write is its own transaction, done
 * before the saga goes on, so after a crash the journal says which steps are done and what each
 * one's compensation needs. A run is taken over for compensation by one compare-and-set
 * (claim: running -> compensating, owner set to the claimer), so two processes never undo the same run.
 */
export class SagaJournal {
  constructor(
    private readonly ctx: StoreContext,
    readonly owner: SagaOwner,
  ) {}

  /** A new run, `running`, owned by this Stores; answers its id. */
  begin(saga: string, scope: Scope | null): string {
    const now = this.ctx.iso();
    const id = `saga_${isoOf(this.ctx.clock.now()).replace(/[-:.]/g, '')}_${randomBytes(4).toString('hex')}`;
    this.ctx.tx(() =>
      this.ctx
        .stmt(
          `INSERT INTO saga_runs (id, saga, layer, user_id, status, started, updated, heartbeat, owner, owner_pid, owner_host)
           VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?)`,
        )
        .run(id, saga, scope?.layer ?? null, scope?.user_id ?? null, now, now, now, this.owner.id, this.owner.pid, this.owner.host),
    );
    return id;
  }

  /** Record a step's outcome (done with its result, or failed with its error) and the owner's heartbeat; answers the run's status after. */
  step(runId: string, seq: number, name: string, status: 'done' | 'failed', result: unknown, error: string | null = null): SagaRunStatus | null {
    return this.ctx.tx(() => {
      const now = this.ctx.iso();
      this.ctx
        .stmt(
          `INSERT INTO saga_steps (run_id, seq, name, status, result, undone, error, updated) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)
           ON CONFLICT (run_id, seq) DO UPDATE SET status = excluded.status, result = excluded.result, error = excluded.error, updated = excluded.updated`,
        )
        .run(runId, seq, name, status, status === 'done' ? json(result) : null, error, now);
      this.ctx.stmt("UPDATE saga_runs SET updated = ?, heartbeat = ? WHERE id = ? AND owner = ? AND status = 'running'").run(now, now, runId, this.owner.id);
      return this.status(runId);
    });
  }

  /** Record what a step's compensation did, or why it failed. */
  compensated(runId: string, seq: number, undone: unknown, error: string | null): void {
    this.ctx.tx(() => {
      const now = this.ctx.iso();
      this.ctx
        .stmt('UPDATE saga_steps SET status = ?, undone = ?, error = ?, updated = ? WHERE run_id = ? AND seq = ?')
        .run(error === null ? 'compensated' : 'compensation_failed', error === null ? json(undone) : null, error, now, runId, seq);
      this.ctx.stmt('UPDATE saga_runs SET updated = ?, heartbeat = ? WHERE id = ?').run(now, now, runId);
    });
  }

  /**
   * Take the run over for compensation: running (or compensating, `resume`: a claimer that died
   * midway) becomes compensating, owned by this Stores, with `error` kept as the run's error
   * unless it has one. Answers whether this call claimed it; false when another did first or the
   * run is over. `expectOwner` guards the compare-and-set: only a run still owned by the one seen.
   */
  claim(runId: string, by: CompensatedBy, error: string, expectOwner?: string): boolean {
    return this.ctx.tx(() => {
      const now = this.ctx.iso();
      const r = this.ctx
        .stmt(
          `UPDATE saga_runs SET status = 'compensating', owner = ?, owner_pid = ?, owner_host = ?, updated = ?, heartbeat = ?,
             error = coalesce(error, ?), compensated_by = ?
           WHERE id = ? AND status IN ('running', 'compensating') AND (? IS NULL OR owner = ?)`,
        )
        .run(this.owner.id, this.owner.pid, this.owner.host, now, now, error, by, runId, expectOwner ?? null, expectOwner ?? null);
      return r.changes === 1;
    });
  }

  /** Mark a run final. */
  finish(runId: string, status: SagaFinalStatus, error: string | null = null): void {
    this.ctx.tx(() => {
      const now = this.ctx.iso();
      this.ctx.stmt('UPDATE saga_runs SET status = ?, error = coalesce(?, error), updated = ?, heartbeat = ? WHERE id = ?').run(status, error, now, now, runId);
    });
  }

  /** Refresh the heartbeat of the unfinished runs this Stores owns (the watchdog, on each check). */
  beat(): number {
    return this.ctx.tx(() => {
      const now = this.ctx.iso();
      return this.ctx.stmt("UPDATE saga_runs SET heartbeat = ? WHERE owner = ? AND status IN ('running', 'compensating')").run(now, this.owner.id).changes;
    });
  }

  status(runId: string): SagaRunStatus | null {
    return (this.ctx.stmt('SELECT status FROM saga_runs WHERE id = ?').pluck(true).get(runId) as SagaRunStatus | undefined) ?? null;
  }

  /** One run with its steps (in order), or null. */
  get(runId: string): SagaRun | null {
    const row = this.ctx.stmt('SELECT * FROM saga_runs WHERE id = ?').get(runId) as RunRow | undefined;
    return row ? this.withSteps(row) : null;
  }

  /** The runs not finished (running or compensating), oldest first. */
  unfinished(): SagaRun[] {
    const rows = this.ctx.stmt("SELECT * FROM saga_runs WHERE status IN ('running', 'compensating') ORDER BY started, id").all() as RunRow[];
    return rows.map((r) => this.withSteps(r));
  }

  /** The runs of the scope and the service-wide ones (scope null), newest first, optionally of one saga or status. */
  list(scope: Scope, opts: { limit: number; saga?: string; status?: SagaRunStatus }): SagaRun[] {
    const rows = this.ctx
      .stmt(
        `SELECT * FROM saga_runs WHERE ((layer = ? AND user_id = ?) OR layer IS NULL) AND (? IS NULL OR saga = ?) AND (? IS NULL OR status = ?)
         ORDER BY started DESC, id DESC LIMIT ?`,
      )
      .all(scope.layer, scope.user_id, opts.saga ?? null, opts.saga ?? null, opts.status ?? null, opts.status ?? null, opts.limit) as RunRow[];
    return rows.map((r) => this.withSteps(r));
  }

  /** Counts of runs by status, over every scope (memory_diagnose). */
  counts(): Record<SagaRunStatus, number> {
    const out = Object.fromEntries(SAGA_RUN_STATUSES.map((s) => [s, 0])) as Record<SagaRunStatus, number>;
    for (const r of this.ctx.stmt('SELECT status, count(*) AS n FROM saga_runs GROUP BY status').all() as { status: SagaRunStatus; n: number }[]) out[r.status] = r.n;
    return out;
  }

  /** The runs that failed to roll back (a compensation failed), newest first. */
  rollbackFailed(limit: number): SagaRun[] {
    const rows = this.ctx.stmt("SELECT * FROM saga_runs WHERE status = 'rollback_failed' ORDER BY started DESC, id DESC LIMIT ?").all(limit) as RunRow[];
    return rows.map((r) => this.withSteps(r));
  }

  /**
   * Remove the finished runs that need no attention (completed, rolled_back) last changed before
   * `beforeIso`, with their steps; rollback_failed and unfinished runs stay. A dry run only counts.
   */
  prune(beforeIso: string, dry: boolean): number {
    const where = "status IN ('completed', 'rolled_back') AND updated < ?";
    if (dry) return this.ctx.stmt(`SELECT count(*) FROM saga_runs WHERE ${where}`).pluck(true).get(beforeIso) as number;
    return this.ctx.tx(() => {
      this.ctx.stmt(`DELETE FROM saga_steps WHERE run_id IN (SELECT id FROM saga_runs WHERE ${where})`).run(beforeIso);
      return this.ctx.stmt(`DELETE FROM saga_runs WHERE ${where}`).run(beforeIso).changes;
    });
  }

  private withSteps(row: RunRow): SagaRun {
    const steps = (this.ctx.stmt('SELECT seq, name, status, result, undone, error, updated FROM saga_steps WHERE run_id = ? ORDER BY seq').all(row.id) as StepRow[]).map((s) => ({
      ...s,
      result: parse(s.result),
      undone: parse(s.undone),
    }));
    return { ...row, steps };
  }
}
