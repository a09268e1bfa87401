import { charLength, defineTool, invalid, isBlank, overChars, userIdSchema, z, type Hooks, type Logger } from '@memory-service/kernel';
import type { Stores } from '@memory-service/stores';
import { excerpt } from '../common.js';
import { freeFactKey } from '../services/thinker.js';

export function evolveTool(stores: Stores, hooks: Readonly<Hooks>, logger: Logger) {
  return defineTool({
    name: 'evolve',
    title: 'Evolve the agent personality',
    description:
      "Change how the agent behaves from now on: store a personality instruction (e.g. 'Answer in short sentences', " +
      "'Prefer TypeScript examples'). It always goes to the agent layer's core memory with importance 1.0, fires the " +
      'personality_shift hook and records a personality_shift event on the timeline. Recall it with dream on layer agent.',
    input: () => z.object({
      instruction: z.string().min(1).max(4000).describe('The personality instruction'),
      // Every tool takes a layer; evolve's write is always the agent's, so the one value it takes is agent.
      layer: z.literal('agent').default('agent').describe('Always agent: a personality instruction is about the agent itself'),
      user_id: userIdSchema,
    }),
    output: () => z.object({ status: z.literal('evolved'), summary: z.string(), entry_id: z.string(), key: z.string(), event_id: z.string() }),
    // Not idempotent: the same instruction again keeps its fact but records another event and fires the hook again.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async handler({ instruction, user_id }) {
      const text = instruction.trim();
      if (isBlank(text)) throw invalid('instruction', 'must not be empty or only white space and invisible characters', 'text with a visible character');
      // The fact store holds values to think.max_text_chars, which may be set below the schema's 4000.
      const max = stores.config.maxTextChars;
      if (overChars(text, max)) throw invalid('instruction', `is ${charLength(text)} characters; the limit is ${max} (think.max_text_chars)`, { max });
      const scope = { layer: 'agent' as const, user_id };
      const { fact, event } = stores.transaction(() => {
        const fact = stores.facts.upsert(scope, {
          key: freeFactKey(stores, scope, 'personality', text),
          value: text,
          importance: 1.0,
          source: 'user_explicit',
          metadata: { origin: 'evolve' },
        });
        const event = stores.timeline.add(scope, {
          type: 'personality_shift',
          summary: excerpt(text, 200),
          metadata: { entry_id: fact.entry_id, key: fact.key, training_value: 'high' },
        });
        return { fact, event };
      });
      try {
        await hooks.personality_shift.promise({ ...scope, instruction: text, entry_id: fact.entry_id });
      } catch (err) {
        logger.error(`hook personality_shift failed: ${(err as Error).message}`);
      }
      return {
        status: 'evolved' as const,
        summary: `Agent personality updated: ${excerpt(text, 160)} (stored as ${fact.key}, importance 1.0)`,
        entry_id: fact.entry_id,
        key: fact.key,
        event_id: event.id,
      };
    },
  });
}
