import { defineTool, layerSchema, z } from '@memory-service/kernel';
import { WIKI_DIGEST_MAX_TOKENS, WIKI_PERSPECTIVE_NAMES, WIKI_PERSPECTIVES, type Stores } from '@memory-service/stores';
import { userIdInput } from '../common.js';

const table = Object.entries(WIKI_PERSPECTIVES)
  .map(([name, p]) => `${name}: ${p.wiki_type} (${p.layer})`)
  .join('; ');

export function wikiSummarizeTool(stores: Stores) {
  return defineTool({
    name: 'wiki_summarize',
    title: 'Summarize the wiki from a perspective',
    description:
      'A Markdown digest of the wiki pages of one perspective, each perspective reading one wiki type on its own layer (the layer ' +
      `argument is overridden): ${table}. An empty query takes the most recently updated pages of that type; otherwise a full-text ` +
      `search filtered by the type, best first. At most limit pages, then the digest is cut to ${WIKI_DIGEST_MAX_TOKENS} tokens. ` +
      'Returns perspective, the layer and wiki_type read, pages (title, type, tags, path), count, digest_pages (pages whose text is in ' +
      'the digest), truncated (a page was cut or left out of the digest) and the digest.',
    input: () => z.object({
      perspective: z.enum(WIKI_PERSPECTIVE_NAMES as [string, ...string[]]).describe('Which pages to digest'),
      layer: layerSchema.default('agent').describe('Accepted for uniformity; the perspective\'s own layer is read'),
      user_id: userIdInput,
      query: z.string().max(4000).default('').describe('Empty: every page of the type, newest first; else a search within the type'),
      limit: z.number().int().min(1).max(50).default(10).describe('Most pages before the token cut'),
    }),
    output: () => z.object({
      perspective: z.string(),
      layer: z.enum(['user', 'agent']),
      wiki_type: z.string(),
      query: z.string(),
      pages: z.array(z.object({ title: z.string(), type: z.string(), tags: z.array(z.string()), path: z.string() })),
      count: z.number(),
      digest_pages: z.number(),
      truncated: z.boolean(),
      digest: z.string(),
      estimated_tokens: z.number(),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: (args) => stores.wikiViews.summarize(args.perspective, args.user_id, args.query, args.limit),
  });
}
