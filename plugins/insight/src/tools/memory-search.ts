import { defineTool, invalid, isBlank, z } from '@memory-service/kernel';
import { SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT, SEARCH_SOURCES, SEARCH_STRATEGIES, searchDistinct, strategyOptions, type Stores } from '@memory-service/stores';
import { layerInput, limitInput, READ_ONLY, scopeOf, userIdInput } from '../common.js';
import { hitOut, hitSchema } from '../search-common.js';

export function memorySearchTool(stores: Stores) {
  return defineTool({
    name: 'memory_search',
    title: 'Search memory with a strategy',
    description:
      'Search the layer and user_id across episodes (l3), core facts (l4), wiki pages (wiki) and graph nodes (graph), or the sources ' +
      'chosen, with the same ranking as dream, weighted by strategy: hybrid (default: text relevance first, importance, recency and ' +
      'access breaking near-ties), keyword (text relevance alone), recent (recency weighs as much as relevance), core (importance weighs ' +
      `almost as much as relevance). A hit whose whole text stands in a better-ranked one's (the graph node memory_remember makes of a fact), or that is the service's other copy of one memory (an auto-save's episode and its auto: fact), is left out, as in dream. Returns at most limit hits (default ${SEARCH_DEFAULT_LIMIT}, at most ${SEARCH_MAX_LIMIT}), best first, each with ` +
      'source, id, score, title, text and explain: the weighted parts of the score (bm25, importance, recency, access, summing to fused) ' +
      'and the raw signals. A read: it records no access counts and no recall telemetry (dream does). A blank query, an unknown ' +
      'strategy or source is an error naming the field.',
    input: () => z.object({
      query: z.string().min(1).max(2000).describe('Words to search for'),
      strategy: z.enum(SEARCH_STRATEGIES).default('hybrid').describe('hybrid, keyword, recent or core'),
      sources: z
        .array(z.enum(SEARCH_SOURCES))
        .min(1)
        .max(SEARCH_SOURCES.length)
        .optional()
        .describe(`Sources searched, among ${SEARCH_SOURCES.join(', ')}; default all`),
      limit: limitInput(SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      query: z.string(),
      strategy: z.enum(SEARCH_STRATEGIES),
      sources: z.array(z.enum(SEARCH_SOURCES)),
      hits: z.array(hitSchema),
      count: z.number(),
    }),
    annotations: READ_ONLY,
    handler: (args) => {
      if (isBlank(args.query)) throw invalid('query', 'must not be empty or only white space and invisible characters', 'text with a visible character');
      const sources = args.sources ? SEARCH_SOURCES.filter((s) => args.sources!.includes(s)) : [...SEARCH_SOURCES];
      // Distinct memories, as dream answers them: a hit whose text stands in a better one's (memory_remember's node of its fact) is left out.
      const hits = searchDistinct(stores.retrieval, scopeOf(args), args.query, args.limit, { sources, ...strategyOptions(args.strategy) });
      return { query: args.query, strategy: args.strategy, sources, hits: hits.map(hitOut), count: hits.length };
    },
  });
}
