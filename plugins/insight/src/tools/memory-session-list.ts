import { defineTool, z } from '@memory-service/kernel';
import type { Session, Stores } from '@memory-service/stores';
import { layerInput, limitInput, offsetInput, page, pagingOutput, READ_ONLY, scopeOf, userIdInput } from '../common.js';

const sessionSchema = z.object({
  id: z.string().describe('Session id (sess_<n>)'),
  state: z.enum(['open', 'closed']),
  started: z.string(),
  ended: z.string().nullable().describe('Null while the session is open'),
  summary: z.string().nullable().describe('Given at close; null while open'),
  topics: z.array(z.string()),
  quality: z.number().nullable().describe('Quality score 0 to 80 computed at close (depth, decision, linked entries, user engagement); null while open'),
});

function sessionOut(s: Session): z.infer<typeof sessionSchema> {
  return { id: s.id, state: s.status, started: s.started, ended: s.ended, summary: s.summary, topics: s.topics, quality: s.quality };
}

export function memorySessionListTool(stores: Stores) {
  return defineTool({
    name: 'memory_session_list',
    title: 'List recent sessions',
    description:
      'List the recent working sessions (L2) of the layer and user_id, newest first, a page at a time (limit, offset). Each session has ' +
      'its id, state (open or closed), started and ended times, and once closed its summary, topics and quality score (0 to 80). ' +
      'Returns the sessions, count, total and next_offset (null when there are no more).',
    input: () => z.object({
      limit: limitInput(20, 200),
      offset: offsetInput,
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({ sessions: z.array(sessionSchema), ...pagingOutput, total: z.number() }),
    annotations: READ_ONLY,
    handler: (args) => {
      const scope = scopeOf(args);
      const p = page(stores.sessions.list(scope, args.limit + 1, args.offset), args.limit, args.offset);
      return { sessions: p.items.map(sessionOut), count: p.count, offset: p.offset, next_offset: p.next_offset, total: stores.sessions.count(scope) };
    },
  });
}
