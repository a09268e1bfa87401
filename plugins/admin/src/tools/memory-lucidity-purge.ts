import { defineTool, z } from '@memory-service/kernel';
import { PURGE_HOURS_MAX, validationError, type Stores } from '@memory-service/stores';
import { layerInput, scopeOf, scopeOutput, userIdInput } from '../common.js';

export function memoryLucidityPurgeTool(stores: Stores) {
  return defineTool({
    name: 'memory_lucidity_purge',
    title: 'Emergency purge of the last hours',
    description:
      'Emergency purge: delete everything the layer and user_id wrote in the last `hours` (more than 0, at most ' +
      `${PURGE_HOURS_MAX}; fractions allowed, e.g. 0.5): L4 core facts, L3 episodes, graph nodes and edges, wiki pages (not a ` +
      "project's spec page), L1 items, timeline events, recorded dream queries, audit_log rows and the staging area " +
      '(scratchpad entries written in the window, pending proposals staged in it), the counterfactuals, procedures, stashes, branches, reflections, ' +
      'disclosure rules, watch rules (and every rule\'s hits of the window), standing queries and L3 to L4 promotions made in the window, ' +
      'and it clears the summary, topics and state deltas of sessions that ended in ' +
      'the window. A record created earlier and only updated in the window stays. Nothing is archived in the Shadow Bin and it ' +
      'cannot be undone, so `confirm` must be true; without it the call is an error naming confirm and nothing is deleted. ' +
      'Other layers and user_ids are untouched. Returns the window start (since) and the count deleted per store (deleted_graph nodes, ' +
      'deleted_graph_edges edges); the purge ' +
      'leaves one content-free lucidity_purge audit row.',
    input: () => z.object({
      hours: z.number().positive().max(PURGE_HOURS_MAX).describe(`Window: purge what was written in the last this many hours (0 < hours <= ${PURGE_HOURS_MAX})`),
      confirm: z.boolean().optional().describe('Must be true: the purge deletes without archiving and cannot be undone'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      ...scopeOutput,
      since: z.string().describe('Start of the purged window (ISO)'),
      hours: z.number(),
      deleted_l4: z.number(),
      deleted_l3: z.number(),
      deleted_graph: z.number().describe('Graph nodes (their edges go with them)'),
      deleted_graph_edges: z.number().describe('Graph edges: those created in the window, and older ones joining a node deleted with it'),
      deleted_wiki: z.number(),
      deleted_l1: z.number(),
      deleted_timeline: z.number(),
      deleted_recall_events: z.number(),
      deleted_audit: z.number().describe('audit_log rows of the window'),
      deleted_scratchpad: z.number().describe('Staging: scratchpad entries written in the window'),
      deleted_proposals: z.number().describe('Staging: pending proposals staged in the window (decided ones stay)'),
      scrubbed_sessions: z.number().describe('Sessions that ended in the window, their summary, topics and state deltas cleared'),
      deleted_counterfactuals: z.number(),
      deleted_procedures: z.number(),
      deleted_stashes: z.number().describe('Stashes pushed in the window, with their entries'),
      deleted_branches: z.number().describe('Branches made in the window, with their entries'),
      deleted_reflections: z.number(),
      deleted_disclosure_rules: z.number(),
      deleted_watch_rules: z.number().describe('Watch rules added in the window (the hits every rule counted in the window go too)'),
      deleted_standing_queries: z.number().describe('Standing queries first saved in the window (their files)'),
      deleted_transitions: z.number().describe('L3 to L4 promotions made in the window (memory_transitions; a reverted one stays without its value)'),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    handler: (args) => {
      if (args.confirm !== true) {
        throw validationError('confirm', `confirm must be true to purge the last ${args.hours} hours of layer ${args.layer}, user_id ${JSON.stringify(args.user_id)}: nothing is archived and it cannot be undone`, [true]);
      }
      const scope = scopeOf(args);
      return { ...scope, ...stores.lucidityPurge.purge(scope, args.hours) };
    },
  });
}
