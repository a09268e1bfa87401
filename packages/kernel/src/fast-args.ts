/**
 * A shortcut for the usual tool call: arguments that plainly satisfy a tool's input schema are
 * taken without running zod, which on a request that follows idle time costs about ten times as
 * much as a few typeof checks (its code is out of the CPU's caches by then).
 *
 * The shortcut is read off the zod schema itself, so the schema stays the one definition. It only
 * ever accepts: an input it is not sure of (a key the schema does not have, a value of a kind or
 * check it does not know, anything that fails) gets `undefined`, and zod parses that input as
 * before, error messages included. What it accepts, it shapes as zod would (keys in the schema's
 * order, defaults filled, absent optional keys left out); fast-args.test.ts compares the two on
 * schemas of every known part, and the server's test/fast-args.test.ts on every first-party tool.
 *
 * Known: an object of fields that are string (length bounds, a pattern without g or y, a refinement, an overwrite), number
 * (finite, safe integer, inclusive or exclusive bounds), boolean, enum of strings or literal, each
 * possibly wrapped in default, optional and nullable (in that order, outside in). A schema with
 * anything else, or with a check of its own, gets no shortcut.
 */
import type { AnyZodObject } from './tools.js';

/** Parses arguments that plainly satisfy the schema, or answers undefined: let zod parse them. */
export type FastArgs = (args: unknown) => Record<string, unknown> | undefined;

/** A field's check of a value that is neither undefined nor null: true when it passes. */
export type Check = (value: unknown) => boolean;

interface Field {
  key: string;
  check: Check;
  /** What an absent value becomes: 'omit' (optional), 'fail' (required), or the default (read from the def each time, as zod does). */
  absent: { kind: 'omit' } | { kind: 'fail' } | { kind: 'default'; def: Def };
  nullable: boolean;
}

const cache = new WeakMap<object, FastArgs | null>();

/** The shortcut of a tool's input schema, made once per schema; null when the schema has parts it does not know. */
export function fastArgs(schema: AnyZodObject): FastArgs | null {
  let made = cache.get(schema);
  if (made === undefined) {
    made = build(schema);
    cache.set(schema, made);
  }
  return made;
}

export type Def = Record<string, any>;
export const defOf = (schema: unknown): Def | undefined => (schema as { _zod?: { def?: Def } } | undefined)?._zod?.def;
const isPrimitive = (v: unknown): boolean => v === null || ['string', 'number', 'boolean'].includes(typeof v);

function build(schema: AnyZodObject): FastArgs | null {
  const def = defOf(schema);
  if (!def || def.type !== 'object' || def.catchall !== undefined || typeof def.shape !== 'object' || !noChecks(def)) return null;
  const fields: Field[] = [];
  for (const key of Object.keys(def.shape)) {
    const field = fieldOf(key, def.shape[key]);
    if (!field) return null;
    fields.push(field);
  }
  const keys = new Set(fields.map((f) => f.key));
  return (args) => {
    if (typeof args !== 'object' || args === null || Array.isArray(args) || Object.getPrototypeOf(args) !== Object.prototype) return undefined;
    const input = args as Record<string, unknown>;
    for (const key in input) if (!keys.has(key)) return undefined;
    const out: Record<string, unknown> = {};
    for (const f of fields) {
      const v = input[f.key];
      if (v === undefined) {
        // A key given as undefined is left to zod: only an absent key has a plain meaning here.
        if (f.key in input) return undefined;
        if (f.absent.kind === 'fail') return undefined;
        if (f.absent.kind === 'default') out[f.key] = f.absent.def.defaultValue;
        continue;
      }
      if (v === null) {
        if (!f.nullable) return undefined;
      } else if (!f.check(v)) return undefined;
      out[f.key] = v;
    }
    return out;
  };
}

/** A field from its schema: wrappers outside in (default, optional, nullable), then the base type. */
function fieldOf(key: string, schema: unknown): Field | null {
  let absent: Field['absent'] = { kind: 'fail' };
  let nullable = false;
  let seenWrapper = false;
  let def = defOf(schema);
  for (;;) {
    if (!def) return null;
    if (def.type === 'default') {
      // A default fills an absent value without validating it; only the outermost wrapper decides.
      if (seenWrapper) return null;
      absent = { kind: 'default', def };
    } else if (def.type === 'optional') {
      if (absent.kind === 'fail' && !seenWrapper) absent = { kind: 'omit' };
      else if (absent.kind !== 'default') return null;
    } else if (def.type === 'nullable') {
      nullable = true;
    } else {
      break;
    }
    seenWrapper = true;
    def = defOf(def.innerType);
  }
  const check = baseCheck(def);
  return check ? { key, check, absent, nullable } : null;
}

