import type { Layer } from './types.js';
import { makeId, parseJson } from './util.js';
import type { WikiPageInfo } from './wiki.js';
import type { WikiType } from './wiki-types.js';

/** A row of wiki_pages, as the wiki's SQL reads it. */
export interface WikiRow {
  id: number;
  layer: Layer;
  user_id: string;
  title: string;
  wiki_type: WikiType;
  tags: string;
  path: string;
  content: string;
  created: string;
  updated: string;
  size: number;
}

/** The columns of a page as listed (everything but its content). */
export const INFO_COLS = 'id, layer, user_id, title, wiki_type, tags, path, created, updated, size';

export function toInfo(r: Omit<WikiRow, 'content'>): WikiPageInfo {
  return {
    id: makeId('wiki', r.id),
    layer: r.layer,
    user_id: r.user_id,
    title: r.title,
    wiki_type: r.wiki_type,
    tags: parseJson<string[]>(r.tags, []),
    path: r.path,
    created: r.created,
    updated: r.updated,
    size: r.size,
  };
}
