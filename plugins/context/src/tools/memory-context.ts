import { defineTool, z } from '@memory-service/kernel';
import type { Stores } from '@memory-service/stores';
import { budgetInput, layerInput, scopeOf, userIdInput } from '../common.js';
import { buildContext, CONTEXT_EPISODES, CONTEXT_FACTS, CONTEXT_TURNS, CONTEXT_WIKI } from '../services/context-summary.js';

export const countsSchema = z.object({ facts: z.number(), turns: z.number(), wiki: z.number(), episodes: z.number() });

export function memoryContextTool(stores: Stores) {
  return defineTool({
    name: 'memory_context',
    title: 'Context summary',
    description:
      `A compact Markdown summary of what memory holds for the layer and user_id: the top ${CONTEXT_FACTS} core facts by importance, ` +
      `the ${CONTEXT_TURNS} most recent turns (L1), the ${CONTEXT_WIKI} most recently updated wiki pages and the ${CONTEXT_EPISODES} newest ` +
      'episodes not already shown as a turn, in that order, whole lines only, cut at the token budget. Read-only; ' +
      'memory_context_inject does the same after consolidating and also writes CONTEXT.md. Returns layer, user_id, budget, ' +
      'summary and counts (lines of each part in the summary).',
    input: () => z.object({ layer: layerInput, user_id: userIdInput, budget: budgetInput(stores.config.tokenBudget) }),
    output: () => z.object({ layer: z.enum(['user', 'agent']), user_id: z.string(), budget: z.number(), summary: z.string(), counts: countsSchema }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: (args) => {
      const c = buildContext(stores, scopeOf(args), args.budget);
      return { layer: args.layer, user_id: args.user_id, budget: args.budget, summary: c.summary, counts: c.counts };
    },
  });
}
