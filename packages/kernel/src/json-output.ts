/**
 * Where a tool's output schema lets through a value JSON cannot carry (a BigInt, a cycle, an object
 * whose toJSON throws), so that checkOutput (tools.ts) refuses such an answer inside the call's
 * transaction, naming the tool, its plugin and the field, and the call's writes roll back. The
 * answer used to pass the schema, be committed, and only then fail in the transport's
 * JSON.stringify ("Do not know how to serialize a BigInt"): a call reported failed kept its writes.
 *
 * Read off the zod schema once per schema (cached): a schema of plain JSON kinds (strings,
 * numbers, booleans, enums, literals, null, and objects, arrays, records, tuples, unions and
 * intersections of them) gets no guard at all, so a first-party tool's strict schema costs nothing
 * more per call. Elsewhere the guard walks the answer only down to the parts that can hold such a
 * value (a field of z.unknown(), z.any(), z.bigint(), z.date(), z.map(), z.set(), z.custom /
 * z.instanceof, z.lazy, a transform's output, a kind not known here...) and stringifies those parts
 * alone.
 */
import { defOf, type Def } from './fast-args.js';
import type { z } from './zod.js';

/** Answers where the value holds something JSON cannot carry (`field "a.b": a BigInt`), or undefined when it is all sendable. */
export type JsonGuard = (value: unknown) => string | undefined;

const cache = new WeakMap<object, JsonGuard | null>();

/** The guard of an output schema, made once per schema; null when the schema admits JSON values only. */
export function jsonGuard(schema: z.ZodType): JsonGuard | null {
  let made = cache.get(schema);
  if (made === undefined) {
    const part = partGuard(schema, new Set());
    made = part && ((value: unknown) => part(value, []));
    cache.set(schema, made);
  }
  return made;
}

type Path = (string | number)[];
type PartGuard = (value: unknown, path: Path) => string | undefined;

/** Kinds whose values are always JSON (no part of them can hold anything else). */
const JSON_LEAVES: ReadonlySet<string> = new Set(['string', 'number', 'int', 'boolean', 'null', 'enum', 'nan', 'never', 'template_literal', 'success', 'file']);
/** Wrappers whose value is their inner schema's (or null / absent, both sendable). */
const WRAPPERS: ReadonlySet<string> = new Set(['optional', 'nullable', 'default', 'prefault', 'nonoptional', 'readonly', 'catch']);

/** The guard of one part of a schema; null when every value it admits is JSON. `seen` stops at a schema met again inside itself. */
function partGuard(schema: unknown, seen: Set<unknown>): PartGuard | null {
  const def = defOf(schema);
  if (!def) return whole;
  if (seen.has(schema)) return whole;
  seen.add(schema);
  try {
    return defGuard(def, seen);
  } finally {
    seen.delete(schema);
  }
}

