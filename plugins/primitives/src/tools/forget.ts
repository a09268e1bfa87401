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
      'is matched, and its key only when not generated (note:, thought:, auto:, personality:); the pattern needs a letter or digit (or an emoji). ' +
      'scope recent: everything created in the last `minutes` (default 60), never archived: facts, episodes, graph nodes, ' +
      "wiki pages (except a project's spec page), L1 items and timeline events, and the counterfactuals, procedures, stashes, branches, reflections, disclosure and watch rules, " +
      'standing queries, pending proposals and L3 to L4 promotions made in the window (counted in deleted_records), and it clears the summary and topics of sessions that ended in the window; a memory created earlier and only updated in the window stays. ' +
      'exact and fuzzy also delete the L1 items and timeline events holding the forgotten text and clear it from session summaries and from other episodes\' neighbouring context. ' +
      'They also delete the recorded dream queries (recall_events) that named it: exact, those holding the key as whole words or the fact\'s value; fuzzy, those holding the pattern; recent deletes those recorded in the window. ' +
      'When exact or fuzzy deletes a fact or episode, the graph node think made from the same thought goes too, and when it deletes the short link a long thought (over 2000 characters) left in L4 or L3, the thought\'s wiki page. ' +
      'exact and fuzzy also clean what pointed at a deleted fact or episode (counted in cleaned_records): a branch\'s copy of the fact, a pending proposal ' +
      'whose write holds the forgotten text, a reflection\'s most-recalled row naming it, a promotion\'s copy of its value. ' +
      'With shadow_bin true (default) deleted records are archived in the Shadow Bin first and can be restored. ' +
      'Returns counts per store.',
    input: () => z.object({
      key: z.string().max(1000).describe('The fact key (exact) or a search pattern (fuzzy); required by every scope, and ignored by recent (any text)'),
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
      deleted_records: z
        .object({
          counterfactuals: z.number(),
          procedures: z.number(),
          stashes: z.number(),
          branches: z.number(),
          reflections: z.number(),
          disclosure_rules: z.number(),
          watch_rules: z.number(),
          standing_queries: z.number(),
          proposals: z.number().describe('Pending proposals staged in the window'),
          transitions: z.number().describe('L3 to L4 promotions made in the window (a reverted one stays, without its value)'),
        })
        .optional()
        .describe('recent: the records of the other kinds created in the window, per kind'),
      cleaned_records: z
        .object({
          branch_entries: z.number().describe("Branch entries that copied a deleted fact (dropped, or kept as the branch's own addition)"),
          proposals: z.number().describe('Pending proposals deleted because their write holds the forgotten text'),
          reflections: z.number().describe('Reflections whose most-recalled rows named a deleted fact or episode (those rows removed)'),
          transitions: z.number().describe("L3 to L4 promotions of a deleted fact, their copy of its value blanked"),
        })
        .optional()
        .describe('exact and fuzzy: the records pointing at or copying what was deleted, cleaned'),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: (args) => forgetter.forget(args),
  });
}
