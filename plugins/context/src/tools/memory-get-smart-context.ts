import { defineTool, z, type Clock } from '@memory-service/kernel';
import type { Stores } from '@memory-service/stores';
import { budgetInput, layerInput, scopeOf, userIdInput } from '../common.js';
import { SMART_SOURCES, SMART_WEIGHTS, SmartContextBuilder } from '../services/smart-context.js';

const allocationSchema = z.object({
  weight: z.number(),
  floor: z.number(),
  ceiling: z.number(),
  demand: z.number(),
  allocated: z.number(),
  used: z.number(),
});

export function memoryGetSmartContextTool(stores: Stores, clock: Clock) {
  const builder = new SmartContextBuilder(stores, clock);
  return defineTool({
    name: 'memory_get_smart_context',
    title: 'Smart context within a token budget',
    description:
      'Context from five sources sharing one token budget by weight (' +
      SMART_SOURCES.map((s) => `${s} ${SMART_WEIGHTS[s]}%`).join(', ') +
      '): important = core facts by importance; relevant = dream\'s hybrid search for the query (empty without one); recent = ' +
      'the newest L1 turns; day = today\'s timeline events (UTC); ops = the open session, scratchpad notes and active projects. ' +
      'Each source first gets up to its floor (budget x weight); what sources do not need is redistributed by weight to the ' +
      'others, none above twice its floor. Read-only. Returns blocks (source, title, text, items, tokens, truncated) and ' +
      'per-source allocations (weight, floor, ceiling, demand, allocated, used), total_tokens.',
    input: () => z.object({
      query: z.string().max(4000).default('').describe('What the context is for; empty leaves the relevant source empty'),
      layer: layerInput,
      user_id: userIdInput,
      budget: budgetInput(stores.config.tokenBudget),
    }),
    output: () => z.object({
      budget: z.number(),
      query: z.string(),
      blocks: z.array(
        z.object({ source: z.enum(SMART_SOURCES), title: z.string(), text: z.string(), items: z.number(), tokens: z.number(), truncated: z.boolean() }),
      ),
      allocations: z.object(Object.fromEntries(SMART_SOURCES.map((s) => [s, allocationSchema])) as Record<(typeof SMART_SOURCES)[number], typeof allocationSchema>),
      total_tokens: z.number(),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: (args) => builder.build(scopeOf(args), args.query, args.budget),
  });
}
