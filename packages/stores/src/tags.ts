/**
 * Faceted tags. A tag `dimension:value` belongs to its dimension; a plain tag is its own
 * dimension. A filter matches a record when, for every dimension in the filter, the record has
 * at least one of the filter's tags of that dimension: same dimension OR, different dimensions AND.
 */
export function tagDimension(tag: string): string {
  const i = tag.indexOf(':');
  return i > 0 ? tag.slice(0, i) : tag;
}

/** Group filter tags by dimension, in first-seen order. */
export function facetGroups(tags: readonly string[]): string[][] {
  const groups = new Map<string, string[]>();
  for (const raw of tags) {
    const t = raw.trim();
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
 * SQL for a faceted filter over a tag table: one `id IN (...)` clause per dimension. `idCol` is
 * the record's id column; the tag table holds (record id column `fk`, layer, user_id, tag).
 */
export function facetSql(
  filter: readonly string[],
  idCol: string,
  tagTable: string,
  fk: string,
  layer: string,
  userId: string,
): { sql: string; params: string[] } {
  const parts: string[] = [];
  const params: string[] = [];
  for (const g of facetGroups(filter)) {
    parts.push(
      `${idCol} IN (SELECT ${fk} FROM ${tagTable} WHERE layer = ? AND user_id = ? AND tag IN (${g.map(() => '?').join(', ')}))`,
    );
    params.push(layer, userId, ...g);
  }
  return { sql: parts.join(' AND '), params };
}
