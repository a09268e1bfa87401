import { invalid } from './errors.js';

/**
 * Tool arguments the input schema does not name are dropped by parsing, so a caller that sends a
 * few extra ones still gets its call through. A key that looks like a misspelling of an argument
 * the call left out (`layr` for `layer`, `userid` for `user_id`) is different: dropping it would
 * quietly use that argument's default (the wrong layer, another user's memory). Such a key is an
 * error naming it and the argument it most likely meant. So is a key that is a usual other name
 * for `user_id` or `layer` (`user`, `username`, `uid`, `namespace`, `lyr`: ALIASES) while the call
 * left that argument out: those are too far from the name to look misspelled, and dropping them
 * wrote to (or deleted from) the default user's memory.
 */

/** Lower-cased, without `_`, `-`, `.` and white space: `userId`, `user-id`, `user.id` and `user_id` compare alike. */
function folded(key: string): string {
  return key.toLowerCase().replace(/[\s._-]/g, '');
}

/**
 * Usual other names of the scope arguments, folded: a closed list (docs/decisions.md), since a
 * wrong guess refuses a call that meant no harm. Spellings one or two edits away (`usrid`,
 * `layr`, `layers`) are caught by the distance rule and need no entry.
 */
const ALIASES: ReadonlyMap<string, string> = new Map([
  ...['user', 'users', 'usr', 'uid', 'username', 'usrname', 'userkey', 'owner', 'ownerid', 'namespace', 'ns', 'tenant', 'tenantid', 'account', 'accountid'].map(
    (a) => [a, 'user_id'] as const,
  ),
  ...['lyr', 'lay', 'layername', 'memorylayer', 'memlayer'].map((a) => [a, 'layer'] as const),
]);

/** Levenshtein distance of a and b, or `limit + 1` as soon as it is known to exceed `limit`. */
function distanceWithin(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      row.push(d);
      if (d < best) best = d;
    }
    if (best > limit) return limit + 1;
    prev = row;
  }
  return prev[b.length]!;
}

/** The argument `key` most likely misspells, or names by a usual other name, among `missing` (arguments the call did not give), or null. */
export function misspelledArgument(key: string, missing: readonly string[]): string | null {
  const k = folded(key);
  const alias = ALIASES.get(k);
  if (alias !== undefined && missing.includes(alias)) return alias;
  // Short keys differ from many words by a letter or two: only one edit for them.
  const limit = k.length <= 4 ? 1 : 2;
  let found: string | null = null;
  let bestDistance = limit + 1;
  for (const name of missing) {
    const d = distanceWithin(k, folded(name), limit);
    if (d < bestDistance) {
      bestDistance = d;
      found = name;
    }
  }
  return found;
}

/**
 * Throw a validation error when a key of `given` that `known` does not have looks like a misspelling
 * of a known argument that `given` lacks; other unknown keys pass (parsing drops them). `what` says
 * what the keys are, in the error (a tool's arguments; the HTTP hook route's body keys).
 */
export function checkMisspelledKeys(given: Record<string, unknown>, known: readonly string[], what = 'an argument of this tool'): void {
  let missing: string[] | undefined;
  for (const key of Object.keys(given)) {
    if (known.includes(key)) continue;
    missing ??= known.filter((k) => given[k] === undefined);
    const meant = misspelledArgument(key, missing);
    if (meant !== null) {
      throw invalid(key, `is not ${what}; did you mean "${meant}"? (arguments: ${known.join(', ')})`, known);
    }
  }
}

/**
 * When a call left out the required argument `field` and gave keys the tool does not take
 * (`content` or `thought` for think's `text`), the words to add to its "is required" error: it
 * most likely named the argument otherwise, and the keys were dropped without a word. The call
 * fails either way, so saying so refuses nothing that would have passed. Null otherwise.
 */
export function keysGivenInstead(given: Record<string, unknown>, known: readonly string[], field: string | undefined): string | null {
  if (field === undefined || !known.includes(field) || given[field] !== undefined) return null;
  const unknown = Object.keys(given).filter((k) => !known.includes(k));
  if (unknown.length === 0) return null;
  const shown = unknown.slice(0, 5).map((k) => JSON.stringify(k.length > 40 ? `${k.slice(0, 40)}...` : k));
  const more = unknown.length > shown.length ? ` and ${unknown.length - shown.length} more` : '';
  return `; the call gave ${shown.join(', ')}${more} instead, which this tool does not take (arguments: ${known.join(', ')})`;
}
