import { defineTool, z } from '@memory-service/kernel';
import type { Stores } from '@memory-service/stores';
import { layerInput, scopeOf, userIdInput } from '../common.js';

const sectionError = z.object({ error: z.object({ message: z.string(), code: z.string().optional() }) });
const kind = <T extends z.ZodTypeAny>(item: T) => z.object({ count: z.number(), newest: z.array(item) });

const pending = z.object({
  todos: z.object({
    count: z.number(),
    items: z.array(z.object({ entry_id: z.string(), key: z.string(), value: z.string(), importance: z.number(), updated: z.string() })),
  }),
  scratchpad: z.object({ count: z.number(), items: z.array(z.object({ key: z.string(), content: z.string(), updated: z.string() })) }),
});

const recent = z.object({
  since: z.string(),
  total: z.number(),
  facts: kind(z.object({ entry_id: z.string(), key: z.string(), value: z.string(), updated: z.string() })),
  episodes: kind(z.object({ id: z.string(), summary: z.string(), tags: z.array(z.string()), created: z.string() })),
  wiki_pages: kind(z.object({ title: z.string(), wiki_type: z.string(), path: z.string(), updated: z.string() })),
  timeline_events: kind(z.object({ type: z.string(), summary: z.string(), created: z.string() })),
});

const suggestion = z.object({ action: z.string(), reason: z.string(), tool: z.string().nullable() });

export function dailyBriefTool(stores: Stores) {
  return defineTool({
    name: 'daily_brief',
    title: 'Daily brief',
    description:
      'A deterministic brief of the layer and user_id, with no language model. pending: open todo facts (key starting with "todo:", or a ' +
      'value starting with the word TODO; most important first, then oldest; at most 20 listed) and the scratchpad entries (newest first). ' +
      'recent: what changed in the last 24 hours: counts and the 5 newest of facts, episodes, wiki pages and timeline events. ' +
      'suggested_action: one next step derived from those (the top todo, else the scratchpad, else the recent records). Each section is ' +
      'computed on its own: one that fails is answered as { error } while the others are returned. Read-only.',
    input: () => z.object({ layer: layerInput, user_id: userIdInput }),
    output: () => z.object({
      generated: z.string(),
      pending: z.union([pending, sectionError]),
      recent: z.union([recent, sectionError]),
      suggested_action: z.union([suggestion, sectionError]),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: (args) => stores.dailyBrief.brief(scopeOf(args)),
  });
}
