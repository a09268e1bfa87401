import { defineTool, invalid, isBlank, z } from '@memory-service/kernel';
import { scoreImportance, type Stores } from '@memory-service/stores';
import { ADDITIVE, checkTags, episodeOut, episodeSchema, layerInput, scopeOf, tagsInput, userIdInput } from '../common.js';

export function memoryEpisodeSaveTool(stores: Stores) {
  return defineTool({
    name: 'memory_episode_save',
    title: 'Save an episode',
    description:
      'Save one episode (L3 episodic memory) in the layer and user_id: what happened, as a summary, with its emotional_weight (0..1, ' +
      'default 0) and tags (plain, or faceted dimension:value such as project:atlas; memory_episode_recall and memory_query filter by ' +
      'them: same dimension any of, different dimensions all of). importance (0..1) is optional: left out, it is scored from the ' +
      'summary as think scores a thought. Every call adds an episode. Returns the episode (id ep_<n>, summary, emotional_weight, ' +
      'importance, tags, created). Errors name the field: an empty summary, a weight or importance outside 0..1, a faceted tag missing ' +
      'its dimension or value.',
    input: () => z.object({
      summary: z.string().max(100_000).describe('What happened'),
      emotional_weight: z.number().min(0).max(1).default(0).describe('0..1 (default 0); above 0.5 marks an emotionally significant episode'),
      tags: tagsInput.describe('Tags, plain or dimension:value'),
      importance: z.number().min(0).max(1).optional().describe('0..1; default: scored from the summary'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({ episode: episodeSchema }),
    annotations: ADDITIVE,
    handler: (args) => {
      const summary = args.summary.trim();
      if (isBlank(summary)) throw invalid('summary', 'must not be empty or only white space', 'the episode text');
      const tags = checkTags(args.tags);
      const ep = stores.episodes.add(scopeOf(args), {
        summary,
        emotional_weight: args.emotional_weight,
        importance: args.importance ?? scoreImportance(summary),
        tags,
        meta: { origin: 'memory_episode_save' },
      });
      return { episode: episodeOut(ep) };
    },
  });
}
