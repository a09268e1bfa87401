import { defineTool, z } from '@memory-service/kernel';
import { WRITE_GATE_BOOST_CAP, type Stores } from '@memory-service/stores';
import { layerInput, userIdInput } from '../common.js';

const ruleSchema = z.object({
  index: z.number().describe('Position of the rule in the file (0-based)'),
  name: z.string(),
  when_content_contains: z.array(z.string()),
  importance_boost: z.number(),
  tags: z.array(z.string()),
});

export function memoryLoadRulesTool(stores: Stores) {
  return defineTool({
    name: 'memory_load_rules',
    title: 'Show or reload the write-gate rules',
    description:
      'The write-gate rules of <data_dir>/rules.yaml: each rule has when_content_contains (a phrase or a list; any one matches, a substring once folded as dream folds words: case, accents, NFC/NFD, ß as ss), ' +
      `importance_boost (0 to 1; the sum over the matching rules is capped at ${WRITE_GATE_BOOST_CAP}) and tags (added to the episodes think writes; ` +
      'on memory_remember the graph node). The boost applies to memory_remember and to the episodes think writes. The file is a list of ' +
      'rules or a mapping with a rules list; it is read again when its modification time changes. action list: the rules in force, the file ' +
      'path, its modification time and its errors. action reload: read the file again now. A bad file is reported in errors (each naming the ' +
      'rule index and field) and the previous good ruleset stays in force (in_force: previous). The rules are the same for every layer and user_id.',
    input: () => z.object({
      action: z.enum(['list', 'reload']).default('list').describe('list the ruleset, or reload the file first'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      action: z.enum(['list', 'reload']),
      path: z.string(),
      exists: z.boolean(),
      mtime: z.string().nullable(),
      in_force: z.enum(['file', 'previous', 'none']).describe('file: the rules of the file as it is; previous: the last good ruleset (the file is bad); none: no rules'),
      rules: z.array(ruleSchema),
      errors: z.array(z.object({ index: z.number().nullable(), field: z.string(), message: z.string() })),
      boost_cap: z.number(),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: (args) => {
      const set = args.action === 'reload' ? stores.writeGate.reload() : stores.writeGate.ruleset(0);
      return { action: args.action, ...set, boost_cap: WRITE_GATE_BOOST_CAP };
    },
  });
}
