import type { StoreContext } from './context.js';
import { notFound, validationError } from './errors.js';
import { recordName } from './record-name.js';
import type { Scope } from './types.js';
import { checkScope, checkText, clamp, parseJson } from './util.js';

/** The most steps of one procedure. */
export const PROCEDURE_STEPS_MAX = 50;
/** The longest step, description or trigger, in characters. */
export const PROCEDURE_TEXT_MAX = 1000;
/** The longest run note, in characters. */
export const PROCEDURE_NOTE_MAX = 1000;
export const PROCEDURE_OUTCOMES = ['success', 'failure'] as const;
export type ProcedureOutcome = (typeof PROCEDURE_OUTCOMES)[number];

export interface ProcedureInfo {
  name: string;
  description: string;
  trigger: string;
  step_count: number;
  successes: number;
  failures: number;
  /** successes / (successes + failures), rounded to 4 decimals; null before the first recorded run. */
  success_rate: number | null;
  last_run: string | null;
  last_outcome: ProcedureOutcome | null;
  last_note: string | null;
  created: string;
  updated: string;
}

export interface Procedure extends ProcedureInfo {
  steps: string[];
}

export interface ProcedureSaveInput {
  steps: string[];
  description?: string;
  trigger?: string;
}

interface Row {
  name: string;
  description: string;
  trigger: string;
  steps: string;
  successes: number;
  failures: number;
  last_run: string | null;
  last_outcome: ProcedureOutcome | null;
  last_note: string | null;
  created: string;
  updated: string;
}

function toProcedure(r: Row): Procedure {
  const steps = parseJson<string[]>(r.steps, []);
  const runs = r.successes + r.failures;
  return {
    name: r.name,
    description: r.description,
    trigger: r.trigger,
    step_count: steps.length,
    successes: r.successes,
    failures: r.failures,
    success_rate: runs === 0 ? null : Math.round((r.successes / runs) * 10_000) / 10_000,
    last_run: r.last_run,
    last_outcome: r.last_outcome,
    last_note: r.last_note,
    created: r.created,
    updated: r.updated,
    steps,
  };
}

/**
 * memory_procedure: procedural memory, named step lists of a scope (how to do a task), with an
 * optional description and trigger (when to use it), and the outcomes of its recorded runs.
 */
export class ProcedureStore {
  constructor(private readonly ctx: StoreContext) {}

