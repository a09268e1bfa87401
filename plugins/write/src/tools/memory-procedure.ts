import { defineTool, z } from '@memory-service/kernel';
import {
  PROCEDURE_NOTE_MAX,
  PROCEDURE_OUTCOMES,
  PROCEDURE_STEPS_MAX,
  PROCEDURE_TEXT_MAX,
  RECORD_NAME_MAX,
  validationError,
  type Stores,
} from '@memory-service/stores';
import { layerInput, scopeOf, userIdInput } from '../common.js';

const ACTIONS = ['save', 'get', 'list', 'record', 'delete'] as const;

/** The fields each action takes beyond action, layer and user_id (the kernel refuses any other the call gives, naming it). */
const FIELDS = {
  save: ['name', 'steps', 'description', 'trigger'],
  get: ['name'],
  list: ['limit', 'offset'],
  record: ['name', 'outcome', 'note'],
  delete: ['name'],
} as const satisfies Record<(typeof ACTIONS)[number], readonly string[]>;

const infoShape = {
  name: z.string().describe('The stored (slugged) name'),
  description: z.string(),
  trigger: z.string().describe('When to use it'),
  step_count: z.number(),
  successes: z.number(),
  failures: z.number(),
  success_rate: z.number().nullable().describe('successes / runs; null before the first recorded run'),
  last_run: z.string().nullable(),
  last_outcome: z.enum(PROCEDURE_OUTCOMES).nullable(),
  last_note: z.string().nullable(),
  created: z.string(),
  updated: z.string(),
};
const infoSchema = z.object(infoShape);
const procedureSchema = z.object({ ...infoShape, steps: z.array(z.string()) });

export function memoryProcedureTool(stores: Stores) {
  return defineTool({
    name: 'memory_procedure',
    title: 'Procedural memory',
    description:
      'Procedural memory of the layer and user_id: named step lists (how to do a task) with their run outcomes. ' +
      `action save (name, steps: 1-${PROCEDURE_STEPS_MAX} texts, optional description and trigger): adds the procedure or replaces ` +
      'its steps (and the description/trigger given), keeping its run counts. get (name): the procedure with its steps. list (limit, ' +
      'offset): the procedures by name, without steps. record (name, outcome success or failure, optional note): counts one run and ' +
      'keeps its time, outcome and note as the last run. delete (name). Returns the procedure (name, description, trigger, steps, ' +
      'step_count, successes, failures, success_rate, last_run, last_outcome, last_note). Names are slugged ("Deploy App" is ' +
      `deploy-app), 1-${RECORD_NAME_MAX} characters holding a letter or digit. Errors name the field: name (invalid or unknown), steps, ` +
      'steps.<i> (an empty or too long step), outcome, note, description, trigger.',
    input: () => z.object({
      action: z.enum(ACTIONS).describe('save, get, list, record or delete'),
      name: z.string().min(1).max(RECORD_NAME_MAX).optional().describe('The procedure (every action but list)'),
      steps: z.array(z.string().max(PROCEDURE_TEXT_MAX)).min(1).max(PROCEDURE_STEPS_MAX).optional().describe('save: the steps in order'),
      description: z.string().max(PROCEDURE_TEXT_MAX).optional().describe('save: what it does'),
      trigger: z.string().max(PROCEDURE_TEXT_MAX).optional().describe('save: when to use it'),
      outcome: z.enum(PROCEDURE_OUTCOMES).optional().describe('record: how the run went'),
      note: z.string().max(PROCEDURE_NOTE_MAX).optional().describe('record: what happened'),
      limit: z.number().int().min(1).max(200).default(50).describe('list: most procedures returned (default 50, at most 200)'),
      offset: z.number().int().min(0).max(1_000_000).default(0).describe('list: procedures to skip'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      action: z.enum(ACTIONS),
      procedure: procedureSchema.optional().describe('save/get/record/delete'),
      created_new: z.boolean().optional().describe('save: whether the name was new'),
      procedures: z.array(infoSchema).optional().describe('list'),
      total: z.number().optional().describe('list: procedures of the layer and user_id'),
      next_offset: z.number().nullable().optional().describe('list: offset of the next page; null when there are no more'),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    actionFields: FIELDS,
    handler: (args) => {
      const scope = scopeOf(args);
      const p = stores.procedures;
      if (args.action === 'list') {
        const { procedures, total } = p.list(scope, args.limit, args.offset);
        const next = args.offset + procedures.length;
        return { action: 'list' as const, procedures, total, next_offset: next < total ? next : null };
      }
      if (args.name === undefined) throw validationError('name', `name is required for action ${args.action}`, 'a procedure name');
      switch (args.action) {
        case 'save': {
          if (args.steps === undefined) throw validationError('steps', `steps is required for action save: a list of 1 to ${PROCEDURE_STEPS_MAX} step texts`, { min_items: 1, max_items: PROCEDURE_STEPS_MAX });
          const { created_new, ...procedure } = p.save(scope, args.name, { steps: args.steps, description: args.description, trigger: args.trigger });
          return { action: 'save' as const, procedure, created_new };
        }
        case 'get':
          return { action: 'get' as const, procedure: p.need(scope, args.name) };
        case 'record':
          if (args.outcome === undefined) throw validationError('outcome', `outcome is required for action record: one of ${PROCEDURE_OUTCOMES.join(', ')}`, PROCEDURE_OUTCOMES);
          return { action: 'record' as const, procedure: p.record(scope, args.name, args.outcome, args.note) };
        case 'delete':
          return { action: 'delete' as const, procedure: p.delete(scope, args.name) };
      }
    },
  });
}
