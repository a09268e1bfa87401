import { Consolidator } from '../consolidation.js';
import type { Stores } from '../stores.js';
import type { Scope } from '../types.js';
import { isoOf } from '../util.js';

/** The sagas memory_saga runs. */
export const SAGA_NAMES = ['consolidate', 'backup'] as const;
export type SagaName = (typeof SAGA_NAMES)[number];

/** One step of a saga: its work, and the work that undoes it once done (none for a step that changes nothing). */
export interface SagaStep {
  name: string;
  run(): unknown;
  compensate?(result: unknown): unknown;
}

export type StepStatus = 'done' | 'failed' | 'compensated' | 'compensation_failed' | 'not_run';

export interface StepOutcome {
  step: string;
  status: StepStatus;
  /** What the step did (its result), or what its compensation did. */
  detail: unknown;
  error: string | null;
}

export interface SagaResult {
  saga: string;
  /** completed: every step done; rolled_back: a step failed and every done step was compensated; rollback_failed: a compensation failed too. */
  status: 'completed' | 'rolled_back' | 'rollback_failed';
  steps: StepOutcome[];
  error: string | null;
}

/**
 * Run the steps in order. When one throws, the steps done before it are compensated in reverse
 * order (each compensation's failure is recorded and the others still run), and the steps after it
 * are not run. Never throws: the outcome of every step is in the answer. `fault` (tests) makes a
 * step fail before its work, to show the rollback.
 */
export async function runSaga(saga: string, steps: readonly SagaStep[], fault?: (step: string) => boolean): Promise<SagaResult> {
  const outcomes: StepOutcome[] = steps.map((s) => ({ step: s.name, status: 'not_run', detail: null, error: null }));
  const results: unknown[] = [];
  let failedAt = -1;
  let error: string | null = null;
  for (let i = 0; i < steps.length; i++) {
    try {
      if (fault?.(steps[i]!.name)) throw new Error(`injected fault in step ${steps[i]!.name}`);
      results[i] = await steps[i]!.run();
      outcomes[i] = { step: steps[i]!.name, status: 'done', detail: results[i] ?? null, error: null };
    } catch (err) {
      failedAt = i;
      error = (err as Error).message;
      outcomes[i] = { step: steps[i]!.name, status: 'failed', detail: null, error };
      break;
    }
  }
  if (failedAt < 0) return { saga, status: 'completed', steps: outcomes, error: null };
  let clean = true;
  for (let i = failedAt - 1; i >= 0; i--) {
    const step = steps[i]!;
    try {
      const undone = step.compensate ? await step.compensate(results[i]) : 'nothing to undo';
      outcomes[i] = { ...outcomes[i]!, status: 'compensated', detail: { did: results[i] ?? null, undone: undone ?? null } };
    } catch (err) {
      clean = false;
      outcomes[i] = { ...outcomes[i]!, status: 'compensation_failed', error: (err as Error).message };
    }
  }
  return { saga, status: clean ? 'rolled_back' : 'rollback_failed', steps: outcomes, error };
}

/**
 * The compensation sagas of memory_saga:
 * - consolidate (a scope): `consolidate` (the L3 to L4 Consolidator; undone by deleting the facts
 *   it wrote), `audit` (an audit_log row `saga_consolidate`; undone by a `saga_compensated` row,
 *   since audit trails are never rewritten), `reindex` (the retrieval indexes take the new facts in);
 * - backup: `flush` (pending bookkeeping and L1 files written), `backup` (a `saga-` backup file;
 *   undone by removing it), `verify` (the file is a whole database), `audit` (as above).
 */
export class Sagas {
  /** Steps (`<saga>:<step>`) made to fail once at their next run: for tests, to show the rollback. Never set by a tool. */
  readonly faults = new Set<string>();

  constructor(private readonly stores: Stores) {}

  run(saga: SagaName, scope: Scope): Promise<SagaResult> {
    const steps = saga === 'consolidate' ? this.consolidateSteps(scope) : this.backupSteps();
    return runSaga(saga, steps, (step) => this.faults.delete(`${saga}:${step}`));
  }

  private consolidateSteps(scope: Scope): SagaStep[] {
    const s = this.stores;
    const id = `saga_consolidate_${isoOf(s.ctx.clock.now())}`;
    return [
      {
        name: 'consolidate',
        run: () => new Consolidator(s, s.ctx.clock).consolidate(scope),
        compensate: (r) => {
          const keys = (r as { consolidated: { key: string }[] }).consolidated.map((c) => c.key);
          return s.transaction(() => ({ deleted_facts: keys.filter((k) => s.facts.delete(scope, k) !== null) }));
        },
      },
      {
        name: 'audit',
        run: () => {
          s.transaction(() => s.audit.log(scope, 'saga_consolidate', 'saga', id, {}));
          return { audit: 'saga_consolidate', target_id: id };
        },
        compensate: () => {
          s.transaction(() => s.audit.log(scope, 'saga_compensated', 'saga', id, { step: 'audit' }));
          return { audit: 'saga_compensated' };
        },
      },
      { name: 'reindex', run: () => (s.retrieval.refresh(), { indexes: 'current' }) },
    ];
  }

  private backupSteps(): SagaStep[] {
    const s = this.stores;
    let name = '';
    return [
      { name: 'flush', run: () => (s.flush(), { flushed: true }) },
      {
        name: 'backup',
        run: async () => {
          const made = await s.backups.create('saga');
          name = made.name;
          return made;
        },
        compensate: () => ({ removed: s.backups.remove(name) ? name : null }),
      },
      { name: 'verify', run: () => (s.backups.verify(name), { verified: name }) },
      {
        name: 'audit',
        run: () => {
          s.transaction(() => s.audit.log(null, 'saga_backup', 'backup', name, {}));
          return { audit: 'saga_backup', target_id: name };
        },
        compensate: () => {
          s.transaction(() => s.audit.log(null, 'saga_compensated', 'backup', name, { step: 'audit' }));
          return { audit: 'saga_compensated' };
        },
      },
    ];
  }
}
