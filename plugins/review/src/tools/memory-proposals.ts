import { defineTool, TEXT_LIMIT_DEFAULT, TEXT_LIMIT_KEY, z } from '@memory-service/kernel';
import { FACT_KEY_MAX, PROPOSAL_DEFAULT_IMPORTANCE, PROPOSAL_DEFAULT_WIKI_TYPE, validationError, WIKI_TITLE_MAX, WIKI_TYPES, type ProposalInput, type Stores } from '@memory-service/stores';
import { layerInput, proposalOut, proposalSchema, scopeOf, userIdInput } from '../common.js';

export const PROPOSALS_ACTIONS = ['list', 'propose', 'decide', 'revert', 'revert_transition'] as const;
/** Pending proposals one list returns at most. */
export const PROPOSALS_LIST_MAX = 200;

/** The fields each action takes beyond action, layer and user_id (the kernel refuses any other the call gives, naming it). */
const PROPOSALS_FIELDS = {
  list: ['limit'],
  propose: ['kind', 'title', 'content', 'wiki_type', 'key', 'value', 'importance'],
  decide: ['proposal_id', 'approve'],
  revert: ['proposal_id'],
  revert_transition: ['transition_id'],
} as const satisfies Record<(typeof PROPOSALS_ACTIONS)[number], readonly string[]>;

const WIKI_FIELDS = ['title', 'content', 'wiki_type'] as const;
const CORE_FIELDS = ['key', 'value', 'importance'] as const;

type Args = {
  action: (typeof PROPOSALS_ACTIONS)[number];
  kind?: 'wiki_write' | 'core_write';
  title?: string;
  content?: string;
  wiki_type?: string;
  key?: string;
  value?: string;
  importance?: number;
  proposal_id?: string;
  approve?: boolean;
  transition_id?: string;
};

/** The field an action needs, or an error naming it. */
function need<K extends keyof Args>(args: Args, field: K, what: string): NonNullable<Args[K]> {
  const v = args[field];
  if (v === undefined) throw validationError(field, `${field} is required for action ${args.action} (${what})`);
  return v as NonNullable<Args[K]>;
}

function proposalInput(args: Args): ProposalInput {
  const kind = need(args, 'kind', 'wiki_write or core_write');
  const foreign = kind === 'wiki_write' ? CORE_FIELDS : WIKI_FIELDS;
  for (const f of foreign) {
    if (args[f] !== undefined) throw validationError(f, `${f} does not belong to a ${kind} proposal (${kind === 'wiki_write' ? 'title, content, wiki_type' : 'key, value, importance'})`);
  }
  if (kind === 'wiki_write') return { kind, title: need(args, 'title', 'the page title'), content: need(args, 'content', 'the page content'), wiki_type: args.wiki_type };
  return { kind, key: need(args, 'key', 'the fact key'), value: need(args, 'value', 'the fact value'), importance: args.importance };
}

