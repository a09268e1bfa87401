import { defineTool, invalid, isBlank, z } from '@memory-service/kernel';
import { RECALL_CACHE_TTL_MS, RECALL_DEFAULT_LIMIT, RECALL_MAX_LIMIT, type Stores } from '@memory-service/stores';
import { layerInput, limitInput, READ_ONLY, scopeOf, userIdInput } from '../common.js';
import { hitOut, hitSchema } from '../search-common.js';

export function memoryRecallTool(stores: Stores) {
  return defineTool({
    name: 'memory_recall',
    title: 'Recall episodes and facts (cached)',
    description:
      'Recall the episodes (L3) and core facts (L4) of the layer and user_id that best match query, ranked as dream ranks them ' +
      `(balanced), each memory once as dream answers it (a hit whose text stands whole in a better-ranked one is left out). Answers are cached per layer, user_id, query and limit for ${RECALL_CACHE_TTL_MS / 1000} s, and dropped at once by any write ` +
      'to the episodes or facts of that layer and user_id or by a memory_backup restore, so a repeated recall is cheap and never stale. Returns hits (source, id, score, ' +
      `title, text, explain), count, cached (true when served from the cache), computed_at and expires_at. limit default ${RECALL_DEFAULT_LIMIT}, ` +
      `at most ${RECALL_MAX_LIMIT}. A read: it records no access counts and no recall telemetry. A blank query is an error naming query.`,
    input: () => z.object({
      query: z.string().min(1).max(2000).describe('Words to recall'),
      limit: limitInput(RECALL_DEFAULT_LIMIT, RECALL_MAX_LIMIT),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      hits: z.array(hitSchema),
      count: z.number(),
      cached: z.boolean().describe('True when the answer came from the cache'),
      computed_at: z.string().describe('When the answer was computed'),
      expires_at: z.string().describe('When it stops being served from the cache (earlier if the scope is written)'),
    }),
    annotations: READ_ONLY,
    handler: (args) => {
      if (isBlank(args.query)) throw invalid('query', 'must not be empty or only white space and invisible characters', 'text with a visible character');
      const r = stores.recall.recall(scopeOf(args), args.query, args.limit);
      return { hits: r.hits.map(hitOut), count: r.hits.length, cached: r.cached, computed_at: r.computed_at, expires_at: r.expires_at };
    },
  });
}
