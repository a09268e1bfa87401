import { defineTool, z, type Clock } from '@memory-service/kernel';
import {
  WIKI_REFLECT_HOURS_DEFAULT,
  WIKI_REFLECT_HOURS_MAX,
  WIKI_REFLECT_HOURS_MIN,
  WIKI_REFLECT_LIST_MAX,
  WIKI_REFLECT_MAX_TOKENS,
  WIKI_REFLECT_TOP_LINKED,
  type Stores,
} from '@memory-service/stores';
import { layerInput, pageInfo, pageInfoSchema, scopeOf, userIdInput } from '../common.js';

/** The clock is the kernel's (ctx.clock), so a test's ManualClock sets the period. */
export function wikiReflectTool(stores: Stores, clock: Clock) {
  return defineTool({
    name: 'wiki_reflect',
    title: 'Reflect on recent wiki changes',
    description:
      'A deterministic digest of the wiki pages of the layer and user_id changed (created or updated) in the last period_hours ' +
      `(default ${WIKI_REFLECT_HOURS_DEFAULT}, whole hours ${WIKI_REFLECT_HOURS_MIN} to ${WIKI_REFLECT_HOURS_MAX}), up to now. Returns the period ` +
      '(since, until), counts by wiki_type of pages created and of pages only updated in it, and of the changed pages: the ' +
      `${WIKI_REFLECT_TOP_LINKED} most linked (by links pointing at them; ties by title), the orphans (no link in or out, by title) and ` +
      `the pages over their size lint (a skill page over 4 KB), each list at most ${WIKI_REFLECT_LIST_MAX} with its full count; and a ` +
      `Markdown digest of the same within ${WIKI_REFLECT_MAX_TOKENS} tokens. Use it to review what the wiki gained and which pages ` +
      'need linking (wiki_link) or trimming (wiki_add).',
    input: () => z.object({
      period_hours: z
        .number()
        .int()
        .min(WIKI_REFLECT_HOURS_MIN)
        .max(WIKI_REFLECT_HOURS_MAX)
        .default(WIKI_REFLECT_HOURS_DEFAULT)
        .describe('Hours back from now that count as the period'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      layer: z.enum(['user', 'agent']),
      period_hours: z.number(),
      since: z.string(),
      until: z.string(),
      created: z.number().describe('Pages created in the period'),
      updated: z.number().describe('Pages created before the period and updated in it'),
      by_type: z.array(z.object({ wiki_type: z.string(), created: z.number(), updated: z.number() })),
      most_linked: z.array(pageInfoSchema.extend({ in_links: z.number(), out_links: z.number() })),
      orphans: z.array(pageInfoSchema),
      orphan_count: z.number(),
      over_size_lint: z.array(pageInfoSchema.extend({ lint: z.string() })),
      over_size_lint_count: z.number(),
      digest: z.string(),
      estimated_tokens: z.number(),
      truncated: z.boolean().describe('The digest was cut to its token cap'),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: (args) => {
      const r = stores.wiki.reflect(scopeOf(args), args.period_hours, clock.now());
      return {
        ...r,
        most_linked: r.most_linked.map((p) => ({ ...pageInfo(p), in_links: p.in_links, out_links: p.out_links })),
        orphans: r.orphans.map(pageInfo),
        over_size_lint: r.over_size_lint.map((p) => ({ ...pageInfo(p), lint: p.lint })),
      };
    },
  });
}