function defGuard(def: Def, seen: Set<unknown>): PartGuard | null {
  const type = def.type as string;
  if (JSON_LEAVES.has(type)) return null;
  if (type === 'literal') return Array.isArray(def.values) && def.values.every((v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v)) ? null : whole;
  if (WRAPPERS.has(type)) return partGuard(def.innerType, seen);
  // A pipe's answer is what its out side gives (a transform's output may be anything).
  if (type === 'pipe') return partGuard(def.out, seen);
  switch (type) {
    case 'object': {
      const fields: [string, PartGuard][] = [];
      for (const key of Object.keys(def.shape ?? {})) {
        const g = partGuard(def.shape[key], seen);
        if (g) fields.push([key, g]);
      }
      const rest = def.catchall === undefined ? null : partGuard(def.catchall, seen);
      // An unknown key that zod keeps (catchall): look at every key not in the shape.
      if (rest) {
        const known = new Set(Object.keys(def.shape ?? {}));
        return inObject((v, path) => {
          for (const [k, g] of fields) {
            const bad = at(g, v[k], path, k);
            if (bad) return bad;
          }
          for (const k of Object.keys(v)) {
            if (known.has(k)) continue;
            const bad = at(rest, v[k], path, k);
            if (bad) return bad;
          }
          return undefined;
        });
      }
      if (!fields.length) return null;
      return inObject((v, path) => {
        for (const [k, g] of fields) {
          const bad = at(g, v[k], path, k);
          if (bad) return bad;
        }
        return undefined;
      });
    }
    case 'array': {
      const g = partGuard(def.element, seen);
      if (!g) return null;
      return (v, path) => {
        if (!Array.isArray(v)) return whole(v, path);
        for (let i = 0; i < v.length; i++) {
          const bad = at(g, v[i], path, i);
          if (bad) return bad;
        }
        return undefined;
      };
    }
    case 'record': {
      const g = partGuard(def.valueType, seen);
      if (!g) return null;
      return inObject((v, path) => {
        for (const k of Object.keys(v)) {
          const bad = at(g, v[k], path, k);
          if (bad) return bad;
        }
        return undefined;
      });
    }
    case 'tuple': {
      const items = ((def.items ?? []) as unknown[]).map((s) => partGuard(s, seen));
      const rest = def.rest ? partGuard(def.rest, seen) : null;
      if (!rest && items.every((g) => !g)) return null;
      return (v, path) => {
        if (!Array.isArray(v)) return whole(v, path);
        for (let i = 0; i < v.length; i++) {
          const g = i < items.length ? items[i] : rest;
          const bad = g ? at(g, v[i], path, i) : undefined;
          if (bad) return bad;
        }
        return undefined;
      };
    }
    case 'union':
    case 'intersection': {
      const parts = type === 'union' ? ((def.options ?? []) as unknown[]) : [def.left, def.right];
      // Which member took the value is not known here: a union with any member that may hold a
      // non-JSON value has its whole value stringified.
      return parts.some((s) => partGuard(s, seen)) ? whole : null;
    }
    default:
      // any, unknown, bigint, date, map, set, symbol, undefined, void, function, promise, custom
      // (instanceof), lazy, transform, and any kind not known here.
      return whole;
  }
}

/** A guard of an object-valued part: a value that is not a plain object (zod let it through some other way) is stringified whole. */
function inObject(check: (v: Record<string, unknown>, path: Path) => string | undefined): PartGuard {
  return (v, path) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return whole(v, path);
    return check(v as Record<string, unknown>, path);
  };
}

/** A child's guard, run on a present value with its key added to the path (undefined and null are sendable). */
function at(g: PartGuard, v: unknown, path: Path, key: string | number): string | undefined {
  if (v === undefined || v === null) return undefined;
  path.push(key);
  try {
    return g(v, path);
  } finally {
    path.pop();
  }
}

/** Stringify the part; when JSON refuses it, say where and why. */
function whole(v: unknown, path: Path): string | undefined {
  // A primitive JSON always writes, but a BigInt.
  if (typeof v !== 'object' || v === null) return typeof v === 'bigint' ? where(path, 'a BigInt') : undefined;
  try {
    JSON.stringify(v);
    return undefined;
  } catch (err) {
    return describe(v, path, err);
  }
}

/** Where inside `v` JSON fails: the first BigInt, cycle or throwing toJSON, by its path; JSON's own message otherwise. */
function describe(v: unknown, base: Path, err: unknown): string {
  const found = find(v, [...base], new Set());
  return found ?? where(base, (err as Error)?.message ?? String(err));
}

function find(v: unknown, path: Path, stack: Set<object>): string | undefined {
  if (typeof v === 'bigint') return where(path, 'a BigInt');
  if (typeof v !== 'object' || v === null) return undefined;
  if (stack.has(v)) return where(path, 'a circular reference');
  const toJSON = (v as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    let out: unknown;
    try {
      out = toJSON.call(v, path.length ? String(path.at(-1)) : '');
    } catch (err) {
      return where(path, `a toJSON that throws (${(err as Error)?.message ?? String(err)})`);
    }
    if (out !== v) return find(out, path, stack);
  }
  stack.add(v);
  try {
    const keys = Array.isArray(v) ? v.keys() : Object.keys(v);
    for (const k of keys) {
      path.push(k);
      const bad = find((v as Record<string | number, unknown>)[k], path, stack);
      path.pop();
      if (bad) return bad;
    }
  } finally {
    stack.delete(v);
  }
  return undefined;
}

function where(path: Path, what: string): string {
  return `${path.length ? `field "${path.join('.')}"` : 'the answer'} holds ${what}`;
}

/** Where a whole value holds something JSON cannot carry (as a guard says it), or undefined: for an answer with no output schema. */
export function jsonProblem(value: unknown): string | undefined {
  return whole(value, []);
}
