import { defineTool, z } from '@memory-service/kernel';
import { notFound, type Stores } from '@memory-service/stores';
import { layerInput, scopeOf, titleInput, userIdInput } from '../common.js';

export function wikiDeleteTool(stores: Stores) {
  return defineTool({
    name: 'wiki_delete',
    title: 'Delete a wiki page',
    description:
      'Delete the wiki page with this title in the layer and user_id: its file, its index entry (dream and wiki_search no longer find it) ' +
      'and its typed links. With shadow_bin true (default) the page (content, type, tags) is archived in the Shadow Bin first and can be ' +
      'restored; false deletes it outright. A title with no page is an error naming title. Returns the deleted page\'s title, wiki_type ' +
      'and path, whether it was archived (and the Shadow Bin entry id), and how many links went with it.',
    input: () => z.object({
      title: titleInput.describe('Title of the page to delete'),
      shadow_bin: z.boolean().default(true).describe('Archive the page in the Shadow Bin before deleting'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      deleted: z.boolean(),
      title: z.string(),
      wiki_type: z.string(),
      path: z.string(),
      archived: z.boolean(),
      shadow_id: z.string().nullable(),
      deleted_links: z.number(),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: (args) => {
      const r = stores.shadowBin.deleteWikiPage(scopeOf(args), args.title, args.shadow_bin);
      if (!r) throw notFound(`wiki page of layer ${args.layer}, user_id ${JSON.stringify(args.user_id)}`, args.title.trim(), 'title');
      return {
        deleted: true,
        title: r.page.title,
        wiki_type: r.page.wiki_type,
        path: r.page.path,
        archived: r.entry !== null,
        shadow_id: r.entry?.id ?? null,
        deleted_links: r.links,
      };
    },
  });
}
