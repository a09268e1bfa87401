import { defineTool, z } from '@memory-service/kernel';
import { EPISODE_PREFIX, notFound, type Stores } from '@memory-service/stores';
import { checkId, episodeOut, episodeSchema, layerInput, READ_ONLY, scopeOf, userIdInput } from '../common.js';

export function memoryEpisodeGetTool(stores: Stores) {
  return defineTool({
    name: 'memory_episode_get',
    title: 'Get an episode',
    description:
      'Fetch one episode (L3) of the layer and user_id by its id, ep_<n> as think, dream and memory_episode_list report it. Returns its ' +
      'id, summary, emotional_weight, importance, tags and created time. A malformed id, or one that is not an episode of this layer ' +
      'and user_id, is an error naming episode_id. A read: it records no access.',
    input: () => z.object({
      episode_id: z.string().min(1).max(100).describe('Episode id, e.g. ep_12'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({ episode: episodeSchema }),
    annotations: READ_ONLY,
    handler: (args) => {
      checkId(args.episode_id, EPISODE_PREFIX, 'episode_id');
      const ep = stores.episodes.get(scopeOf(args), args.episode_id.trim());
      if (!ep) throw notFound(`episode of layer ${args.layer}, user_id ${JSON.stringify(args.user_id)}`, args.episode_id.trim(), 'episode_id');
      return { episode: episodeOut(ep) };
    },
  });
}
