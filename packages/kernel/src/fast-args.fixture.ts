/**
 * Property check of the argument shortcut (fast-args.ts) against zod, for the kernel's own tests
 * and for a package that composes every tool (the server's): random arguments built from the
 * values a schema names (its enum entries, bounds) and from awkward ones.
 */
import { expect } from 'vitest';
import { fastArgs } from './fast-args.js';
import { seededRandom } from './random.js';
import type { AnyZodObject } from './tools.js';

/**
 * Values worth trying for a field: `likely` ones the schema names (its entries, default, bounds,
 * strings of the bounding lengths) and `awkward` ones (one past each bound, wrong types).
 */
function candidates(schema: unknown): { likely: unknown[]; awkward: unknown[] } {
  const likely: unknown[] = [];
  const awkward: unknown[] = [null, true, false, 0, -0, 1, -1, 1.5, NaN, Infinity, 2 ** 53, '', 'a', 'x'.repeat(201), 'a/b', 'a\0b', 'Jose\u0301', 'Jos\u00e9', 'a\u200bb', [], {}, ['a']];
  const walk = (s: unknown): void => {
    const def = (s as { _zod?: { def?: Record<string, any> } })?._zod?.def;
    if (!def) return;
    if (def.entries) likely.push(...Object.values(def.entries));
    if (def.entries) awkward.push('not-an-entry');
    if (def.values) likely.push(...def.values);
    if ('defaultValue' in def) likely.push(def.defaultValue);
    for (const c of def.checks ?? []) {
      const cd = c?._zod?.def ?? {};
      for (const n of [cd.minimum, cd.maximum, cd.value]) {
        if (typeof n !== 'number') continue;
        likely.push(n);
        awkward.push(n - 1, n + 1, n + 0.5);
        if (def.type === 'string' && n <= 10_000) {
          likely.push('w'.repeat(n));
          awkward.push('w'.repeat(Math.max(0, n - 1)), 'w'.repeat(n + 1));
        }
      }
    }
    if (def.type === 'string') likely.push('plain words', 'default');
    if (def.type === 'number') likely.push(1, 10);
    if (def.type === 'boolean') likely.push(true, false);
    if (def.innerType) walk(def.innerType);
  };
  walk(schema);
  return { likely: likely.length ? likely : awkward, awkward };
}

/**
 * For `rounds` random argument objects: whenever the shortcut takes one, zod takes it too and
 * gives the same object, key order included. Returns how many the shortcut took.
 */
export function checkFastArgsAgainstZod(schema: AnyZodObject, rounds: number, seed = 1): number {
  const fast = fastArgs(schema);
  if (!fast) return 0;
  const rand = seededRandom(seed);
  const shape = schema._zod.def.shape as Record<string, unknown>;
  const fields = Object.entries(shape).map(([key, s]) => ({ key, values: candidates(s) }));
  let taken = 0;
  for (let i = 0; i < rounds; i++) {
    const args: Record<string, unknown> = {};
    for (const f of fields) {
      const r = rand();
      if (r < 0.3) continue;
      if (r < 0.32) args[f.key] = undefined;
      else {
        const pool = rand() < 0.85 ? f.values.likely : f.values.awkward;
        args[f.key] = pool[Math.floor(rand() * pool.length)];
      }
    }
    if (rand() < 0.05) args.unexpected_key = 1;
    const got = fast(args);
    if (got === undefined) continue;
    taken++;
    const ref = schema.safeParse(args);
    expect(ref.success, JSON.stringify(args)).toBe(true);
    expect(got, JSON.stringify(args)).toStrictEqual(ref.data);
    expect(Object.keys(got)).toEqual(Object.keys(ref.data as object));
  }
  return taken;
}
