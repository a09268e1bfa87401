import { defineTool, z, type Clock } from '@memory-service/kernel';
import { DREAM_MARKER_TAG, recentWindow, type Stores } from '@memory-service/stores';
import { describeProposal, layerInput, READ_ONLY, scopeOf, userIdInput } from '../common.js';

export const REPORT_PERIOD_DEFAULT_HOURS = 24;
export const REPORT_PERIOD_MAX_HOURS = 24 * 365;
/** Decisions and open gaps listed at most (the counts are whole). */
export const REPORT_LIST_MAX = 10;

export function memoryReportCardTool(stores: Stores, clock: Clock) {
  return defineTool({
    name: 'memory_report_card',
    title: 'Report card of the memory',
    description:
      'How the memory of the layer and user_id has been doing over the last period_hours (default 24, 1 to 8760). Returns proposals ' +
      '(how many are pending, applied, rejected and reverted now) and last_decisions (the approvals and rejections of the period, newest ' +
      `first, at most ${REPORT_LIST_MAX}); auto_save (the new_message and auto_save_candidate dispatches of the period: dispatched, saved_l3, ` +
      'saved_l4, saved_graph); open_gaps (distinct dream queries of the period that found nothing and were not answered by a later dream of ' +
      `the same query, compared folded as dream folds words: the count and the newest ${REPORT_LIST_MAX}); dream_markers (episodes tagged ${DREAM_MARKER_TAG}, notes an agent left for its next ` +
      'session: created in the period, and in all); nightly (the last nightly run that visited this layer and user_id: run_id, started, ended ' +
      'and its phases here, each {phase, status ok|skipped|failed, counts, error, detail}; null before any has). Read-only: it records nothing.',
    input: () => z.object({
      period_hours: z
        .number()
        .int()
        .min(1)
        .max(REPORT_PERIOD_MAX_HOURS)
        .default(REPORT_PERIOD_DEFAULT_HOURS)
        .describe(`Hours back from now the period covers (default ${REPORT_PERIOD_DEFAULT_HOURS}, at most ${REPORT_PERIOD_MAX_HOURS})`),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      period_hours: z.number(),
      since: z.string().describe('ISO start of the period'),
      proposals: z.object({ pending: z.number(), applied: z.number(), rejected: z.number(), reverted: z.number() }),
      last_decisions: z.array(z.object({ proposal_id: z.string(), kind: z.string(), status: z.string(), decided: z.string(), write: z.string() })),
      auto_save: z.object({ dispatched: z.number(), saved_l3: z.number(), saved_l4: z.number(), saved_graph: z.number() }),
      open_gaps: z.object({
        count: z.number(),
        items: z.array(z.object({ query: z.string(), misses: z.number(), first_miss: z.string(), last_miss: z.string() })),
      }),
      dream_markers: z.object({ in_period: z.number(), total: z.number() }),
      nightly: z
        .object({
          run_id: z.string(),
          started: z.string(),
          ended: z.string().nullable(),
          phases: z.array(
            z.object({
              phase: z.string(),
              status: z.enum(['ok', 'skipped', 'failed']),
              counts: z.record(z.string(), z.number()),
              error: z.string().nullable(),
              detail: z.string().nullable(),
            }),
          ),
        })
        .nullable(),
    }),
    annotations: READ_ONLY,
    handler: (args) => {
      const scope = scopeOf(args);
      const since = recentWindow(clock.now(), args.period_hours * 3600_000).since;
      const gaps = stores.recallEvents.openGaps(scope, since, 10_000);
      return {
        period_hours: args.period_hours,
        since,
        proposals: stores.proposals.countByStatus(scope),
        last_decisions: stores.proposals
          .decidedSince(scope, since, REPORT_LIST_MAX)
          .map((p) => ({ proposal_id: p.proposal_id, kind: p.kind, status: p.status, decided: p.decided as string, write: describeProposal(p) })),
        auto_save: stores.audit.autoSaveSums(scope, since),
        open_gaps: { count: gaps.length, items: gaps.slice(0, REPORT_LIST_MAX) },
        dream_markers: { in_period: stores.episodes.countTagged(scope, DREAM_MARKER_TAG, since), total: stores.episodes.countTagged(scope, DREAM_MARKER_TAG) },
        nightly: stores.nightly.lastVisit(scope),
      };
    },
  });
}
