import { toNfc } from '@memory-service/kernel';
import { normalizeContent } from '../graph.js';
import { tagDimension } from '../tags.js';
import type { Migration } from '../types.js';

type Db = Parameters<Migration['up']>[0];

/** A condition true for a text column holding a character beyond ASCII (its bytes outnumber its characters): only those can change in NFC or in the fold. */
const beyondAscii = (col: string): string => `length(CAST(${col} AS BLOB)) <> length(${col})`;

/** The tags of a JSON list in NFC, repeats after the first dropped (the order kept); null when none changes. */
function nfcTags(json: string): string[] | null {
  let tags: unknown;
  try {
    tags = JSON.parse(json);
  } catch {
    return null;
  }
  if (!Array.isArray(tags)) return null;
  const out: unknown[] = [];
  for (const t of tags) {
    const v = typeof t === 'string' ? toNfc(t) : t;
    if (!out.includes(v)) out.push(v);
  }
  return out.length === tags.length && out.every((v, i) => v === tags[i]) ? null : (out as string[]);
}

/** Rewrite a table's JSON `tags` column in NFC, for the rows holding a tag beyond ASCII. */
function nfcTagColumn(db: Db, table: string): void {
  const update = db.prepare(`UPDATE ${table} SET tags = ? WHERE id = ?`);
  for (const r of db.prepare(`SELECT id, tags FROM ${table} WHERE ${beyondAscii('tags')}`).all() as { id: number; tags: string }[]) {
    const tags = nfcTags(r.tags);
    if (tags) update.run(JSON.stringify(tags), r.id);
  }
}

/**
 * Rewrite the rows of a tag table (primary key (record id, tag)) whose tag is not in NFC: the row
 * goes, and its NFC form is inserted unless the record holds that already (an NFC and an NFD
 * spelling of one tag on one record become one row, as the record's JSON list keeps one).
 */
function nfcTagTable(db: Db, table: string, fk: string, withDimension: boolean): void {
  const rows = db.prepare(`SELECT ${fk} AS rid, layer, user_id, tag FROM ${table} WHERE ${beyondAscii('tag')}`).all() as { rid: number; layer: string; user_id: string; tag: string }[];
  const drop = db.prepare(`DELETE FROM ${table} WHERE ${fk} = ? AND tag = ?`);
  const add = withDimension
    ? db.prepare(`INSERT OR IGNORE INTO ${table} (${fk}, layer, user_id, dimension, tag) VALUES (?, ?, ?, ?, ?)`)
    : db.prepare(`INSERT OR IGNORE INTO ${table} (${fk}, layer, user_id, tag) VALUES (?, ?, ?, ?)`);
  for (const r of rows) {
    const nfc = toNfc(r.tag);
    if (nfc === r.tag) continue;
    drop.run(r.rid, r.tag);
    if (withDimension) add.run(r.rid, r.layer, r.user_id, tagDimension(nfc), nfc);
    else add.run(r.rid, r.layer, r.user_id, nfc);
  }
}

/**
 * Text stored before it was normalised, in the forms its lookups now use:
 * - tags (episodes, wiki pages, graph nodes, and the episode_tags and graph_node_tags index rows)
 *   in NFC, as tags are now written and as every tag filter is taken: an NFD tag stored before
 *   would otherwise never match a filter again. A record holding one tag in both forms keeps one.
 *   No record is dropped and no other text changes: NFC is the same text, canonically;
 * - counterfactual anchors in NFC, as save and list now take them;
 * - graph_nodes.norm_content, the de-duplication form of a node's content, computed again with
 *   graph.normalizeContent (now retrieval's fold: "Straße AG" is "strasse ag"). It is derived from
 *   the content and never shown; two nodes that now fold alike both stay (the first found is the
 *   one an add then answers with).
 * Only rows holding a character beyond ASCII are read: no ASCII text changes in any of these forms.
 */
export const textFormsSchema: Migration = {
  id: 26,
  name: 'stores_text_forms',
  up(db) {
    nfcTagColumn(db, 'episodes');
    nfcTagColumn(db, 'wiki_pages');
    nfcTagColumn(db, 'graph_nodes');
    nfcTagTable(db, 'episode_tags', 'episode_id', true);
    nfcTagTable(db, 'graph_node_tags', 'node_id', false);
    const anchor = db.prepare('UPDATE counterfactuals SET anchor = ? WHERE id = ?');
    for (const r of db.prepare(`SELECT id, anchor FROM counterfactuals WHERE ${beyondAscii('anchor')}`).all() as { id: number; anchor: string }[]) {
      const nfc = toNfc(r.anchor);
      if (nfc !== r.anchor) anchor.run(nfc, r.id);
    }
    const norm = db.prepare('UPDATE graph_nodes SET norm_content = ? WHERE id = ?');
    for (const r of db.prepare(`SELECT id, content, norm_content FROM graph_nodes WHERE ${beyondAscii('content')}`).all() as { id: number; content: string; norm_content: string }[]) {
      const n = normalizeContent(r.content);
      if (n !== r.norm_content) norm.run(n, r.id);
    }
  },
};
