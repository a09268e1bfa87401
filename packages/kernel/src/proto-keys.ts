import { invalid, type MemoryError } from './errors.js';

/**
 * A `__proto__` key is refused anywhere in a tool's arguments or an event's payload. JSON.parse
 * makes it an ordinary own key, but nothing downstream keeps it as one: zod drops it from every
 * object and record it parses (assigning it to a plain {} would set the prototype), an assignment
 * copy (`out[k] = v`, Object.assign) sets the copy's prototype instead, and the MCP SDK's client
 * drops it from structuredContent. Without this check the call succeeded under stdio with the key
 * silently lost, and over HTTP the body was refused as "not valid JSON". Refusing it, named by its
 * path, is the one answer both transports can give the same, and no prototype is ever touched.
 */

export const PROTO_KEY = '__proto__';

/** What a refused `__proto__` key's error says is accepted. */
export const PROTO_KEY_ACCEPTED = 'any object key other than "__proto__"';

/** The validation error for a `__proto__` key at `field` (a dotted path ending in `__proto__`). */
export function protoKeyError(field: string): MemoryError {
  return invalid(
    field,
    'is refused: "__proto__" is not accepted as a key in tool arguments or event payloads (JavaScript reads it as an object\'s prototype, so it could not be kept as sent); use another key name',
    PROTO_KEY_ACCEPTED,
  );
}

/**
 * The dotted path (`fields.__proto__`, `nodes.0.properties.__proto__`) of the first own
 * `__proto__` key in `value`, `prefix` naming `value` itself; null when there is none. Walks
 * nested objects and arrays with its own stack, so however deep the input it cannot overflow the
 * call stack; one hasOwn per object, so a flat object of scalars costs one lookup.
 */
export function protoKeyPath(value: unknown, prefix = ''): string | null {
  if (typeof value !== 'object' || value === null) return null;
  const stack: [object, string][] = [[value, prefix]];
  while (stack.length) {
    const [node, path] = stack.pop()!;
    const at = (key: string) => (path ? `${path}.${key}` : key);
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) {
        const v: unknown = node[i];
        if (typeof v === 'object' && v !== null) stack.push([v, at(String(i))]);
      }
      continue;
    }
    if (Object.hasOwn(node, PROTO_KEY)) return at(PROTO_KEY);
    const keys = Object.keys(node);
    // Pushed last first, so the first key's subtree is looked at first: the path named is the first in the input's order.
    for (let i = keys.length - 1; i >= 0; i--) {
      const v: unknown = (node as Record<string, unknown>)[keys[i]!];
      if (typeof v === 'object' && v !== null) stack.push([v, at(keys[i]!)]);
    }
  }
  return null;
}

/** Throw the validation error naming the first `__proto__` key in `value` (`prefix`: the path of `value` itself). */
export function checkNoProtoKeys(value: unknown, prefix = ''): void {
  const path = protoKeyPath(value, prefix);
  if (path !== null) throw protoKeyError(path);
}
