import { defineTool, invalid, isBlank, z } from '@memory-service/kernel';
import { COUNTERFACTUAL_ANCHOR_MAX, COUNTERFACTUAL_LIST_MAX, COUNTERFACTUAL_TEXT_MAX, type Counterfactual, type Stores } from '@memory-service/stores';
import { layerInput, scopeOf, userIdInput } from '../common.js';

const ACTIONS = ['save', 'list'] as const;

/** The fields each action takes beyond action, layer and user_id (the kernel refuses any other the call gives, naming it). */
const FIELDS = { save: ['anchor', 'premise', 'projection'], list: ['anchor', 'limit', 'offset'] } as const satisfies Record<(typeof ACTIONS)[number], readonly string[]>;

const cfSchema = z.object({ id: z.string().describe('cf_<n>'), anchor: z.string(), premise: z.string(), projection: z.string(), created: z.string() });
const cfOut = (c: Counterfactual) => ({ id: c.id, anchor: c.anchor, premise: c.premise, projection: c.projection, created: c.created });

export function memoryCounterfactualTool(stores: Stores) {
  return defineTool({
    name: 'memory_counterfactual',
    title: 'Counterfactuals (what if)',
    description:
      'Keep "what if" reasoning of the layer and user_id. action save (anchor, premise, projection): anchor is what it is about (a ' +
      'decision, an episode id, a topic; matched exactly, trimmed), premise what might have been, projection what would likely have ' +
      'followed; saving the same three again returns the saved one (created_new false). action list: the counterfactuals of anchor ' +
      '(or of every anchor without it), newest first, limit (default 50, at most 200) from offset. Returns the counterfactual (id ' +
      'cf_<n>) or the list with count and next_offset. Errors name the field: a missing or empty anchor, premise or projection for ' +
      'save, or premise or projection given to list.',
    input: () => z.object({
      action: z.enum(ACTIONS).describe('save or list'),
      anchor: z.string().max(COUNTERFACTUAL_ANCHOR_MAX).optional().describe('What the counterfactual is about (save: required; list: filter)'),
      premise: z.string().max(COUNTERFACTUAL_TEXT_MAX).optional().describe('save: what might have been'),
      projection: z.string().max(COUNTERFACTUAL_TEXT_MAX).optional().describe('save: what would likely have followed'),
      limit: z.number().int().min(1).max(COUNTERFACTUAL_LIST_MAX).optional().describe('list: most returned (default 50, at most 200)'),
      offset: z.number().int().min(0).max(1_000_000).optional().describe('list: records to skip (next_offset of the previous call)'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      action: z.enum(ACTIONS),
      counterfactual: cfSchema.optional().describe('save: the counterfactual'),
      created_new: z.boolean().optional().describe('save: false when the same one was already saved'),
      counterfactuals: z.array(cfSchema).optional().describe('list: newest first'),
      count: z.number().optional(),
      next_offset: z.number().nullable().optional().describe('list: offset of the next page; null when there are no more'),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    actionFields: FIELDS,
    handler: (args) => {
      const scope = scopeOf(args);
      if (args.action === 'save') {
        for (const f of ['anchor', 'premise', 'projection'] as const) {
          if (args[f] === undefined || isBlank(args[f])) throw invalid(f, 'is required for action save and must hold text', 'text');
        }
        const cf = stores.counterfactuals.save(scope, { anchor: args.anchor!, premise: args.premise!, projection: args.projection! });
        return { action: args.action, counterfactual: cfOut(cf), created_new: cf.created_new };
      }
      if (args.anchor !== undefined && isBlank(args.anchor)) throw invalid('anchor', 'must hold text when given', 'an anchor, or none for every anchor');
      const limit = args.limit ?? 50;
      const offset = args.offset ?? 0;
      const rows = stores.counterfactuals.list(scope, { anchor: args.anchor, limit: limit + 1, offset });
      const items = rows.slice(0, limit).map(cfOut);
      return { action: args.action, counterfactuals: items, count: items.length, next_offset: rows.length > limit ? offset + items.length : null };
    },
  });
}
