import { defineTool, z, type Clock, type Logger } from '@memory-service/kernel';
import type { Stores } from '@memory-service/stores';
import { budgetInput, layerInput, scopeOf, userIdInput } from '../common.js';
import { CONSOLIDATION_MIN_IMPORTANCE, Consolidator } from '@memory-service/stores';
import { contextMdSegments, renderSnapshot, writeSnapshot } from '../services/context-md.js';
import { buildContext } from '../services/context-summary.js';
import { countsSchema } from './memory-context.js';

export function memoryContextInjectTool(stores: Stores, clock: Clock, resolvePath: (...segments: string[]) => string, logger: Logger) {
  const consolidator = new Consolidator(stores, clock);
  return defineTool({
    name: 'memory_context_inject',
    title: 'Consolidate, then inject context',
    description:
      'For the start of a session. First an L3 to L4 consolidation: each of the 200 newest episodes with importance above ' +
      `${CONSOLIDATION_MIN_IMPORTANCE} whose text no fact holds becomes a fact (key episode:<first words>, never overwriting another fact; ` +
      'a second run adds nothing; each promotion is recorded with a transition_id, which memory_proposals revert_transition undoes, and a ' +
      'reverted episode is not promoted again). Then the memory_context summary (top 10 facts, recent turns, wiki, episodes) within the token budget, ' +
      'with estimated_tokens and was_truncated. Last, a three-section CONTEXT.md snapshot (core facts, recent activity, wiki ' +
      'perspectives) is written at <data_dir>/<layer>/CONTEXT.md for user_id "default", <data_dir>/<layer>/users/<user_id slug>/CONTEXT.md ' +
      'otherwise; a failed write is reported in context_md_error and context_md_path is null, the rest still answered.',
    input: () => z.object({ layer: layerInput, user_id: userIdInput, budget: budgetInput(stores.config.tokenBudget) }),
    output: () => z.object({
      layer: z.enum(['user', 'agent']),
      user_id: z.string(),
      budget: z.number(),
      summary: z.string(),
      counts: countsSchema,
      estimated_tokens: z.number(),
      was_truncated: z.boolean(),
      consolidated_episodes: z.number(),
      consolidated: z.array(
        z.object({
          episode_id: z.string(),
          key: z.string(),
          entry_id: z.string(),
          transition_id: z.string().describe('The promotion in memory_transitions (tr_<n>): memory_proposals revert_transition undoes it'),
        }),
      ),
      last_consolidation_ts: z.string().describe('ISO time of the consolidation this call ran'),
      context_md_path: z.string().nullable().describe('Relative to the data dir; null when the write failed'),
      context_md_error: z.string().optional(),
      perspectives_count: z.number().describe("Wiki perspectives of this layer with pages, listed in the snapshot"),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: (args) => {
      const scope = scopeOf(args);
      const run = consolidator.consolidate(scope);
      const c = buildContext(stores, scope, args.budget);
      const snap = renderSnapshot(stores, scope, run.ts);
      const segments = contextMdSegments(scope);
      let error: string | null;
      try {
        error = writeSnapshot(resolvePath(...segments), segments.join('/'), snap.markdown, logger);
      } catch (err) {
        // resolvePath refusing a path outside the data dir: reported the same way.
        error = (err as Error).message;
      }
      return {
        layer: args.layer,
        user_id: args.user_id,
        budget: args.budget,
        summary: c.summary,
        counts: c.counts,
        estimated_tokens: c.estimated_tokens,
        was_truncated: c.truncated,
        consolidated_episodes: run.consolidated.length,
        consolidated: run.consolidated,
        last_consolidation_ts: run.ts,
        context_md_path: error === null ? segments.join('/') : null,
        ...(error !== null ? { context_md_error: error } : {}),
        perspectives_count: snap.perspectives_count,
      };
    },
  });
}
