/**
 * Input fields no JSON argument can carry. A tool's arguments arrive as JSON, so a field declared
 * with a type JSON has no value for (z.date(), z.bigint(), z.map(), ...) is published in tools/list
 * as `{}` ("anything") while every call giving it is refused: the tool can never be called with
 * it. Such a schema is refused when the tool is defined (checkToolDefinition), naming the field.
 */
import { defOf, type Def } from './fast-args.js';

/** The zod types that no JSON value passes, with the name an error gives each. */
const NOT_JSON: Readonly<Record<string, string>> = Object.freeze({
  date: 'a date (z.date())',
  bigint: 'a bigint (z.bigint())',
  map: 'a Map (z.map())',
  set: 'a Set (z.set())',
  function: 'a function (z.function())',
  symbol: 'a symbol (z.symbol())',
  undefined: 'undefined (z.undefined())',
  void: 'void (z.void())',
  nan: 'NaN (z.nan())',
  promise: 'a promise (z.promise())',
});

/** What JSON carries, as the error says it. */
export const JSON_INPUT_TYPES = 'string, number, boolean, null, array or object (z.string(), z.number(), z.boolean(), z.null(), z.array(), z.object(), z.record(), z.enum(), z.literal() and unions of them)';

export interface NotJsonField {
  /** The field's path in the arguments: `when`, `items[]`, `meta.*` (a record's values). */
  path: string;
  /** What it is declared as: `a date (z.date())`. */
  kind: string;
}

/**
 * The first field of an input schema that no JSON value can pass, or undefined. Wrappers
 * (optional, nullable, default, readonly, catch, a pipe's input) are looked through; a union is
 * refused only when none of its members can pass; a coerced date or bigint (z.coerce.date()) takes
 * a JSON string or number and passes.
 */
export function notJsonField(schema: unknown): NotJsonField | undefined {
  return walk(defOf(schema), '', new Set());
}

function walk(def: Def | undefined, path: string, seen: Set<Def>): NotJsonField | undefined {
  if (!def || seen.has(def)) return undefined;
  seen.add(def);
  try {
    const kind = NOT_JSON[def.type as string];
    if (kind) return def.coerce ? undefined : { path: path || '(arguments)', kind };
    const at = (key: string) => (path ? `${path}.${key}` : key);
    switch (def.type) {
      case 'object': {
        for (const [key, field] of Object.entries((def.shape ?? {}) as Record<string, unknown>)) {
          const bad = walk(defOf(field), at(key), seen);
          if (bad) return bad;
        }
        return def.catchall ? walk(defOf(def.catchall), at('*'), seen) : undefined;
      }
      case 'array':
        return walk(defOf(def.element), `${path}[]`, seen);
      case 'tuple': {
        for (const [i, item] of ((def.items ?? []) as unknown[]).entries()) {
          const bad = walk(defOf(item), `${path}[${i}]`, seen);
          if (bad) return bad;
        }
        return def.rest ? walk(defOf(def.rest), `${path}[]`, seen) : undefined;
      }
      case 'record':
        return walk(defOf(def.valueType), at('*'), seen);
      case 'optional':
      case 'nullable':
      case 'default':
      case 'prefault':
      case 'readonly':
      case 'catch':
      case 'nonoptional':
        return walk(defOf(def.innerType), path, seen);
      case 'pipe':
        return walk(defOf(def.in), path, seen);
      case 'lazy':
        return walk(defOf(def.getter?.()), path, seen);
      case 'intersection':
        return walk(defOf(def.left), path, seen) ?? walk(defOf(def.right), path, seen);
      case 'union': {
        const options = (def.options ?? []) as unknown[];
        const bad = options.map((o) => walk(defOf(o), path, new Set(seen)));
        return bad.length > 0 && bad.every(Boolean) ? bad[0] : undefined;
      }
      default:
        return undefined;
    }
  } finally {
    seen.delete(def);
  }
}
