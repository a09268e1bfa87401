import { defineTool, z } from '@memory-service/kernel';
import { RECORD_NAME_MAX, STASH_MAX, STASH_NOTE_MAX, validationError, type Stores } from '@memory-service/stores';
import { layerInput, scopeOf, userIdInput } from '../common.js';

const ACTIONS = ['push', 'list', 'show', 'pop', 'drop'] as const;

/** The fields each action takes beyond action, layer and user_id (the kernel refuses any other the call gives, naming it). */
const FIELDS = { push: ['name', 'note'], list: [], show: ['name'], pop: ['name'], drop: ['name'] } as const satisfies Record<(typeof ACTIONS)[number], readonly string[]>;

const entrySchema = z.object({ key: z.string(), content: z.string(), created: z.string(), updated: z.string() });
const stashSchema = z.object({
  name: z.string(),
  note: z.string(),
  created: z.string(),
  keys: z.array(z.string()).describe('The stashed scratchpad keys, least recently written first'),
});

export function memoryStashTool(stores: Stores) {
  return defineTool({
    name: 'memory_stash',
    title: 'Set the scratchpad aside',
    description:
      'Set aside the scratchpad (L2.5 working notes) of the layer and user_id under a name, to switch tasks and come back. ' +
      'action push (optional name, optional note): moves every scratchpad entry into a new stash and leaves the pad empty; the name ' +
      'defaults to the first free stash-<n>. list: the stashes, newest first (name, note, created, keys). show (optional name): one ' +
      'stash with its entries. pop (optional name; default the newest): moves the stash\'s entries back into the pad with their content, ' +
      'dates and order, and deletes the stash. drop (name): deletes a stash. pop never evicts or overwrites: it is refused, naming name, ' +
      'when a stashed key is in the pad again or pad plus stash would pass the scratchpad\'s 20 entries. Names are slugged, ' +
      `1-${RECORD_NAME_MAX} characters holding a letter or digit; at most ${STASH_MAX} stashes. The L1 ring is not stashed. Errors name the ` +
      'field: action (push of an empty pad), name (invalid, taken, unknown, too many, conflict or overflow at pop), note.',
    input: () => z.object({
      action: z.enum(ACTIONS).describe('push, list, show, pop or drop'),
      name: z.string().min(1).max(RECORD_NAME_MAX).optional().describe('The stash (push: optional; show/pop: default the newest; drop: required)'),
      note: z.string().max(STASH_NOTE_MAX).optional().describe('push: why it was set aside'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      action: z.enum(ACTIONS),
      stash: stashSchema.optional().describe('push/show/pop/drop: the stash'),
      entries: z.array(entrySchema).optional().describe('push/show/pop: its entries'),
      stashes: z.array(stashSchema).optional().describe('list'),
      pad_count: z.number().describe('Entries in the scratchpad after the call'),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    actionFields: FIELDS,
    handler: (args) => {
      const scope = scopeOf(args);
      const st = stores.stashes;
      const padCount = () => stores.scratchpad.count(scope);
      switch (args.action) {
        case 'list':
          return { action: 'list' as const, stashes: st.list(scope), pad_count: padCount() };
        case 'push': {
          const { entries, ...stash } = st.push(scope, args.name, args.note ?? '');
          return { action: 'push' as const, stash, entries, pad_count: padCount() };
        }
        case 'show': {
          const { entries, ...stash } = st.show(scope, args.name);
          return { action: 'show' as const, stash, entries, pad_count: padCount() };
        }
        case 'pop': {
          const { entries, pad_count, ...stash } = st.pop(scope, args.name);
          return { action: 'pop' as const, stash, entries, pad_count };
        }
        case 'drop': {
          if (args.name === undefined) throw validationError('name', 'name is required for action drop', 'a stash name');
          return { action: 'drop' as const, stash: st.drop(scope, args.name), pad_count: padCount() };
        }
      }
    },
  });
}
