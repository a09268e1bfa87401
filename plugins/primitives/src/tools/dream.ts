import { defineTool, z, type Config } from '@memory-service/kernel';
import { hitSchema, layerInput, userIdInput } from '../common.js';
import type { Dreamer } from '../services/dreamer.js';

export function dreamTool(dreamer: Dreamer, config: Config) {
  return defineTool({
    name: 'dream',
    title: 'Dream (recall memories)',
    description:
      'Recall memories relevant to a query: hybrid full-text search (stemmed, BM25; a word no memory holds matches close spellings, a typo or two) over episodes (L3), core facts (L4), ' +
      'wiki pages and graph nodes, fused with importance, recency and access. intent recent favours new memories and puts ' +
      'the latest 5 timeline events first; core favours important facts; balanced (default) lets relevance lead. Each memory is ' +
      'answered once (a hit whose text stands inside a better-ranked one, as the node memory_remember makes of a fact, is left out, ' +
      'and so is the service\'s other copy of one memory whichever ranks first, as an auto-save\'s episode and its auto: fact; limit is still filled). ' +
      'Returns a Markdown summary cut to the token budget, one section per hit headed by its source, title and id (or id), ' +
      'date and score. With hits: true (and when not one hit fits the budget), also the ranked hits as a list for programs ' +
      '(source, id, score, title, created); explain: true adds them with the weighted parts of each score.',
    input: () => z.object({
      query: z.string().min(1).max(4000).describe('What to recall, in natural language or keywords'),
      limit: z.number().int().min(1).max(200).nullable().optional().describe('Number of hits; default from config retrieval.default_limit (10)'),
      layer: layerInput,
      user_id: userIdInput,
      intent: z.enum(['recent', 'core', 'balanced']).default('balanced').describe('Ranking bias'),
      hits: z.boolean().default(false).describe('Add the ranked hits as a list (source, id, score, title, created); the summary headings already name each one'),
      explain: z.boolean().default(false).describe('Add the hits list with the weighted parts of each score (bm25, importance, recency, access)'),
    }),
    output: () => z.object({
      summary: z.string(),
      truncated: z.boolean(),
      result_count: z.number(),
      estimated_tokens: z.number(),
      hits: z.array(hitSchema).optional(),
      recent_events: z.array(z.object({ id: z.string(), type: z.string(), summary: z.string(), created: z.string() })).optional(),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    handler: (args) =>
      dreamer.dream({
        query: args.query,
        limit: args.limit ?? config.integer('retrieval.default_limit', 10, 1, 200),
        layer: args.layer,
        user_id: args.user_id,
        intent: args.intent,
        hits: args.hits,
        explain: args.explain,
      }),
  });
}
