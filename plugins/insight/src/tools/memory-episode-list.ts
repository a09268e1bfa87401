import { defineTool, z } from '@memory-service/kernel';
import type { Stores } from '@memory-service/stores';
import { episodeOut, episodeSchema, layerInput, limitInput, offsetInput, page, pagingOutput, READ_ONLY, scopeOf, userIdInput } from '../common.js';

export function memoryEpisodeListTool(stores: Stores) {
  return defineTool({
    name: 'memory_episode_list',
    title: 'List episodes',
    description:
      'List the episodes (L3 episodic memory) of the layer and user_id, newest first, a page at a time (limit, offset). Returns each ' +
      "episode's id (ep_<n>, for memory_episode_get), summary, emotional_weight, importance, tags and created time, with count (on this " +
      'page), total (all episodes of the scope) and next_offset (null when there are no more). A read: it records no access.',
    input: () => z.object({
      limit: limitInput(20, 200),
      offset: offsetInput,
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({ episodes: z.array(episodeSchema), ...pagingOutput, total: z.number() }),
    annotations: READ_ONLY,
    handler: (args) => {
      const scope = scopeOf(args);
      const p = page(stores.episodes.list(scope, { limit: args.limit + 1, offset: args.offset }), args.limit, args.offset);
      return { episodes: p.items.map(episodeOut), count: p.count, offset: p.offset, next_offset: p.next_offset, total: stores.episodes.count(scope) };
    },
  });
}
