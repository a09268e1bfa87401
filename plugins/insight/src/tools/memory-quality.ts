import { defineTool, z } from '@memory-service/kernel';
import { FACT_PREFIX, FEEDBACK_STEP, QUALITY_REPORT_DEFAULT, QUALITY_REPORT_MAX, validationError, type Stores } from '@memory-service/stores';
import { checkId, layerInput, limitInput, offsetInput, scopeOf, userIdInput } from '../common.js';

export const QUALITY_ACTIONS = ['feedback', 'report'] as const;

/** The fields each action takes beyond action, layer and user_id (the kernel refuses any other the call gives, naming it). */
const QUALITY_FIELDS = { feedback: ['entry_id', 'useful'], report: ['limit', 'offset'] } as const satisfies Record<(typeof QUALITY_ACTIONS)[number], readonly string[]>;

export function memoryQualityTool(stores: Stores) {
  return defineTool({
    name: 'memory_quality',
    title: 'Feedback on recalled facts',
    description:
      'Tell the memory whether a recalled core fact (L4) of the layer and user_id was useful, and see what feedback facts got. action ' +
      `feedback: entry_id (fact_<n>, as dream, memory_search and memory_query report it) and useful (boolean). useful adds ${FEEDBACK_STEP} to the ` +
      `fact's importance (at most 1.0), not useful subtracts ${FEEDBACK_STEP} (at least 0.05); each change is logged as agent_feedback in ` +
      'importance_audit (see memory_fact_blame) and each feedback as a recall_useful or recall_not_useful audit row. Returns entry_id, key, ' +
      'old_importance, importance and changed (false at the cap or floor). action report: per fact with feedback, its useful and ' +
      `not_useful counts and current importance, most useful first (limit default ${QUALITY_REPORT_DEFAULT}, at most ${QUALITY_REPORT_MAX}, offset), ` +
      'with total facts and summed counts. A malformed or unknown entry_id (or one of another layer or user_id) is an error naming entry_id.',
    input: () => z.object({
      action: z.enum(QUALITY_ACTIONS).describe('feedback or report'),
      entry_id: z.string().min(1).max(100).optional().describe('feedback: the fact entry id, e.g. fact_12'),
      useful: z.boolean().optional().describe('feedback: true when the fact helped, false when it did not'),
      limit: limitInput(QUALITY_REPORT_DEFAULT, QUALITY_REPORT_MAX),
      offset: offsetInput,
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      action: z.enum(QUALITY_ACTIONS),
      entry_id: z.string().optional(),
      key: z.string().optional(),
      useful: z.boolean().optional(),
      old_importance: z.number().optional(),
      importance: z.number().optional(),
      changed: z.boolean().optional().describe('feedback: false when the importance was already at the cap or floor'),
      entries: z
        .array(z.object({ entry_id: z.string(), key: z.string(), importance: z.number(), useful: z.number(), not_useful: z.number(), last_feedback: z.string() }))
        .optional()
        .describe('report: facts with feedback, most useful first'),
      total: z.number().optional().describe('report: facts with feedback'),
      useful_total: z.number().optional(),
      not_useful_total: z.number().optional(),
      next_offset: z.number().nullable().optional(),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    actionFields: QUALITY_FIELDS,
    handler: (args) => {
      const scope = scopeOf(args);
      if (args.action === 'feedback') {
        if (args.entry_id === undefined) throw validationError('entry_id', 'action feedback needs entry_id', `${FACT_PREFIX}_<number>`);
        if (args.useful === undefined) throw validationError('useful', 'action feedback needs useful (true or false)', [true, false]);
        const id = args.entry_id.trim();
        checkId(id, FACT_PREFIX, 'entry_id');
        return { action: args.action, ...stores.quality.feedback(scope, id, args.useful) };
      }
      const r = stores.quality.report(scope, { limit: args.limit, offset: args.offset });
      const end = args.offset + r.entries.length;
      return {
        action: args.action,
        entries: r.entries,
        total: r.total,
        useful_total: r.useful,
        not_useful_total: r.not_useful,
        next_offset: r.entries.length > 0 && end < r.total ? end : null,
      };
    },
  });
}
