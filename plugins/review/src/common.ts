import { cutChars, layerSchema, userIdSchema, z } from '@memory-service/kernel';
import { PROPOSAL_KINDS, PROPOSAL_STATUSES, type Proposal, type Scope } from '@memory-service/stores';

/** The `layer` input of every review tool. */
export const layerInput = layerSchema.default('user').describe('Memory layer: user (facts about the user) or agent (the agent itself); the layers never see each other');
export const userIdInput = userIdSchema.describe('Namespace within the layer; default "default"');

export function scopeOf(args: { layer: 'user' | 'agent'; user_id: string }): Scope {
  return { layer: args.layer, user_id: args.user_id };
}

export const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/** One line naming a proposal's write: `core_write key = "value" (importance 0.8)` or `wiki_write "title" (type, n chars)`. */
export function describeProposal(p: Proposal): string {
  const w = p.payload;
  if (w.kind === 'core_write') return `core_write ${w.key} = ${JSON.stringify(cutChars(w.value, 120))} (importance ${w.importance})`;
  return `wiki_write ${JSON.stringify(w.title)} (${w.wiki_type}, ${w.content.length} chars)`;
}

export const proposalSchema = z.object({
  proposal_id: z.string().describe('prop_<n>'),
  kind: z.enum(PROPOSAL_KINDS),
  status: z.enum(PROPOSAL_STATUSES),
  write: z.string().describe('The staged write in one line'),
  key: z.string().optional().describe('core_write: the fact key'),
  value: z.string().optional().describe('core_write: the fact value'),
  importance: z.number().optional().describe('core_write: the fact importance'),
  title: z.string().optional().describe('wiki_write: the page title'),
  content: z.string().optional().describe('wiki_write: the page content'),
  wiki_type: z.string().optional().describe('wiki_write: the page type'),
  created: z.string(),
  decided: z.string().nullable(),
  reverted: z.string().nullable(),
  target_id: z.string().nullable().describe('The fact entry_id or wiki page id the approval wrote; null before'),
  shadow_id: z.string().nullable().describe('Shadow Bin entry of what a revert removed; null before'),
});

export function proposalOut(p: Proposal): z.infer<typeof proposalSchema> {
  const { kind, ...write } = p.payload;
  return {
    proposal_id: p.proposal_id,
    kind,
    status: p.status,
    write: describeProposal(p),
    ...write,
    created: p.created,
    decided: p.decided,
    reverted: p.reverted,
    target_id: p.applied.target_id ?? null,
    shadow_id: p.applied.shadow_id ?? null,
  };
}
