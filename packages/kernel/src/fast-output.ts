/**
 * A shortcut for checking a tool's answer against its output schema (checkOutput in tools.ts): an
 * answer that plainly satisfies the schema, with only the schema's keys and in the schema's order,
 * is sent as it is. zod's parse of the same answer copies every object and array in it (about 14 KB
 * of garbage and 15-40 µs for one dream answer of ten hits), only to give back what the tool made.
 *
 * Like the argument shortcut (fast-args.ts), it is read off the zod schema, so the schema stays the
 * one definition, and it only ever accepts: an answer it is not sure of (a key the schema does not
 * have, keys in another order, a value of a kind or check it does not know, an absent key that has
 * a default, a key given as undefined) goes to zod as before, which strips, fills or refuses it
 * with its own message. An answer it accepts, zod would give back with the same JSON
 * (fast-output.test.ts checks both on every known part, and the server's tests on every tool).
 *
 * Known: objects of known fields (no catchall, no check of their own), arrays (with length bounds),
 * records with string keys, unknown and any, and the base types of fast-args.ts; each possibly
 * wrapped in default, optional and nullable. Any other part makes its own values go to zod.
 */
import { baseCheck, defOf, noChecks, type Check, type Def } from './fast-args.js';
import type { z } from './zod.js';

/** True when the answer plainly satisfies the schema and zod would give it back unchanged. */
export type FastOutput = (value: unknown) => boolean;

const cache = new WeakMap<object, FastOutput | null>();

/** The shortcut of a tool's output schema, made once per schema; null when the schema itself is not a known object. */
export function fastOutput(schema: z.ZodType): FastOutput | null {
  let made = cache.get(schema);
  if (made === undefined) {
    const def = defOf(schema);
    made = def?.type === 'object' ? objectCheck(def) : null;
    cache.set(schema, made);
  }
  return made;
}

/** A part the shortcut does not know: its values always go to zod. */
const unsure: Check = () => false;

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

interface Field {
  key: string;
  check: Check;
  /** Whether the key may be absent: optional and nothing fills it (a default would, so an absent key with one goes to zod). */
  mayBeAbsent: boolean;
  nullable: boolean;
}

/** A schema with its wrappers taken off: whether it may be absent (optional, no default), may be null, and the inner def. */
function unwrap(schema: unknown): { def: Def | undefined; mayBeAbsent: boolean; nullable: boolean } {
  let def = defOf(schema);
  let optional = false;
  let defaulted = false;
  let nullable = false;
  while (def && (def.type === 'optional' || def.type === 'nullable' || def.type === 'default')) {
    if (def.type === 'optional') optional = true;
    else if (def.type === 'nullable') nullable = true;
    else defaulted = true;
    def = defOf(def.innerType);
  }
  return { def, mayBeAbsent: optional && !defaulted, nullable };
}

/** The check of a value of this def (neither undefined nor null: the wrappers decide those). */
function valueCheck(def: Def | undefined): Check {
  if (!def) return unsure;
  switch (def.type) {
    case 'object':
      return objectCheck(def) ?? unsure;
    case 'array':
      return arrayCheck(def);
    case 'record':
      return recordCheck(def);
    case 'unknown':
    case 'any':
      return () => true;
    default:
      return baseCheck(def) ?? unsure;
  }
}

function objectCheck(def: Def): FastOutput | null {
  if (def.catchall !== undefined || typeof def.shape !== 'object' || !noChecks(def)) return null;
  const fields: Field[] = [];
  for (const key of Object.keys(def.shape)) {
    const { def: inner, mayBeAbsent, nullable } = unwrap(def.shape[key]);
    // unknown and any take null too; they also take undefined, where zod may add the absent key
    // to its copy: such a key goes to zod unless it is present.
    const anything = inner?.type === 'unknown' || inner?.type === 'any';
    fields.push({ key, check: valueCheck(inner), mayBeAbsent, nullable: nullable || anything });
  }
  return (value) => {
    if (!isPlainObject(value)) return false;
    // The answer's keys, in order, must be a run of the schema's keys in the schema's order: zod's
    // copy has the schema's order, and JSON would show the difference.
    let next = 0;
    for (const key in value) {
      while (next < fields.length && fields[next]!.key !== key) {
        if (!fields[next]!.mayBeAbsent) return false;
        next++;
      }
      if (next === fields.length) return false;
      const f = fields[next]!;
      const v = value[key];
      if (v === undefined) return false;
      if (v === null ? !f.nullable : !f.check(v)) return false;
      next++;
    }
    for (; next < fields.length; next++) if (!fields[next]!.mayBeAbsent) return false;
    return true;
  };
}

function arrayCheck(def: Def): Check {
  // A length check's `when` only makes zod skip it for a value without a length: an array has one.
  let min = 0;
  let max = Infinity;
  for (const c of def.checks ?? []) {
    const cd = defOf(c);
    if (cd?.check === 'min_length' && typeof cd.minimum === 'number') min = Math.max(min, cd.minimum);
    else if (cd?.check === 'max_length' && typeof cd.maximum === 'number') max = Math.min(max, cd.maximum);
    else return unsure;
  }
  const element = elementCheck(def.element);
  return (v) => {
    if (!Array.isArray(v) || v.length < min || v.length > max) return false;
    for (let i = 0; i < v.length; i++) if (!element(v[i])) return false;
    return true;
  };
}

function recordCheck(def: Def): Check {
  const keyDef = defOf(def.keyType);
  const key = keyDef?.type === 'string' ? baseCheck(keyDef) : null;
  if (!key) return unsure;
  const value = elementCheck(def.valueType);
  return (v) => {
    if (!isPlainObject(v)) return false;
    for (const k in v) if (!key(k) || !value(v[k])) return false;
    return true;
  };
}

/** An array element's or a record value's check: undefined goes to zod, null only where the schema allows it. */
function elementCheck(schema: unknown): Check {
  const { def, nullable } = unwrap(schema);
  const check = valueCheck(def);
  const takesNull = nullable || def?.type === 'unknown' || def?.type === 'any';
  return (v) => (v === undefined ? false : v === null ? takesNull : check(v));
}
