import { defineTool, invalid, isBlank, layerSchema, z } from '@memory-service/kernel';
import { SKILL_PAGE_MAX_BYTES, SKILL_PROMOTE_MAX_EPISODES, type Stores, type WikiPage } from '@memory-service/stores';
import { checkTags, scopeOf, tagsInput, userIdInput } from '../common.js';

const pageSchema = z.object({
  title: z.string(),
  wiki_type: z.literal('skill'),
  path: z.string().describe('For wiki_read'),
  tags: z.array(z.string()),
  size: z.number().describe('Bytes (at most 4096)'),
  created: z.string(),
  updated: z.string(),
});

const pageOut = (p: WikiPage) => ({ title: p.title, wiki_type: 'skill' as const, path: p.path, tags: p.tags, size: p.size, created: p.created, updated: p.updated });

export function memorySkillPromoteTool(stores: Stores) {
  return defineTool({
    name: 'memory_skill_promote',
    title: 'Promote a skill',
    description:
      'Turn know-how into skill wiki pages (wiki type skill, plain Markdown, at most 4 KB each), on the agent layer unless layer says ' +
      'otherwise (skills are agent knowledge). With episode_ids: each episode of the layer and user_id becomes a skill page holding its ' +
      'summary verbatim, titled from its first line, with a provenance footer naming the episode id; the episode is tagged ' +
      'skill_promoted, and an episode already tagged is answered with its page (status already_promoted) and nothing is written. ' +
      'With title and content instead: writes an agent-distilled skill page directly (tagged agent_distilled plus tags); the title of ' +
      'an existing skill page updates it. A page over 4 KB is refused, not saved. All or nothing: an error writes no page. Returns ' +
      'the promotions (episode_id, status, page) or the page written. Errors name the field: neither or both of episode_ids and ' +
      'title/content, a malformed or unknown episode id (episode_ids), a page over 4 KB (episode_ids or content), a title already ' +
      'used by a page of another type.',
    input: () => z.object({
      episode_ids: z.array(z.string().min(1).max(100)).min(1).max(SKILL_PROMOTE_MAX_EPISODES).optional().describe('Episode ids (ep_<n>) to promote verbatim'),
      title: z.string().max(300).optional().describe('With content: the title of a skill page written directly'),
      content: z.string().max(100_000).optional().describe(`With title: the skill as Markdown, at most ${SKILL_PAGE_MAX_BYTES} bytes`),
      tags: tagsInput.describe('With title and content: extra page tags'),
      layer: layerSchema.default('agent').describe('Memory layer; default agent (skills are agent knowledge)'),
      user_id: userIdInput,
    }),
    output: () => z.object({
      mode: z.enum(['episodes', 'direct']),
      promotions: z
        .array(z.object({ episode_id: z.string(), status: z.enum(['promoted', 'already_promoted']), page: pageSchema.nullable().describe('null when the page was deleted since') }))
        .optional(),
      status: z.enum(['created', 'updated']).optional().describe('direct: whether the page was added or replaced'),
      page: pageSchema.optional().describe('direct: the page written'),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: (args) => {
      const scope = scopeOf(args);
      const direct = args.title !== undefined || args.content !== undefined;
      if (args.episode_ids !== undefined) {
        if (direct) throw invalid(args.title !== undefined ? 'title' : 'content', 'does not go with episode_ids: promote episodes, or write title and content', ['episode_ids', 'title and content']);
        if (args.tags !== undefined) throw invalid('tags', 'apply only to a page written from title and content', ['title and content']);
        const promotions = stores.skills.promoteEpisodes(scope, args.episode_ids).map((p) => ({ episode_id: p.episode_id, status: p.status, page: p.page ? pageOut(p.page) : null }));
        return { mode: 'episodes' as const, promotions };
      }
      if (!direct) throw invalid('episode_ids', 'or title and content are required', ['episode_ids', 'title and content']);
      if (args.title === undefined || isBlank(args.title)) throw invalid('title', 'is required with content', 'a page title');
      if (args.content === undefined || isBlank(args.content)) throw invalid('content', 'is required with title', 'the skill as Markdown');
      const page = stores.skills.write(scope, { title: args.title, content: args.content, tags: checkTags(args.tags) });
      return { mode: 'direct' as const, status: page.created_new ? ('created' as const) : ('updated' as const), page: pageOut(page) };
    },
  });
}
