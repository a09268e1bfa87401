import { defineTool, userIdSchema, z } from '@memory-service/kernel';
import { actionSchema } from '../common.js';
import type { Thinker } from '../services/thinker.js';

export function thinkTool(thinker: Thinker) {
  return defineTool({
    name: 'think',
    title: 'Think (store a memory)',
    description:
      'Store anything worth remembering: a fact about the user, a decision, an observation, a long note. ' +
      'The service routes it by itself: a text over 2000 characters becomes a wiki page (diary on the user layer, ' +
      'decision_log on the agent layer) with a short link in L4 or L3; a short (<60 chars) important text becomes an L4 core fact; ' +
      'anything else becomes an L3 episode; a phrase like "X is Y", "X (is) related to Y" or "X (is) connected to Y" in the first sentences also makes a graph node. ' +
      'Pass wiki_type or wiki_title to force a wiki page. layer auto (default) decides between the agent\'s own voice ' +
      'and facts about the user. Returns the routing scores and every store and id written.',
    input: () => z.object({
      text: z.string().min(1).describe('What to remember'),
      layer: z.enum(['user', 'agent', 'auto']).default('auto').describe('user, agent, or auto (scored from the text)'),
      user_id: userIdSchema,
      wiki_type: z.string().nullable().optional().describe('Force a wiki page of this type (e.g. diary, decision_log, preferences, skill)'),
      wiki_title: z.string().min(1).max(300).nullable().optional().describe('Title of the forced wiki page instead of Thought_<timestamp> (one line, no control characters); when a page of that title exists, the thought gets a new page <title>-2, -3, ...'),
    }),
    output: () => z.object({
      routing: z.object({
        importance: z.number(),
        length: z.number(),
        emotional_weight: z.number(),
        resolved_layer: z.enum(['user', 'agent']),
        rule: z.string(),
        training_value: z.enum(['high', 'medium', 'low']),
      }),
      actions: z.array(actionSchema),
      user_id: z.string(),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    handler: (args) => thinker.think(args),
  });
}
