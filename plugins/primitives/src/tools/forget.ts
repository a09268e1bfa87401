import { defineTool, z } from '@memory-service/kernel';
import { layerInput, userIdInput } from '../common.js';
import type { Forgetter } from '../services/forgetter.js';

export function forgetTool(forgetter: Forgetter) {
  return defineTool({
    name: 'forget',
    title: 'Forget memories',
    description:
      'Delete memories. scope exact (default): the L4 core fact with this key, plus the L3 episodes and graph nodes that ' +
      'carry its value and older Shadow Bin copies of it. scope fuzzy: every L4 fact, L3 episode and graph node whose text ' +
      'holds the pattern as whole words, ignoring case, accents and full-width forms as dream does ("cat" matches "my cat" and "cat-food", not "vacation"; "cafe" matches "Café"); a fact\'s value ' +
      'is matched, and its key only when not generated (note:, thought:, auto:, personality:); the pattern needs a letter or digit. ' +
      'scope recent: everything created in the last `minutes` (default 60), never archived: facts, episodes, graph nodes, ' +
      "wiki pages (except a project's spec page), L1 items and timeline events, and it clears the summary and topics of sessions that ended in the window; a memory created earlier and only updated in the window stays. " +
      'exact and fuzzy also delete the L1 items and timeline events holding the forgotten text and clear it from session summaries and from other episodes\' neighbouring context. ' +
      'They also delete the recorded dream queries (recall_events) that named it: exact, those holding the key as whole words or the fact\'s value; fuzzy, those holding the pattern; recent deletes those recorded in the window. ' +
      'When exact or fuzzy deletes a fact or episode, the graph node think made from the same thought goes too, and when it deletes the short link a long thought (over 2000 characters) left in L4 or L3, the thought\'s wiki page. ' +
      'With shadow_bin true (default) deleted records are archived in the Shadow Bin first and can be restored. ' +
      'Returns counts per store.',
    input: () => z.object({
      key: z.string().max(1000).describe('The fact key (exact) or a search pattern (fuzzy); ignored by recent'),
      scope: z.enum(['exact', 'fuzzy', 'recent']).default('exact'),
      minutes: z.number().int().min(1).max(525_600).default(60).describe('Window for scope recent'),
      shadow_bin: z.boolean().default(true).describe('Archive before deleting (skipped for recent)'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      scope: z.enum(['exact', 'fuzzy', 'recent']),
      deleted_l4: z.number(),
      deleted_l3: z.number(),
      deleted_graph: z.number(),
      archived: z.number(),
      purged_shadow: z.number(),
      scrubbed_context: z.number(),
      deleted_l1: z.number(),
      deleted_timeline: z.number(),
      scrubbed_sessions: z.number(),
      deleted_recall_events: z.number().describe('Recorded dream queries (recall_events) deleted: exact and fuzzy, those naming the forgotten key, value or pattern; recent, those made in the window'),
      deleted_wiki: z.number().describe('Wiki pages deleted (recent: created in the window; exact and fuzzy: the page of a long thought whose link was deleted)'),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: (args) => forgetter.forget(args),
  });
}
