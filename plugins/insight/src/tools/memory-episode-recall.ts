import { defineTool, z } from '@memory-service/kernel';
import type { Stores } from '@memory-service/stores';
import { episodeOut, episodeSchema, layerInput, limitInput, offsetInput, page, pagingOutput, tagList, READ_ONLY, scopeOf, tagFilterInput, userIdInput } from '../common.js';

export function memoryEpisodeRecallTool(stores: Stores) {
  return defineTool({
    name: 'memory_episode_recall',
    title: 'Recall episodes by tag',
    description:
      'Recall the episodes (L3) of the layer and user_id, optionally only those carrying the given tags, newest first, a page at a time. ' +
      'Tags are faceted ("dimension:value"; a plain tag is its own dimension): tags of one dimension match any of them, different ' +
      'dimensions all of them (["project:a", "project:b", "mood:calm"] = (project:a or project:b) and mood:calm). Examples of tags the ' +
      'service writes: session_summary, dream_skill, skill_promoted. Returns the episodes (id, summary, emotional_weight, importance, ' +
      'tags, created), count (on this page), total (all matching episodes) and next_offset. Use dream to search episodes by meaning instead. ' +
      'A read: it records no access.',
    input: () => z.object({
      tag: tagFilterInput,
      limit: limitInput(20, 200),
      offset: offsetInput,
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({ episodes: z.array(episodeSchema), ...pagingOutput, total: z.number().describe('Matching episodes in all pages') }),
    annotations: READ_ONLY,
    handler: (args) => {
      const scope = scopeOf(args);
      const tag = tagList(args.tag);
      const p = page(stores.episodes.list(scope, { tag, limit: args.limit + 1, offset: args.offset }), args.limit, args.offset);
      return { episodes: p.items.map(episodeOut), count: p.count, offset: p.offset, next_offset: p.next_offset, total: stores.episodes.countListed(scope, { tag }) };
    },
  });
}
