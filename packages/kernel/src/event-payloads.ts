import { invalid, shownValue as shown } from './errors.js';
import { charLength, overChars } from './chars.js';
import type { LifecycleEvent } from './hooks.js';

/**
 * What a payload key of a lifecycle event holds: text, a list of texts, a token budget (a positive
 * integer), or structured data (an object or a list, held to the text limit as JSON).
 */
type KeyKind = 'text' | 'texts' | 'budget' | 'data';

interface KeySpec {
  kind: KeyKind;
  required?: true;
}

/**
 * The payload keys the specification gives each lifecycle event (its Events table). They are
 * checked before any handler runs, so a wrong type is an error naming `payload.<key>` rather than
 * a handler quietly reading it as missing. Other keys pass untouched: a plugin may read keys of
 * its own.
 */
export const EVENT_PAYLOAD_KEYS: Readonly<Record<LifecycleEvent, Readonly<Record<string, KeySpec>>>> = Object.freeze({
  session_started: { text: { kind: 'text' }, budget: { kind: 'budget' } },
  session_ended: { summary: { kind: 'text', required: true }, topics: { kind: 'texts' }, state_deltas: { kind: 'data' } },
  new_message: { text: { kind: 'text', required: true } },
  auto_save_candidate: { text: { kind: 'text', required: true } },
  post_context_compression: { query: { kind: 'text', required: true } },
  context_threshold: {},
  memory_pressure: {},
});

const ACCEPTED: Record<KeyKind, string> = { text: 'string', texts: 'list of strings', budget: 'positive integer (tokens)', data: 'object or list' };

function hasKind(kind: KeyKind, value: unknown): boolean {
  if (kind === 'text') return typeof value === 'string';
  if (kind === 'texts') return Array.isArray(value) && value.every((v) => typeof v === 'string');
  if (kind === 'data') return typeof value === 'object' && value !== null;
  return typeof value === 'number' && Number.isInteger(value) && value >= 1;
}

/**
 * The config key whose value bounds the length of stored text (the stores read the same key):
 * the payload's text keys are held to it too, so a text no handler could store is refused up front.
 */
export const TEXT_LIMIT_KEY = 'think.max_text_chars';
export const TEXT_LIMIT_DEFAULT = 100_000;

/**
 * How deeply structured payload data (state_deltas) may nest, objects and lists counted alike: JSON.stringify
 * recurses, so a value a few thousand levels deep overflowed the stack in this check, in the store or in the answer.
 */
export const MAX_DATA_DEPTH = 100;

/** Whether `value` nests more than `max` objects or lists deep (walked without recursion). */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return true;
    for (const child of Object.values(v)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * Throw a validation error naming the first key of the event's payload that is missing, of the
 * wrong type, or longer than `maxText` characters (a text, a list of texts or structured data).
 */
export function checkEventPayload(event: LifecycleEvent, payload: Record<string, unknown>, maxText = TEXT_LIMIT_DEFAULT): void {
  for (const [key, spec] of Object.entries(EVENT_PAYLOAD_KEYS[event])) {
    const field = `payload.${key}`;
    const value = payload[key];
    if (value === undefined || value === null) {
      if (spec.required) throw invalid(field, `is required for ${event} (${ACCEPTED[spec.kind]})`, ACCEPTED[spec.kind]);
      continue;
    }
    if (!hasKind(spec.kind, value)) throw invalid(field, `must be ${spec.kind === 'data' ? 'an' : 'a'} ${ACCEPTED[spec.kind]}, got ${shown(value)}`, ACCEPTED[spec.kind]);
    // Structured data and a list of texts are each held to the limit as a whole (JSON), as stored.
    if (spec.kind === 'data' || spec.kind === 'texts') {
      if (spec.kind === 'data' && nestsDeeperThan(value, MAX_DATA_DEPTH)) {
        throw invalid(field, `nests objects or lists more than ${MAX_DATA_DEPTH} levels deep`, `${ACCEPTED.data} at most ${MAX_DATA_DEPTH} levels deep`);
      }
      const json = JSON.stringify(value);
      if (overChars(json, maxText)) throw invalid(field, `is ${charLength(json)} characters as JSON; the limit is ${maxText} (${TEXT_LIMIT_KEY})`, { max: maxText });
    }
    for (const text of spec.kind === 'text' ? [value as string] : spec.kind === 'texts' ? (value as string[]) : []) {
      if (overChars(text, maxText)) throw invalid(field, `is ${charLength(text)} characters; the limit is ${maxText} (${TEXT_LIMIT_KEY})`, { max: maxText });
    }
  }
}
