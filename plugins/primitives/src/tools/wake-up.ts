import { defineTool, z } from '@memory-service/kernel';
import { layerInput, userIdInput } from '../common.js';
import type { WakeUp } from '../services/wake-up.js';

export function wakeUpTool(wakeUp: WakeUp) {
  return defineTool({
    name: 'wake_up',
    title: 'Wake up (start-of-session brief)',
    description:
      'Call at the start of a session to get a brief of what you remember: the last closed session, the most important ' +
      'core facts, pending work (todo facts and scratchpad notes), recent buffer items and the latest timeline events, plus ' +
      'up to 5 distinct memories about an optional query (each once: a remembered fact and its graph node are one), in Markdown within a token budget (default 2000).',
    input: () => z.object({
      budget: z.number().int().min(100).max(100_000).default(2000).describe('Token budget of the brief'),
      query: z.string().max(2000).optional().describe('Optional topic to recall memories about'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      brief: z.string(),
      sections: z.array(z.string()),
      counts: z.object({ facts: z.number(), pending: z.number(), recent_items: z.number(), events: z.number(), has_last_session: z.boolean() }),
      estimated_tokens: z.number(),
      truncated: z.boolean(),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: (args) => wakeUp.brief(args),
  });
}
