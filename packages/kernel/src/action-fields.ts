import { invalid } from './errors.js';

/**
 * A tool with an `action` argument takes, besides it, the fields each action uses: for each action,
 * the fields it takes. A field no action lists (the scope `layer` and `user_id`, `action` itself)
 * is taken by every action.
 */
export type ActionFields = Readonly<Record<string, readonly string[]>>;

/**
 * Refuse a field the call gave that its action does not take, naming the field, the actions that
 * take it and the fields this action takes: zod keeps every field of the schema, so the handler
 * dropped it without a word (a decision's `status`, a list's `approve`) while the call answered
 * success. `input` is the arguments as sent, so a field the schema filled with its default was not
 * given; a field no action lists, and a key the schema does not have, are not looked at here.
 */
export function checkActionFields(action: unknown, input: Readonly<Record<string, unknown>>, takes: ActionFields): void {
  const own = typeof action === 'string' && Object.hasOwn(takes, action) ? takes[action]! : undefined;
  if (!own) return;
  for (const field in input) {
    if (input[field] === undefined || own.includes(field)) continue;
    const by = Object.keys(takes).filter((a) => takes[a]!.includes(field));
    if (by.length === 0) continue;
    throw invalid(
      field,
      `is not used by action ${action}, so it would be dropped; it is taken by action${by.length > 1 ? 's' : ''} ${by.join(', ')}. ` +
        `Action ${action} takes ${own.length ? own.join(', ') : 'no field besides layer and user_id'}`,
      `omit it with action ${action}`,
    );
  }
}
