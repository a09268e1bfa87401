import { defineTool, z } from '@memory-service/kernel';
import { validationError, WATCH_ACTIONS, WATCH_PREDICATE_KEYS, WATCH_TRIGGERS, type Stores, type WatchRule } from '@memory-service/stores';
import { layerInput, scopeOf, userIdInput } from '../common.js';

/** The fields each action takes beyond action, layer and user_id (the kernel refuses any other the call gives, naming it). */
const FIELDS = { list: [], add: ['name', 'trigger', 'predicate_json', 'action_kind'], disable: ['rule_id'], delete: ['rule_id'] } as const;

const ruleSchema = z.object({
  id: z.string().describe('Rule id (watch_<n>)'),
  name: z.string(),
  trigger: z.enum(WATCH_TRIGGERS),
  predicate: z.record(z.string(), z.unknown()),
  action: z.enum(WATCH_ACTIONS),
  enabled: z.boolean(),
  hits_24h: z.number().describe('Matches in the last 24 hours'),
  created: z.string(),
});

function ruleOut(r: WatchRule) {
  return { id: r.id, name: r.name, trigger: r.trigger, predicate: r.predicate as Record<string, unknown>, action: r.action, enabled: r.enabled, hits_24h: r.hits_24h, created: r.created };
}

function required<T>(v: T | undefined, field: string, action: string, accepted?: readonly string[]): T {
  if (v === undefined) throw validationError(field, `${field} is required for action ${action}`, accepted);
  return v;
}

export function memoryWatchTool(stores: Stores) {
  return defineTool({
    name: 'memory_watch',
    title: 'Watch rules',
    description:
      'Rules that watch writes of the layer and user_id and act when one matches. Triggers: message_received (think), new_message and ' +
      'auto_save_candidate (the lifecycle events of memory_hook), remember (memory_remember). predicate_json is a JSON object (or its text) with any of ' +
      `${WATCH_PREDICATE_KEYS.join(', ')}: min_importance (the write's importance at least this), l4_min_importance (the write stored an L4 fact ` +
      'of at least this importance), keywords (a word or list; any one, a substring once folded as dream folds words: case, accents, NFC/NFD, ß as ss), sender (payload.sender of new_message and ' +
      'auto_save_candidate: the whole name, equal once both are folded the same way, not a part of it); every key given must hold; {} matches every event. action_kind: log (an audit_log row watch_hit), tag (adds the ' +
      'tag watch:<name> to the episodes the event wrote; not for remember), note (writes the scratchpad entry watch:<name>, which daily_brief ' +
      'lists as pending). Rules run whether or not this tool is exposed. Actions: list (id, name, trigger, predicate, action, enabled, hits_24h), ' +
      'add (name, trigger, predicate_json, action_kind), disable (rule_id), delete (rule_id). A bad value is an error naming its field; an ' +
      'unknown predicate key names predicate_json and lists the allowed keys; an unknown rule_id names rule_id.',
    input: () => z.object({
      action: z.enum(['list', 'add', 'disable', 'delete']).describe('What to do'),
      name: z.string().max(100).optional().describe('add: the rule name, unique in the layer and user_id (taken trimmed in NFC; one line without invisible characters, as a fact key; a name giving another rule\'s watch:<name> key, e.g. differing only in case or accents, is refused)'),
      trigger: z.enum(WATCH_TRIGGERS).optional().describe('add: the event watched'),
      predicate_json: z
        .union([z.string().max(10_000), z.record(z.string(), z.unknown())])
        .optional()
        .describe(`add: a JSON object (or its text) with any of ${WATCH_PREDICATE_KEYS.join(', ')} (default {})`),
      action_kind: z.enum(WATCH_ACTIONS).optional().describe('add: what a match does'),
      rule_id: z.string().max(100).optional().describe('disable, delete: the rule id (watch_<n>)'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      action: z.enum(['list', 'add', 'disable', 'delete']),
      rules: z.array(ruleSchema).describe('The rules of the layer and user_id after the action, oldest first'),
      rule: ruleSchema.optional().describe('add, disable, delete: the rule concerned (as it was, for delete)'),
      changed: z.boolean().optional().describe('disable: false when the rule was already disabled'),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    actionFields: FIELDS,
    handler: (args) => {
      const scope = scopeOf(args);
      const done = (extra: Record<string, unknown> = {}) => ({ action: args.action, ...extra, rules: stores.watchRules.list(scope).map(ruleOut) });
      switch (args.action) {
        case 'list':
          return done();
        case 'add': {
          const name = required(args.name, 'name', 'add');
          const trigger = required(args.trigger, 'trigger', 'add', WATCH_TRIGGERS);
          const kind = required(args.action_kind, 'action_kind', 'add', WATCH_ACTIONS);
          let predicate: unknown = {};
          if (typeof args.predicate_json === 'object') predicate = args.predicate_json;
          else if (args.predicate_json !== undefined && args.predicate_json.trim() !== '') {
            try {
              predicate = JSON.parse(args.predicate_json);
            } catch (e) {
              throw validationError('predicate_json', `predicate_json is not valid JSON: ${(e as Error).message}`, WATCH_PREDICATE_KEYS);
            }
          }
          const rule = stores.watchRules.add(scope, { name, trigger, predicate, action: kind });
          return done({ rule: ruleOut(rule) });
        }
        case 'disable': {
          const r = stores.watchRules.setEnabled(scope, required(args.rule_id, 'rule_id', 'disable'), false);
          return done({ rule: ruleOut(r.rule), changed: r.changed });
        }
        case 'delete': {
          const rule = stores.watchRules.delete(scope, required(args.rule_id, 'rule_id', 'delete'));
          return done({ rule: ruleOut(rule) });
        }
      }
    },
  });
}
