import { defineTool, z } from '@memory-service/kernel';
import { notFound, validationError, WIKI_LINK_RELATIONS, type Stores } from '@memory-service/stores';
import { layerInput, linkRefSchema, scopeOf, titleInput, userIdInput } from '../common.js';

/** The fields each action takes beyond action, layer and user_id (the kernel refuses any other the call gives, naming it). */
const FIELDS = { list: ['title'], add: ['title', 'to_title', 'relation'] } as const;

export function wikiLinkTool(stores: Stores) {
  return defineTool({
    name: 'wiki_link',
    title: 'List or add typed wiki links',
    description:
      'Typed links between wiki pages of the layer and user_id. action list: the in-links (pages pointing at title) and out-links of ' +
      `the page. action add: a link from title to to_title with relation one of ${WIKI_LINK_RELATIONS.join(', ')} ` +
      '(title is a review of, revises, or follows to_title); adding an existing link changes nothing. A missing page is an error naming ' +
      'title or to_title. Returns the page title, its in and out links, and for add the link and whether it is new.',
    input: () => z.object({
      action: z.enum(['list', 'add']).describe('list the page\'s links, or add one'),
      title: titleInput.describe('The page (for add: the page the link starts from)'),
      to_title: titleInput.optional().describe('add: the page the link points at'),
      relation: z.enum(WIKI_LINK_RELATIONS).optional().describe('add: the link type'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      action: z.enum(['list', 'add']),
      title: z.string(),
      added: linkRefSchema.extend({ created_new: z.boolean() }).optional().describe('add: the link (title is to_title)'),
      in: z.array(linkRefSchema),
      out: z.array(linkRefSchema),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    actionFields: FIELDS,
    handler: (args) => {
      const scope = scopeOf(args);
      if (args.action === 'list') {
        const page = stores.wiki.getByTitle(scope, args.title);
        if (!page) throw notFound(`wiki page of layer ${args.layer}, user_id ${JSON.stringify(args.user_id)}`, args.title.trim(), 'title');
        return { action: 'list' as const, title: page.title, ...stores.wiki.links(scope, page.title) };
      }
      if (args.to_title === undefined) throw validationError('to_title', 'to_title is required for action add (the page the link points at)');
      if (args.relation === undefined) {
        throw validationError('relation', `relation is required for action add: one of ${WIKI_LINK_RELATIONS.join(', ')}`, WIKI_LINK_RELATIONS);
      }
      if (args.to_title.trim() === args.title.trim()) throw validationError('to_title', 'to_title must name another page than title: a page cannot link to itself');
      const added = stores.wiki.link(scope, args.title, args.to_title, args.relation, { from: 'title', to: 'to_title' });
      const from = args.title.trim();
      return { action: 'add' as const, title: from, added, ...stores.wiki.links(scope, from) };
    },
  });
}
