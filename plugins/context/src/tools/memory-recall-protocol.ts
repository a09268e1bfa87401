import { defineTool, isBlank, z } from '@memory-service/kernel';
import { DISCLOSURE_MATCH_SCORE, DREAM_MARKER_TAG, type Stores } from '@memory-service/stores';
import { budgetInput, layerInput, scopeOf, userIdInput } from '../common.js';
import {
  dayBlock,
  expandBlock,
  EXPAND_MAX,
  markersBlock,
  MARKERS_MAX,
  render,
  Seen,
  semanticBlock,
  semanticHits,
  SEMANTIC_LIMIT,
  sessionBlock,
  triggeredBlock,
  type Block,
} from '../services/recall-blocks.js';
import { renderedBlockSchema } from './memory-recap.js';

export const RECALL_AXES = ['markers', 'session', 'semantic', 'expand', 'day'] as const;
const BLOCK_KINDS = ['triggered', ...RECALL_AXES] as const;

export function memoryRecallProtocolTool(stores: Stores) {
  return defineTool({
    name: 'memory_recall_protocol',
    title: 'Recall protocol',
    description:
      'A fixed recall routine over the layer and user_id within a token budget (default 2000). Axes in order: markers (the ' +
      `${MARKERS_MAX} newest episodes tagged ${DREAM_MARKER_TAG}), session (the last closed session: summary, topics, state deltas; and ` +
      `the open one), semantic (dream's hybrid retrieval for the query, ${SEMANTIC_LIMIT} distinct memories as dream answers them), expand (what lies around those hits: the ` +
      'episodes just before and after, the episode a fact was promoted from, linked wiki pages, graph neighbours; ' +
      `${EXPAND_MAX} at most), day (today's activity: counts and the newest facts, episodes, wiki pages, timeline events). An empty ` +
      'query runs only markers and day; a query runs all five. A record appears once, in the first axis that finds it, and so does a memory: ' +
      'an episode, fact or graph node whose whole text stands in one shown before (a fact whose node semantic showed) is left out. Enabled ' +
      `disclosure rules (memory_disclose) whose keywords the query holds come first, as a triggered block with score ${DISCLOSURE_MATCH_SCORE}. ` +
      'Blocks with nothing are left out; the blocks are cut to the budget in order. Returns query, axes (those run), text (Markdown), ' +
      'blocks (kind, title, text, score, items, truncated), estimated_tokens, truncated. Read-only: unlike dream it records no ' +
      'recall_events row and no access counts.',
    input: () => z.object({
      query: z.string().max(4000).default('').describe('What to recall; empty runs only the markers and day axes'),
      budget: budgetInput(stores.config.tokenBudget),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      query: z.string(),
      budget: z.number(),
      axes: z.array(z.enum(RECALL_AXES)).describe('The axes run, in order'),
      text: z.string(),
      blocks: z.array(renderedBlockSchema(BLOCK_KINDS)),
      estimated_tokens: z.number(),
      truncated: z.boolean(),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: (args) => {
      const scope = scopeOf(args);
      const seen = new Seen();
      const full = !isBlank(args.query);
      const blocks: Block[] = [triggeredBlock(stores, scope, args.query), markersBlock(stores, scope, seen)];
      if (full) {
        blocks.push(sessionBlock(stores, scope, seen, true));
        const hits = semanticHits(stores, scope, args.query);
        blocks.push(semanticBlock(hits, seen), expandBlock(stores, scope, hits, seen));
      }
      blocks.push(dayBlock(stores, scope, seen));
      const r = render(blocks, args.budget);
      return {
        query: args.query,
        budget: args.budget,
        axes: full ? [...RECALL_AXES] : (['markers', 'day'] as (typeof RECALL_AXES)[number][]),
        ...r,
        blocks: r.blocks.map((b) => ({ ...b, kind: b.kind as (typeof BLOCK_KINDS)[number] })),
      };
    },
  });
}
