/**
 * A family of names that must stay distinct: `<head><tail>`, then `<head>-2<tail>`,
 * `<head>-3<tail>`, ... (fact keys, automatic wiki titles, wiki file paths). A new member's number
 * is found by doubling, then halving between a taken number and a free one (`freeNumber`): a few
 * lookups in the column's unique index however large the family, where trying 2, 3, 4, ... in turn
 * made each new member cost one lookup per member before it (a family grows with every name that
 * slugs or truncates alike, or every note that starts with the same six words). While no member
 * was deleted that is the lowest free number, as before; with gaps it may be a higher free one.
 */

/** The name of member n (n >= 1). */
export function familyName(head: string, tail: string, n: number): string {
  return n === 1 ? `${head}${tail}` : `${head}-${n}${tail}`;
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

/**
 * A number n >= 1 with `taken(n)` false: 1 when free; else 2, 4, 8, ... until a free one, then
 * halving between the last taken and the first free, so about 2 log2(k) lookups for a family of k.
 * The answer is free and follows a taken number; it is the lowest free one when 1..k are taken.
 */
export function freeNumber(taken: (n: number) => boolean): number {
  if (!taken(1)) return 1;
  let low = 1;
  let high = 2;
  while (taken(high)) {
    low = high;
    high *= 2;
  }
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (taken(mid)) low = mid;
    else high = mid;
  }
  return high;
}

/** The name of a free member: `freeNumber` over the names `taken` reports (one index lookup each). */
export function freeName(head: string, tail: string, taken: (name: string) => boolean): string {
  return familyName(head, tail, freeNumber((n) => taken(familyName(head, tail, n))));
}
