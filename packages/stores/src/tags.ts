import { toNfc } from '@memory-service/kernel';

/**
 * Faceted tags. A tag `dimension:value` belongs to its dimension; a plain tag is its own
 * dimension. A filter matches a record when, for every dimension in the filter, the record has
 * at least one of the filter's tags of that dimension: same dimension OR, different dimensions AND.
 */
export function tagDimension(tag: string): string {
  const i = tag.indexOf(':');
  return i > 0 ? tag.slice(0, i) : tag;
}

/**
 * Group filter tags by dimension, in first-seen order. Each is trimmed and taken in NFC, the form
 * tags are stored in (util.normalizeTags), so a filter sent decomposed finds the tag.
 */
export function facetGroups(tags: readonly string[]): string[][] {
  const groups = new Map<string, string[]>();
  for (const raw of tags) {
    const t = toNfc(raw.trim());
    if (!t) continue;
    const d = tagDimension(t);
    const g = groups.get(d) ?? [];
    if (!g.includes(t)) g.push(t);
    groups.set(d, g);
  }
  return [...groups.values()];
}

/** Whether a record's tags satisfy a faceted filter (the in-memory form of the SQL filter). */
export function matchesFacets(recordTags: readonly string[], filter: readonly string[]): boolean {
  const have = new Set(recordTags);
  return facetGroups(filter).every((g) => g.some((t) => have.has(t)));
}

/**
 * SQL for a faceted filter over a tag table, of one shape whatever the filter (the tags go in as
 * JSON parameters), so the statement cache holds one statement per caller however many tags and
 * dimensions callers send. The record must carry one of the filter's tags (found through the
 * table's (layer, user_id, tag) index) and, for every dimension, one of its tags (a lookup by
 * the table's (record id, tag) key). `idCol` is the record's id column; the tag table holds
 * (record id column `fk`, layer, user_id, tag). An empty filter gives an empty clause.
 */
export function facetSql(
  filter: readonly string[],
  idCol: string,
  tagTable: string,
  fk: string,
  layer: string,
  userId: string,
): { sql: string; params: string[] } {
  const groups = facetGroups(filter);
  if (groups.length === 0) return { sql: '', params: [] };
  const sql =
    `${idCol} IN (SELECT ${fk} FROM ${tagTable} WHERE layer = ? AND user_id = ? AND tag IN (SELECT value FROM json_each(?)))` +
    ` AND NOT EXISTS (SELECT 1 FROM json_each(?) AS g WHERE NOT EXISTS (SELECT 1 FROM ${tagTable} AS f WHERE f.${fk} = ${idCol} AND f.tag IN (SELECT value FROM json_each(g.value))))`;
  return { sql, params: [layer, userId, JSON.stringify(groups.flat()), JSON.stringify(groups)] };
}
