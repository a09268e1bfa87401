/**
 * Property check of the answer shortcut (fast-output.ts) against zod, for the kernel's own tests
 * and for a package that composes every tool (the server's): answers made from the schema itself
 * (every kind of part it names, with values its checks take), then spoilt now and then (a key
 * dropped, added, given as undefined or moved, a value of another kind).
 */
import { expect } from 'vitest';
import { fastOutput } from './fast-output.js';
import { seededRandom } from './random.js';
import type { z } from './zod.js';

type Def = Record<string, any>;
const defOf = (s: unknown): Def | undefined => (s as { _zod?: { def?: Def } } | undefined)?._zod?.def;

/** Values of other kinds, for spoiling an answer. */
const AWKWARD: unknown[] = [null, true, 0, -1, 1.5, NaN, Infinity, '', 'x', [], {}, [1], new Date(0), undefined];

/** A value for the schema, mostly one zod takes; `spoil` is the chance of spoiling each part. */
function sample(schema: unknown, rand: () => number, spoil: number, depth = 0): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  if (rand() < spoil) return pick(AWKWARD);
  const def = defOf(schema);
  if (!def) return undefined;
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
      if (def.type === 'nullable' && rand() < 0.2) return null;
      return sample(def.innerType, rand, spoil, depth);
    case 'string': {
      let min = 0;
      let max = 12;
      for (const c of def.checks ?? []) {
        const cd = defOf(c) ?? {};
        if (cd.check === 'min_length') min = Math.max(min, cd.minimum);
        if (cd.check === 'max_length') max = Math.min(max, cd.maximum);
      }
      return 'w'.repeat(Math.min(max, min + Math.floor(rand() * 4)));
    }
    case 'number': {
      let lo = 0;
      for (const c of def.checks ?? []) {
        const cd = defOf(c) ?? {};
        if (cd.check === 'greater_than') lo = Math.max(lo, cd.value + (cd.inclusive ? 0 : 1));
      }
      return lo + Math.floor(rand() * 3);
    }
    case 'boolean':
      return rand() < 0.5;
    case 'enum':
      return pick(Object.values(def.entries ?? { a: 'a' }));
    case 'literal':
      return pick(def.values ?? [null]);
    case 'unknown':
    case 'any':
      return pick([1, 'text', { nested: [1, 2] }, null, [true]]);
    case 'array': {
      const n = depth > 3 ? 0 : Math.floor(rand() * 3);
      return Array.from({ length: n }, () => sample(def.element, rand, spoil, depth + 1));
    }
    case 'record': {
      const out: Record<string, unknown> = {};
      if (depth <= 3) for (let i = Math.floor(rand() * 3); i > 0; i--) out[`k${i}`] = sample(def.valueType, rand, spoil, depth + 1);
      return out;
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, s] of Object.entries(def.shape as Record<string, unknown>)) {
        const optional = defOf(s)?.type === 'optional' || defOf(s)?.type === 'default';
        if (optional && rand() < 0.4) continue;
        if (rand() < spoil / 2) continue;
        out[key] = sample(s, rand, spoil, depth + 1);
      }
      if (rand() < spoil) out.unexpected_key = 1;
      if (rand() < spoil) {
        // Move the first key to the end.
        const first = Object.keys(out)[0];
        if (first !== undefined) {
          const v = out[first];
          delete out[first];
          out[first] = v;
        }
      }
      return out;
    }
    default:
      return undefined;
  }
}

/**
 * For `rounds` answers made from the schema: whenever the shortcut takes one, zod takes it too and
 * gives it back with the same JSON. Returns how many the shortcut took.
 */
export function checkFastOutputAgainstZod(schema: z.ZodType, rounds: number, seed = 1): number {
  const fast = fastOutput(schema);
  if (!fast) return 0;
  const rand = seededRandom(seed);
  let taken = 0;
  for (let i = 0; i < rounds; i++) {
    const answer = sample(schema, rand, i % 3 === 0 ? 0 : 0.04);
    if (!fast(answer)) continue;
    taken++;
    const ref = schema.safeParse(answer);
    expect(ref.success, JSON.stringify(answer)).toBe(true);
    expect(JSON.stringify(answer)).toBe(JSON.stringify(ref.data));
  }
  return taken;
}
