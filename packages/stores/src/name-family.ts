/**
 * A family of names that must stay distinct: `<head><tail>`, then `<head>-2<tail>`,
 * `<head>-3<tail>`, ... (fact keys, automatic wiki titles, wiki file paths). A new member takes
 * the lowest free number. The members already taken are read in one range query over the
 * column's unique index (see `familyRange`) instead of one lookup per number tried: a family
 * grows with every name that slugs or truncates alike, and trying 2, 3, 4, ... in turn made each
 * new member cost a lookup per member before it.
 */

/** The name of member n (n >= 1). */
export function familyName(head: string, tail: string, n: number): string {
  return n === 1 ? `${head}${tail}` : `${head}-${n}${tail}`;
}

/**
 * SQL bounds that hold every member: `col = first OR (col > lo AND col < hi)`. Every name that
 * starts with `<head>-` sorts after `lo` and before `hi` ('.' follows '-'), whatever the tail.
 */
export function familyRange(head: string, tail: string): { first: string; lo: string; hi: string } {
  return { first: `${head}${tail}`, lo: `${head}-`, hi: `${head}.` };
}

/** The member number of a name (1 for `<head><tail>`), or null for a name outside the family. */
export function familyNumber(name: string, head: string, tail: string): number | null {
  if (name === `${head}${tail}`) return 1;
  if (!name.startsWith(`${head}-`) || !name.endsWith(tail)) return null;
  const digits = name.slice(head.length + 1, name.length - tail.length);
  // Written by familyName: no sign, no leading zero, 2 or more.
  if (!/^[1-9][0-9]{0,8}$/.test(digits)) return null;
  const n = Number(digits);
  return n >= 2 ? n : null;
}

/** The lowest member number not in `taken`. */
export function lowestFree(taken: ReadonlySet<number>): number {
  let n = 1;
  while (taken.has(n)) n++;
  return n;
}