/** The check of a base type, or null when the type or one of its checks is not known here (fast-output.ts uses it too). */
export function baseCheck(def: Def): Check | null {
  switch (def.type) {
    case 'string':
      return stringCheck(def);
    case 'number':
      return numberCheck(def);
    case 'boolean':
      return noChecks(def) && checksOf(def) ? (v) => typeof v === 'boolean' : null;
    case 'enum': {
      // String values only: zod leaves out the reverse keys of a numeric TypeScript enum.
      if (!noChecks(def) || typeof def.entries !== 'object' || !Object.values(def.entries).every((v) => typeof v === 'string')) return null;
      const values = new Set<unknown>(Object.values(def.entries));
      return (v) => values.has(v);
    }
    case 'literal': {
      if (!noChecks(def) || !Array.isArray(def.values) || !def.values.every(isPrimitive)) return null;
      const values = new Set<unknown>(def.values);
      return (v) => values.has(v);
    }
    default:
      return null;
  }
}

export const noChecks = (def: Def): boolean => !def.checks || def.checks.length === 0;

/**
 * The defs of a type's checks, or null when the type is a format of its own (z.email() and the
 * like carry their check on the type). A check's `when` can only make zod skip it, so applying
 * every check here never takes what zod would refuse.
 */
function checksOf(def: Def): Def[] | null {
  if (def.format !== undefined || def.check !== undefined || def.pattern !== undefined) return null;
  const out: Def[] = [];
  for (const c of def.checks ?? []) {
    const cd = defOf(c);
    if (!cd || (c as { _zod?: { check?: unknown } })._zod?.check === undefined) return null;
    out.push(cd);
  }
  return out;
}

function stringCheck(def: Def): Check | null {
  if (def.coerce) return null;
  const checks = checksOf(def);
  if (!checks) return null;
  let min = 0;
  let max = Infinity;
  const patterns: RegExp[] = [];
  const refinements: ((v: string) => unknown)[] = [];
  const overwrites: ((v: string) => unknown)[] = [];
  for (const c of checks) {
    if (c.check === 'min_length' && typeof c.minimum === 'number') min = Math.max(min, c.minimum);
    else if (c.check === 'max_length' && typeof c.maximum === 'number') max = Math.min(max, c.maximum);
    else if (c.check === 'string_format' && c.format === 'regex' && c.pattern instanceof RegExp && !c.pattern.global && !c.pattern.sticky) patterns.push(c.pattern);
    // .refine(fn): only an answer of exactly true passes here (a promise, or any other truthy value, goes to zod).
    else if (c.check === 'custom' && typeof c.fn === 'function' && c.when === undefined) refinements.push(c.fn);
    // .overwrite(fn) (userIdSchema's NFC): only a value it leaves as it is passes here, so every
    // check sees the value zod's would and the answer is the value zod gives; any other goes to zod.
    else if (c.check === 'overwrite' && typeof c.tx === 'function') overwrites.push(c.tx);
    else return null;
  }
  return (v) => {
    if (typeof v !== 'string' || v.length < min || v.length > max) return false;
    for (const o of overwrites) if (o(v) !== v) return false;
    for (const p of patterns) if (!p.test(v)) return false;
    for (const r of refinements) if (r(v) !== true) return false;
    return true;
  };
}

function numberCheck(def: Def): Check | null {
  if (def.coerce) return null;
  const checks = checksOf(def);
  if (!checks) return null;
  let int = false;
  const bounds: Check[] = [];
  for (const c of checks) {
    if (c.check === 'number_format' && c.format === 'safeint') int = true;
    else if (c.check === 'greater_than' && typeof c.value === 'number') {
      const { value, inclusive } = c;
      bounds.push(inclusive ? (v) => (v as number) >= value : (v) => (v as number) > value);
    } else if (c.check === 'less_than' && typeof c.value === 'number') {
      const { value, inclusive } = c;
      bounds.push(inclusive ? (v) => (v as number) <= value : (v) => (v as number) < value);
    } else return null;
  }
  return (v) => {
    if (typeof v !== 'number' || !Number.isFinite(v) || (int && !Number.isSafeInteger(v))) return false;
    for (const b of bounds) if (!b(v)) return false;
    return true;
  };
}
