import { defineTool, z } from '@memory-service/kernel';
import type { Stores } from '@memory-service/stores';
import { layerInput, READ_ONLY, scopeOf, userIdInput } from '../common.js';

/** The stored session quality score runs 0 to 80; memory_stats reports the mean on 0 to 100. */
export const SESSION_QUALITY_MAX = 80;

export function memoryStatsTool(stores: Stores) {
  return defineTool({
    name: 'memory_stats',
    title: 'Memory statistics',
    description:
      'Count what the layer and user_id hold: l1 (items in the short recent-items ring), l2 (sessions), l3 (episodes), l4 (core facts), ' +
      'wiki_pages, graph_nodes and recall_count (dream calls recorded in recall_events), plus avg_session_quality, the mean quality of ' +
      'the closed sessions on 0 to 100 (the stored 0 to 80 score times 100/80, one decimal; avg_session_quality_raw is the mean on ' +
      '0 to 80), both null when no session is closed. A read: it records no access.',
    input: () => z.object({ layer: layerInput, user_id: userIdInput }),
    output: () => z.object({
      l1: z.number(),
      l2: z.number(),
      l3: z.number(),
      l4: z.number(),
      wiki_pages: z.number(),
      graph_nodes: z.number(),
      recall_count: z.number(),
      avg_session_quality: z.number().nullable().describe('0 to 100; null when no session is closed'),
      avg_session_quality_raw: z.number().nullable().describe('The same mean on the stored 0 to 80 scale'),
    }),
    annotations: READ_ONLY,
    handler: (args) => {
      const scope = scopeOf(args);
      const raw = stores.sessions.averageQuality(scope);
      const round1 = (v: number) => Math.round(v * 10) / 10;
      return {
        l1: stores.l1.count(scope),
        l2: stores.sessions.count(scope),
        l3: stores.episodes.count(scope),
        l4: stores.facts.count(scope),
        wiki_pages: stores.wiki.count(scope),
        graph_nodes: stores.graph.count(scope),
        // Counts the dream calls just made too: the count writes their queued rows first.
        recall_count: stores.recallEvents.count(scope),
        avg_session_quality: raw === null ? null : round1((raw * 100) / SESSION_QUALITY_MAX),
        avg_session_quality_raw: raw === null ? null : round1(raw),
      };
    },
  });
}