export function memoryProposalsTool(stores: Stores) {
  return defineTool({
    name: 'memory_proposals',
    title: 'Stage, decide and revert memory writes',
    description:
      'Staged mutations of the layer and user_id, for writes an agent should not make alone. action propose: stage a write as pending, ' +
      `kind wiki_write (title, content, optional wiki_type; default ${PROPOSAL_DEFAULT_WIKI_TYPE.user} on the user layer, ` +
      `${PROPOSAL_DEFAULT_WIKI_TYPE.agent} on the agent layer) or core_write (key, value, importance 0.05 to 1.0, a fact's, default ${PROPOSAL_DEFAULT_IMPORTANCE}); ` +
      'it is checked now as the write would be. Pending proposals are also listed in the session_started inject. action list: the ' +
      'pending proposals, oldest first. action decide (proposal_id, approve): approve=true runs exactly the write the direct path makes ' +
      '(the wiki page save as wiki_add, the core fact upsert with source staging_promotion) and moves it to applied; approve=false moves ' +
      'it to rejected; both are audit-logged. action revert (proposal_id): undo an applied write (a created page or fact is removed, a ' +
      'replaced one gets its previous content back; what is removed is archived in the Shadow Bin first) and move it to reverted. ' +
      'action revert_transition (transition_id, tr_<n> as memory_context_inject reports it): undo an L3 to L4 promotion, deleting the ' +
      'promoted fact; the episode stays and is not promoted again. Errors name the field: a missing field of the action, an unknown ' +
      'proposal_id or transition_id, a proposal not in the state the action needs (its state is named), a write changed since it was ' +
      'applied or promoted (reverting would lose it), a transition already reverted. Returns the action and the proposal(s) ' +
      '(proposal_id, kind, status, the write, dates, target_id, shadow_id) or the transition.',
    input: () => z.object({
      action: z.enum(PROPOSALS_ACTIONS).describe('list, propose, decide, revert or revert_transition'),
      kind: z.enum(['wiki_write', 'core_write']).optional().describe('propose: the kind of write'),
      title: z.string().max(WIKI_TITLE_MAX).optional().describe('propose wiki_write: page title'),
      // content and value follow think.max_text_chars, which the config may move: the description states it, the store enforces it.
      content: z.string().optional().describe(`propose wiki_write: Markdown content, at most ${TEXT_LIMIT_KEY} characters (default ${TEXT_LIMIT_DEFAULT})`),
      wiki_type: z.enum(WIKI_TYPES).optional().describe('propose wiki_write: page type'),
      key: z.string().max(FACT_KEY_MAX).optional().describe('propose core_write: fact key'),
      value: z.string().optional().describe(`propose core_write: fact value, at most ${TEXT_LIMIT_KEY} characters (default ${TEXT_LIMIT_DEFAULT})`),
      importance: z.number().min(0.05).max(1).optional().describe(`propose core_write: the fact importance, 0.05 to 1.0 (default ${PROPOSAL_DEFAULT_IMPORTANCE}), as approval writes it`),
      proposal_id: z.string().max(100).optional().describe('decide, revert: the proposal (prop_<n>)'),
      approve: z.boolean().optional().describe('decide: true applies the write, false rejects it'),
      transition_id: z.string().max(100).optional().describe('revert_transition: the promotion (tr_<n>)'),
      limit: z.number().int().min(1).max(PROPOSALS_LIST_MAX).default(50).describe(`list: most proposals returned (default 50, at most ${PROPOSALS_LIST_MAX})`),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      action: z.enum(PROPOSALS_ACTIONS),
      proposal: proposalSchema.optional().describe('propose, decide, revert: the proposal after the action'),
      proposals: z.array(proposalSchema).optional().describe('list: the pending proposals, oldest first'),
      count: z.number().optional().describe('list: proposals returned'),
      transition: z
        .object({ transition_id: z.string(), episode_id: z.string(), entry_id: z.string(), key: z.string(), ts: z.string(), reverted: z.string().nullable() })
        .optional()
        .describe('revert_transition: the promotion, now reverted'),
      deleted_entry_id: z.string().optional().describe('revert_transition: the fact deleted'),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    actionFields: PROPOSALS_FIELDS,
    handler: (args) => {
      const scope = scopeOf(args);
      switch (args.action) {
        case 'list': {
          const proposals = stores.proposals.list(scope, 'pending', args.limit).map(proposalOut);
          return { action: args.action, proposals, count: proposals.length };
        }
        case 'propose':
          return { action: args.action, proposal: proposalOut(stores.proposals.propose(scope, proposalInput(args))) };
        case 'decide': {
          const id = need(args, 'proposal_id', 'prop_<n>');
          const approve = need(args, 'approve', 'true to apply, false to reject');
          return { action: args.action, proposal: proposalOut(stores.proposals.decide(scope, id, approve)) };
        }
        case 'revert':
          return { action: args.action, proposal: proposalOut(stores.proposals.revert(scope, need(args, 'proposal_id', 'prop_<n>'))) };
        case 'revert_transition': {
          const r = stores.transitions.revert(scope, need(args, 'transition_id', 'tr_<n>'));
          const t = r.transition;
          return {
            action: args.action,
            transition: { transition_id: t.id, episode_id: t.episode_id, entry_id: t.entry_id, key: t.key, ts: t.ts, reverted: t.reverted },
            deleted_entry_id: r.deleted_entry_id,
          };
        }
      }
    },
  });
}
