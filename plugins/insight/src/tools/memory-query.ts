import { defineTool, z } from '@memory-service/kernel';
import { isoBoundDescription, MEMORY_QUERY_DEFAULT_LIMIT, MEMORY_QUERY_LIKE_MAX, MEMORY_QUERY_MAX_LIMIT, MEMORY_QUERY_TARGETS, type DateOnly, type Stores } from '@memory-service/stores';
import { episodeOut, episodeSchema, layerInput, limitInput, offsetInput, pagingOutput, READ_ONLY, scopeOf, tagFilterInput, userIdInput } from '../common.js';
import { factOut, factSchema } from '../fact-common.js';

const importance = (what: string) => z.number().min(0).max(1).optional().describe(`${what} importance, 0 to 1, bound included`);
const timestamp = (what: string, dateOnly: DateOnly) => z.string().max(100).optional().describe(isoBoundDescription(what, dateOnly));
const substring = (what: string) => z.string().min(1).max(MEMORY_QUERY_LIKE_MAX).optional().describe(`A plain substring of the ${what}, ignoring ASCII case (% and _ are literal, not wildcards)`);

export function memoryQueryTool(stores: Stores) {
  return defineTool({
    name: 'memory_query',
    title: 'Filter core memory or episodes',
    description:
      'Read the records of the layer and user_id that match every filter given (none: all), from core memory (target core: L4 facts) ' +
      'or episodes (target episodes: L3). Filters: importance_min / importance_max (0 to 1); content_like, a plain substring of the ' +
      "fact's value or the episode's summary; key_like, a plain substring of the fact's key (core only); created_since / created_until, " +
      'ISO 8601 times, bounds included (a date alone as created_until includes that day); tag, episodes only, faceted ("dimension:value"; a plain tag is its own dimension: tags of one dimension match any ' +
      'of them, different dimensions all). Substrings ignore ASCII case and are not patterns: % and _ match themselves. Newest created ' +
      `first, limit (default ${MEMORY_QUERY_DEFAULT_LIMIT}, at most ${MEMORY_QUERY_MAX_LIMIT}) from offset. Returns facts (entry_id, key, ` +
      'value, importance, source, metadata, created, updated) or episodes (id, summary, emotional_weight, importance, tags, created), ' +
      'the other list empty, with count, total (all matching) and next_offset. A read: it records no access. Use dream to search by meaning.',
    input: () => z.object({
      target: z.enum(MEMORY_QUERY_TARGETS).default('core').describe('core (L4 facts, default) or episodes (L3)'),
      importance_min: importance('Lowest'),
      importance_max: importance('Highest'),
      key_like: substring('key (target core only)'),
      content_like: substring('value (core) or summary (episodes)'),
      created_since: timestamp('Created at or after', 'start'),
      created_until: timestamp('Created at or before', 'end'),
      tag: tagFilterInput.describe('Target episodes only. Faceted tags: same dimension any of, different dimensions all of'),
      limit: limitInput(MEMORY_QUERY_DEFAULT_LIMIT, MEMORY_QUERY_MAX_LIMIT),
      offset: offsetInput,
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      target: z.enum(MEMORY_QUERY_TARGETS),
      facts: z.array(factSchema).describe('Matching facts (target core); empty for episodes'),
      episodes: z.array(episodeSchema).describe('Matching episodes (target episodes); empty for core'),
      ...pagingOutput,
      total: z.number().describe('Every record matching, beyond this page too'),
    }),
    annotations: READ_ONLY,
    handler: (args) => {
      const { layer: _layer, user_id: _user, target, ...filter } = args;
      const scope = scopeOf(args);
      const paging = (n: number, total: number) => ({ count: n, offset: args.offset, next_offset: n > 0 && args.offset + n < total ? args.offset + n : null, total });
      if (target === 'core') {
        const r = stores.facts.query(scope, filter);
        return { target, facts: r.facts.map(factOut), episodes: [], ...paging(r.facts.length, r.total) };
      }
      const r = stores.episodes.query(scope, filter);
      return { target, facts: [], episodes: r.episodes.map(episodeOut), ...paging(r.episodes.length, r.total) };
    },
  });
}
