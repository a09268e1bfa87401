import { defineTool, z } from '@memory-service/kernel';
import { REFLECT_HOURS_DEFAULT, REFLECT_LIST_DEFAULT, REFLECT_LIST_MAX, REFLECT_TOPIC_MAX, WIKI_REFLECT_HOURS_MAX, WIKI_REFLECT_HOURS_MIN, type Stores } from '@memory-service/stores';
import { layerInput, limitInput, scopeOf, userIdInput } from '../common.js';

export const REFLECT_ACTIONS = ['write', 'list'] as const;

/** The fields each action takes beyond action, layer and user_id (the kernel refuses any other the call gives, naming it). */
const REFLECT_FIELDS = { write: ['period_hours', 'topic'], list: ['topic', 'limit'] } as const satisfies Record<(typeof REFLECT_ACTIONS)[number], readonly string[]>;

const reflectionSchema = z.object({
  id: z.string().describe('Reflection id (refl_<n>)'),
  topic: z.string().nullable(),
  period_hours: z.number(),
  period_start: z.string(),
  period_end: z.string(),
  summary: z.string().describe('The reflection as a few plain lines'),
  counts: z.object({
    facts: z.number(),
    episodes: z.number(),
    wiki_pages: z.number(),
    graph_nodes: z.number(),
    events: z.number(),
    sessions_closed: z.number(),
    recalls: z.number(),
  }),
  top_tags: z.array(z.object({ tag: z.string(), count: z.number() })),
  most_recalled: z.array(z.object({ source: z.string(), id: z.string(), text: z.string(), access_count: z.number() })),
  recurring_terms: z.array(z.object({ term: z.string(), records: z.number() })),
  created: z.string(),
});

export function memoryReflectTool(stores: Stores) {
  return defineTool({
    name: 'memory_reflect',
    title: 'Write or list reflections',
    description:
      'Reflect on what the layer and user_id recorded lately, deterministically (no language model). action write: over the last ' +
      `period_hours (default ${REFLECT_HOURS_DEFAULT}, ${WIKI_REFLECT_HOURS_MIN} to ${WIKI_REFLECT_HOURS_MAX}), optionally only the records holding topic ` +
      '(a plain substring, ignoring case): counts of new facts, new episodes, wiki pages written, graph nodes, timeline events, closed ' +
      'sessions and recalls; the top episode tags; the memories most recalled in the period (by access count); terms recurring across ' +
      'at least two records; and a summary of it all. The reflection is stored and returned. action list: the stored reflections, ' +
      `newest first, optionally only those written for topic (the whole topic, ignoring case, accents and NFC/NFD), limit default ${REFLECT_LIST_DEFAULT}, at most ${REFLECT_LIST_MAX}. ` +
      'A bad period_hours, topic or limit is an error naming it.',
    input: () => z.object({
      action: z.enum(REFLECT_ACTIONS).describe('write or list'),
      period_hours: z.number().int().min(WIKI_REFLECT_HOURS_MIN).max(WIKI_REFLECT_HOURS_MAX).default(REFLECT_HOURS_DEFAULT).describe('write: hours back from now'),
      topic: z.string().min(1).max(REFLECT_TOPIC_MAX).optional().describe('write: only records holding it; list: only reflections written for it'),
      limit: limitInput(REFLECT_LIST_DEFAULT, REFLECT_LIST_MAX),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      action: z.enum(REFLECT_ACTIONS),
      reflection: reflectionSchema.optional().describe('write: the reflection stored'),
      reflections: z.array(reflectionSchema).optional().describe('list: newest first'),
      count: z.number().optional(),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    actionFields: REFLECT_FIELDS,
    handler: (args) => {
      const scope = scopeOf(args);
      if (args.action === 'write') return { action: args.action, reflection: stores.reflections.write(scope, { period_hours: args.period_hours, topic: args.topic }) };
      const reflections = stores.reflections.list(scope, { topic: args.topic, limit: args.limit });
      return { action: args.action, reflections, count: reflections.length };
    },
  });
}
