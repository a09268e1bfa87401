import { defineTool, TEXT_LIMIT_DEFAULT, TEXT_LIMIT_KEY, z } from '@memory-service/kernel';
import { BRANCH_MAX, FACT_KEY_MAX, RECORD_NAME_MAX, validationError, type Stores } from '@memory-service/stores';
import { layerInput, scopeOf, userIdInput } from '../common.js';

const ACTIONS = ['create', 'list', 'set', 'unset', 'diff', 'merge', 'delete'] as const;

/** The fields each action takes beyond action, layer and user_id (the kernel refuses any other the call gives, naming it). */
const FIELDS = {
  create: ['name'],
  list: [],
  set: ['name', 'key', 'value', 'importance'],
  unset: ['name', 'key'],
  diff: ['name'],
  merge: ['name', 'force'],
  delete: ['name'],
} as const satisfies Record<(typeof ACTIONS)[number], readonly string[]>;

const branchSchema = z.object({
  name: z.string().describe('The stored (slugged) name'),
  created: z.string(),
  updated: z.string(),
  facts: z.number().describe('Facts the branch holds'),
  changes: z.number().describe('Keys it added, changed or removed against the facts it was copied from'),
});

const diffSchema = z.object({
  added: z.array(z.object({ key: z.string(), value: z.string(), importance: z.number(), live_value: z.string().nullable() })),
  changed: z.array(
    z.object({ key: z.string(), base_value: z.string(), base_importance: z.number(), value: z.string(), importance: z.number(), live_value: z.string().nullable() }),
  ),
  removed: z.array(z.object({ key: z.string(), base_value: z.string(), live_value: z.string().nullable() })),
  conflicts: z.array(z.string()).describe('Keys live memory changed since the branch was made; merge overwrites them only with force'),
});

export function memoryBranchTool(stores: Stores) {
  return defineTool({
    name: 'memory_branch',
    title: 'What-if branches of core memory',
    description:
      'Named what-if copies of the core-memory (L4) facts of the layer and user_id, edited without touching live memory. ' +
      'action create (name): copies every fact into a new branch. list: the branches. set (name, key, value, optional importance ' +
      '0.05-1.0): sets a fact in the branch. unset (name, key): removes a fact from the branch. diff (name): what the branch added, ' +
      'changed and removed against the facts it was copied from, each with the live value now, and the conflicts (keys live memory ' +
      'changed since). merge (name, optional force): applies exactly those changes to the live facts in one transaction (each recorded ' +
      'in memory_history as branch_merge:<name>) and deletes the branch; refused while there are conflicts unless force is true. ' +
      `delete (name): drops the branch, live memory untouched. Names are slugged ("Plan B" is plan-b), 1-${RECORD_NAME_MAX} characters ` +
      `holding a letter or digit; at most ${BRANCH_MAX} branches per layer and user_id. Errors name the field: name (invalid, taken, ` +
      'unknown, too many branches), key (not in the branch), value, importance, force (conflicts).',
    input: () => z.object({
      action: z.enum(ACTIONS).describe('create, list, set, unset, diff, merge or delete'),
      name: z.string().min(1).max(RECORD_NAME_MAX).optional().describe('The branch (every action but list)'),
      key: z.string().min(1).max(FACT_KEY_MAX).optional().describe('set/unset: the fact key'),
      value: z.string().optional().describe(`set: the fact value in the branch, at most ${TEXT_LIMIT_KEY} characters (default ${TEXT_LIMIT_DEFAULT})`),
      importance: z.number().min(0.05).max(1).optional().describe('set: the fact importance (default: the branch\'s current one, else 0.5)'),
      force: z.boolean().default(false).describe('merge: overwrite the keys live memory changed since the branch was made'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      action: z.enum(ACTIONS),
      branch: branchSchema.optional().describe('create/set/unset/delete: the branch'),
      branches: z.array(branchSchema).optional().describe('list'),
      diff: diffSchema.optional().describe('diff'),
      merged: z
        .object({ added: z.array(z.string()), changed: z.array(z.string()), removed: z.array(z.string()), overwritten: z.array(z.string()) })
        .optional()
        .describe('merge: the keys applied to live memory'),
      name: z.string().optional(),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    actionFields: FIELDS,
    handler: (args) => {
      const scope = scopeOf(args);
      const b = stores.branches;
      if (args.action === 'list') return { action: 'list' as const, branches: b.list(scope) };
      if (args.name === undefined) throw validationError('name', `name is required for action ${args.action}`, 'a branch name');
      const name = args.name;
      const key = (): string => {
        if (args.key === undefined) throw validationError('key', `key is required for action ${args.action}`, 'a fact key');
        return args.key;
      };
      switch (args.action) {
        case 'create':
          return { action: 'create' as const, branch: b.create(scope, name) };
        case 'set': {
          const k = key();
          if (args.value === undefined) throw validationError('value', 'value is required for action set', 'the fact value');
          return { action: 'set' as const, branch: b.set(scope, name, k, args.value, args.importance) };
        }
        case 'unset':
          return { action: 'unset' as const, branch: b.unset(scope, name, key()) };
        case 'diff': {
          const { name: stored, ...diff } = b.diff(scope, name);
          return { action: 'diff' as const, name: stored, diff };
        }
        case 'merge': {
          const { name: stored, ...merged } = b.merge(scope, name, args.force);
          return { action: 'merge' as const, name: stored, merged };
        }
        case 'delete':
          return { action: 'delete' as const, branch: b.delete(scope, name) };
      }
    },
  });
}
