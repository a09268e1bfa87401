import { definePlugin } from '@memory-service/kernel';
import { useStores } from '@memory-service/stores';
import { describeProposal } from './common.js';
import { dailyBriefTool } from './tools/daily-brief.js';
import { memoryProposalsTool } from './tools/memory-proposals.js';
import { memoryReportCardTool } from './tools/memory-report-card.js';
import { memoryWatchTool } from './tools/memory-watch.js';
import { tapWatchRules } from './watch-taps.js';

/** Pending proposals listed in the session_started inject at most. */
export const INJECT_PROPOSALS_MAX = 10;

/**
 * The review tier: memory_proposals, memory_report_card, memory_watch and daily_brief. Its setup
 * also taps, whether or not the tier's tools are exposed:
 * - session_inject: the scope's pending proposals are listed in the session_started inject;
 * - think's thought_stored, the new_message and auto_save_candidate events and memory_remember's
 *   importance_gate: the watch rules are evaluated there.
 */
export default definePlugin({
  name: '@memory-service/plugin-review',
  version: '0.1.0',
  tier: 'review',
  kernel: '^1.0.0',
  description: 'The review tier: staged memory writes to approve or revert, a report card, watch rules and a daily brief.',
  // Written by the build (scripts/tool-schemas.mjs) beside dist/bundle.js and dist/index.js.
  toolSchemas: new URL('./tool-schemas.json', import.meta.url),
  setup(ctx) {
    const stores = useStores(ctx);
    ctx.tools.register(memoryProposalsTool(stores));
    ctx.tools.register(memoryReportCardTool(stores, ctx.clock));
    ctx.tools.register(memoryWatchTool(stores));
    ctx.tools.register(dailyBriefTool(stores));
    tapWatchRules(ctx.name, ctx.hooks, stores);
    ctx.hooks.session_inject.tapPromise(ctx.name, async (blocks, c) => {
      const scope = { layer: c.layer, user_id: c.user_id };
      const pending = stores.proposals.list(scope, 'pending', INJECT_PROPOSALS_MAX + 1);
      if (pending.length === 0) return blocks;
      const lines = pending.slice(0, INJECT_PROPOSALS_MAX).map((p) => `- ${p.proposal_id} ${describeProposal(p)}`);
      if (pending.length > INJECT_PROPOSALS_MAX) lines.push(`- ... more pending: memory_proposals action list`);
      return [...blocks, { source: 'proposals', title: 'Pending proposals', text: `Decide with memory_proposals action decide (proposal_id, approve):\n${lines.join('\n')}` }];
    });
  },
});
