import { defineTool, z, type Clock } from '@memory-service/kernel';
import { DREAM_MARKER_TAG, type Stores } from '@memory-service/stores';
import { budgetInput, layerInput, scopeOf, userIdInput } from '../common.js';
import { dayBlock, markersBlock, MARKERS_MAX, pendingBlock, RECAP_GAP_HOURS, RECAP_LIST_MAX, render, Seen, sessionBlock } from '../services/recall-blocks.js';

export const RECAP_KINDS = ['session', 'pending', 'markers', 'day'] as const;

export const renderedBlockSchema = <K extends readonly [string, ...string[]]>(kinds: K) =>
  z.object({
    kind: z.enum(kinds),
    title: z.string(),
    text: z.string(),
    score: z.number().nullable(),
    items: z.array(z.object({ source: z.string(), id: z.string() })).describe('The records the block shows (source and id)'),
    truncated: z.boolean().describe('Cut to fit the budget'),
  });

export function memoryRecapTool(stores: Stores, clock: Clock) {
  return defineTool({
    name: 'memory_recap',
    title: 'Recap for the start of a session',
    description:
      'Where things stand in the layer and user_id, for picking work up again, within a token budget. Blocks in order: the last ' +
      'closed session (summary, topics, state deltas); pending work (the newest scratchpad notes, open gaps of the last ' +
      `${RECAP_GAP_HOURS / 24} days: dream queries that found nothing and were not answered since, and staged proposals pending, ` +
      `${RECAP_LIST_MAX} of each at most); dream markers (the ${MARKERS_MAX} newest episodes tagged ${DREAM_MARKER_TAG}, notes left ` +
      'for this session); the day digest (what was written today, by UTC day: counts and the newest facts, episodes, wiki pages and ' +
      'timeline events). Blocks with nothing are left out; the blocks are cut to the budget in that order (the first that does not ' +
      'fit is cut, the rest dropped). Returns text (Markdown), blocks (kind, title, text, items, truncated), estimated_tokens, ' +
      'truncated. Read-only: it records nothing.',
    input: () => z.object({ budget: budgetInput(stores.config.tokenBudget), layer: layerInput, user_id: userIdInput }),
    output: () => z.object({
      budget: z.number(),
      text: z.string(),
      blocks: z.array(renderedBlockSchema(RECAP_KINDS)),
      estimated_tokens: z.number(),
      truncated: z.boolean(),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: (args) => {
      const scope = scopeOf(args);
      const seen = new Seen();
      const blocks = [sessionBlock(stores, scope, seen, false), pendingBlock(stores, scope, clock.now()), markersBlock(stores, scope, seen), dayBlock(stores, scope, seen)];
      const r = render(blocks, args.budget);
      return { budget: args.budget, ...r, blocks: r.blocks.map((b) => ({ ...b, kind: b.kind as (typeof RECAP_KINDS)[number] })) };
    },
  });
}