  /** Add a procedure or replace the steps (and given description/trigger) of the one with this name; its run counts stay. */
  save(scope: Scope, rawName: unknown, input: ProcedureSaveInput): Procedure & { created_new: boolean } {
    checkScope(scope);
    const name = recordName(rawName);
    if (!Array.isArray(input.steps) || input.steps.length === 0 || input.steps.length > PROCEDURE_STEPS_MAX) {
      throw validationError('steps', `steps must be a list of 1 to ${PROCEDURE_STEPS_MAX} step texts`, { min_items: 1, max_items: PROCEDURE_STEPS_MAX });
    }
    const steps = input.steps.map((s, i) => checkText(s, `steps.${i}`, PROCEDURE_TEXT_MAX).trim());
    const description = input.description === undefined ? undefined : checkText(input.description, 'description', PROCEDURE_TEXT_MAX, true).trim();
    const trigger = input.trigger === undefined ? undefined : checkText(input.trigger, 'trigger', PROCEDURE_TEXT_MAX, true).trim();
    return this.ctx.tx(() => {
      const before = this.get(scope, name);
      const now = this.ctx.iso();
      if (before) {
        this.ctx
          .stmt('UPDATE procedures SET steps = ?, description = ?, trigger = ?, updated = ? WHERE layer = ? AND user_id = ? AND name = ?')
          .run(JSON.stringify(steps), description ?? before.description, trigger ?? before.trigger, now, scope.layer, scope.user_id, name);
      } else {
        this.ctx
          .stmt('INSERT INTO procedures (layer, user_id, name, description, trigger, steps, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
          .run(scope.layer, scope.user_id, name, description ?? '', trigger ?? '', JSON.stringify(steps), now, now);
      }
      return { ...(this.get(scope, name) as Procedure), created_new: !before };
    });
  }

  get(scope: Scope, name: string): Procedure | null {
    checkScope(scope);
    const r = this.ctx.stmt('SELECT * FROM procedures WHERE layer = ? AND user_id = ? AND name = ?').get(scope.layer, scope.user_id, name) as Row | undefined;
    return r ? toProcedure(r) : null;
  }

  /** A procedure by name, or an error naming name. */
  need(scope: Scope, rawName: unknown): Procedure {
    const name = recordName(rawName);
    const p = this.get(scope, name);
    if (!p) throw notFound(`procedure of layer ${scope.layer}, user_id ${JSON.stringify(scope.user_id)}`, JSON.stringify(name), 'name');
    return p;
  }

  /** The scope's procedures by name (without steps), a page of `limit` from `offset`, with the total. */
  list(scope: Scope, limit = 50, offset = 0): { procedures: ProcedureInfo[]; total: number } {
    checkScope(scope);
    const total = this.ctx.stmt('SELECT COUNT(*) FROM procedures WHERE layer = ? AND user_id = ?').pluck(true).get(scope.layer, scope.user_id) as number;
    const rows = this.ctx
      .stmt('SELECT * FROM procedures WHERE layer = ? AND user_id = ? ORDER BY name LIMIT ? OFFSET ?')
      .all(scope.layer, scope.user_id, clamp(Math.floor(limit), 0, 10_000), Math.max(0, Math.floor(offset))) as Row[];
    return {
      procedures: rows.map((r) => {
        const { steps: _steps, ...info } = toProcedure(r);
        return info;
      }),
      total,
    };
  }

  /** Every procedure of the scope with its steps, by name (memory_data export). */
  all(scope: Scope): Procedure[] {
    checkScope(scope);
    return (this.ctx.stmt('SELECT * FROM procedures WHERE layer = ? AND user_id = ? ORDER BY name').all(scope.layer, scope.user_id) as Row[]).map(toProcedure);
  }

  /**
   * Add a procedure as save() does, then give it the run counts, last run and times the record
   * holds (memory_data import). A name the scope holds already is left as it is: false.
   */
  restore(
    scope: Scope,
    p: Pick<Procedure, 'name' | 'description' | 'trigger' | 'steps' | 'successes' | 'failures' | 'last_run' | 'last_outcome' | 'last_note' | 'created' | 'updated'>,
  ): boolean {
    return this.ctx.tx(() => {
      if (this.get(scope, recordName(p.name))) return false;
      const saved = this.save(scope, p.name, { steps: p.steps, description: p.description, trigger: p.trigger });
      this.ctx
        .stmt('UPDATE procedures SET successes = ?, failures = ?, last_run = ?, last_outcome = ?, last_note = ?, created = ?, updated = ? WHERE layer = ? AND user_id = ? AND name = ?')
        .run(p.successes, p.failures, p.last_run, p.last_outcome, p.last_note, p.created, p.updated, scope.layer, scope.user_id, saved.name);
      return true;
    });
  }

  /** Delete the scope's procedures created at or after the ISO time (forget recent, memory_lucidity_purge); returns how many. */
  deleteSince(scope: Scope, sinceIso: string): number {
    return this.ctx.deleteScoped('procedures', scope, sinceIso);
  }

  /** Delete every procedure of the scope (memory_data import replace); returns how many. */
  clear(scope: Scope): number {
    return this.ctx.deleteScoped('procedures', scope);
  }

  /** Count one run of the procedure with its outcome (and an optional note, kept as the last note). */
  record(scope: Scope, rawName: unknown, outcome: ProcedureOutcome, note?: string): Procedure {
    checkScope(scope);
    if (!PROCEDURE_OUTCOMES.includes(outcome)) throw validationError('outcome', `outcome must be one of ${PROCEDURE_OUTCOMES.join(', ')}`, PROCEDURE_OUTCOMES);
    const text = note === undefined ? null : checkText(note, 'note', PROCEDURE_NOTE_MAX, true).trim() || null;
    return this.ctx.tx(() => {
      const p = this.need(scope, rawName);
      const col = outcome === 'success' ? 'successes' : 'failures';
      this.ctx
        .stmt(`UPDATE procedures SET ${col} = ${col} + 1, last_run = ?, last_outcome = ?, last_note = ? WHERE layer = ? AND user_id = ? AND name = ?`)
        .run(this.ctx.iso(), outcome, text, scope.layer, scope.user_id, p.name);
      return this.get(scope, p.name) as Procedure;
    });
  }

  delete(scope: Scope, rawName: unknown): Procedure {
    checkScope(scope);
    return this.ctx.tx(() => {
      const p = this.need(scope, rawName);
      this.ctx.stmt('DELETE FROM procedures WHERE layer = ? AND user_id = ? AND name = ?').run(scope.layer, scope.user_id, p.name);
      return p;
    });
  }
}
