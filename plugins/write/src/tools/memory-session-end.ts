import { defineTool, z, type Hooks, type Logger } from '@memory-service/kernel';
import type { Stores } from '@memory-service/stores';
import { episodeOut, episodeSchema, layerInput, scopeOf, sessionOut, sessionSchema, userIdInput } from '../common.js';

export function memorySessionEndTool(stores: Stores, hooks: Readonly<Hooks>, logger: Logger) {
  return defineTool({
    name: 'memory_session_end',
    title: 'End the working session',
    description:
      'Close the open L2 working session of the layer and user_id, with an optional summary, topics (list of strings) and ' +
      'state_deltas (object or list of what changed). The session gets its quality score, an integer 0..80 stored on it, computed ' +
      'without a model from four components of 0..20: depth (summary length and sentences, topics), decision (decision words, state ' +
      'deltas), linked_entries (episodes and facts written during the session) and user_engagement (L1 items pushed during it). A ' +
      'non-empty summary is also saved as an L3 episode tagged session_summary (as memory_hook session_ended does), and the ' +
      'session_consolidation hooks fire. Returns the closed session (quality, quality_detail) and the summary episode (null without a ' +
      'summary). Ending when no session is open is an error naming session (start one with memory_session_start).',
    input: () => z.object({
      summary: z.string().max(100_000).optional().describe('What the session did'),
      topics: z.array(z.string().max(200)).max(100).optional().describe('Topics of the session'),
      state_deltas: z
        .union([z.record(z.string(), z.unknown()), z.array(z.unknown())])
        .optional()
        .describe('What changed during the session: an object (one entry per change) or a list'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({ session: sessionSchema, episode: episodeSchema.nullable().describe('The session_summary episode; null without a summary') }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    handler: async (args) => {
      const scope = scopeOf(args);
      const summary = (args.summary ?? '').trim();
      const { session, episode } = stores.sessionCloser.close(
        scope,
        { summary, topics: args.topics?.map((t) => t.trim()).filter(Boolean), state_deltas: args.state_deltas },
        { requireOpen: true, origin: 'memory_session_end' },
      );
      try {
        await hooks.session_consolidation.promise({ ...scope, session_id: session.id, summary });
      } catch (err) {
        logger.error(`hook session_consolidation failed: ${(err as Error).message}`);
      }
      return { session: sessionOut(session), episode: episode ? episodeOut(episode) : null };
    },
  });
}
