import { defineTool, z } from '@memory-service/kernel';
import {
  DISCLOSURE_CONTENT_MAX,
  DISCLOSURE_KEYWORD_MAX,
  DISCLOSURE_KEYWORDS_MAX,
  DISCLOSURE_MATCH_SCORE,
  DISCLOSURE_NAME_MAX,
  DISCLOSURE_RULES_MAX,
  validationError,
  type DisclosureRule,
  type Stores,
} from '@memory-service/stores';
import { layerInput, scopeOf, userIdInput } from '../common.js';

export const DISCLOSE_ACTIONS = ['add', 'list', 'enable', 'disable', 'delete'] as const;

/** The fields each action takes beyond action, layer and user_id (the kernel refuses any other the call gives, naming it). */
const DISCLOSE_FIELDS = {
  add: ['name', 'trigger_keywords', 'content'],
  list: [],
  enable: ['rule_id'],
  disable: ['rule_id'],
  delete: ['rule_id'],
} as const satisfies Record<(typeof DISCLOSE_ACTIONS)[number], readonly string[]>;

const ruleSchema = z.object({
  rule_id: z.string().describe('disc_<n>'),
  name: z.string(),
  trigger_keywords: z.array(z.string()),
  content: z.string(),
  enabled: z.boolean(),
  created: z.string(),
  updated: z.string(),
});

function ruleOut(r: DisclosureRule): z.infer<typeof ruleSchema> {
  return { rule_id: r.rule_id, name: r.name, trigger_keywords: r.trigger_keywords, content: r.content, enabled: r.enabled, created: r.created, updated: r.updated };
}

export function memoryDiscloseTool(stores: Stores) {
  return defineTool({
    name: 'memory_disclose',
    title: 'Disclosure rules',
    description:
      'Rules that bring a piece of content forward when a text mentions one of their keywords, in the layer and user_id. A rule matches ' +
      'when any of its trigger_keywords is in the text (a substring once both are folded as dream folds words: case, accents, NFC/NFD, ß as ss); an enabled matching rule surfaces as a triggered ' +
      `block with score ${DISCLOSURE_MATCH_SCORE} in memory_recall_protocol (the query) and in the session_started inject (its text). ` +
      `action add: name (unique in the scope once trimmed in NFC, at most ${DISCLOSURE_NAME_MAX} characters, one line without invisible characters), trigger_keywords (1 to ${DISCLOSURE_KEYWORDS_MAX}, ` +
      `each at most ${DISCLOSURE_KEYWORD_MAX} characters), content (at most ${DISCLOSURE_CONTENT_MAX} characters); the rule is created enabled ` +
      `(at most ${DISCLOSURE_RULES_MAX} rules per scope). action list: every rule. action enable, disable, delete: by rule_id (enabling an ` +
      'enabled rule, or disabling a disabled one, changes nothing: changed false). Errors name the field: a missing field of the action, ' +
      'a duplicate name, an unknown rule_id. Returns the action, the rule (or rules) and for enable and disable whether it changed.',
    input: () => z.object({
      action: z.enum(DISCLOSE_ACTIONS).describe('add, list, enable, disable or delete'),
      name: z.string().max(DISCLOSURE_NAME_MAX).optional().describe('add: the rule name, unique in the layer and user_id (taken trimmed in NFC; one line without invisible characters)'),
      trigger_keywords: z
        .array(z.string().max(DISCLOSURE_KEYWORD_MAX))
        .min(1)
        .max(DISCLOSURE_KEYWORDS_MAX)
        .optional()
        .describe('add: keywords; any one in a text triggers the rule'),
      content: z.string().max(DISCLOSURE_CONTENT_MAX).optional().describe('add: what the rule discloses'),
      rule_id: z.string().max(100).optional().describe('enable, disable, delete: the rule (disc_<n>)'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      action: z.enum(DISCLOSE_ACTIONS),
      rule: ruleSchema.optional().describe('add, enable, disable: the rule now; delete: the rule deleted'),
      rules: z.array(ruleSchema).optional().describe('list: the rules, oldest first'),
      count: z.number().optional().describe('list: rules returned'),
      changed: z.boolean().optional().describe('enable, disable: whether the state changed'),
      deleted: z.boolean().optional(),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    actionFields: DISCLOSE_FIELDS,
    handler: (args) => {
      const scope = scopeOf(args);
      const ruleId = () => {
        if (args.rule_id === undefined) throw validationError('rule_id', `rule_id is required for action ${args.action} (disc_<n>, as list shows it)`);
        return args.rule_id;
      };
      switch (args.action) {
        case 'add': {
          for (const f of ['name', 'trigger_keywords', 'content'] as const) {
            if (args[f] === undefined) throw validationError(f, `${f} is required for action add`);
          }
          const rule = stores.disclosure.add(scope, { name: args.name!, trigger_keywords: args.trigger_keywords!, content: args.content! });
          return { action: args.action, rule: ruleOut(rule) };
        }
        case 'list': {
          const rules = stores.disclosure.list(scope).map(ruleOut);
          return { action: args.action, rules, count: rules.length };
        }
        case 'enable':
        case 'disable': {
          const r = stores.disclosure.setEnabled(scope, ruleId(), args.action === 'enable');
          return { action: args.action, rule: ruleOut(r.rule), changed: r.changed };
        }
        case 'delete':
          return { action: args.action, rule: ruleOut(stores.disclosure.delete(scope, ruleId())), deleted: true };
      }
    },
  });
}
