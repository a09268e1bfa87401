import { defineTool, z } from '@memory-service/kernel';
import type { Stores } from '@memory-service/stores';
import { layerInput, scopeOf, sessionOut, sessionSchema, userIdInput } from '../common.js';

export function memorySessionStartTool(stores: Stores) {
  return defineTool({
    name: 'memory_session_start',
    title: 'Start a working session',
    description:
      'Open an L2 working session for the layer and user_id (one session is open per layer and user_id at a time). When one is ' +
      'already open it is returned as it is (resumed true) rather than closed or opened twice, so calling this again after a restart ' +
      'is safe; close it with memory_session_end, which scores it. Returns the session (id sess_<n>, status open, started) and resumed.',
    input: () => z.object({ layer: layerInput, user_id: userIdInput }),
    output: () => z.object({ session: sessionSchema, resumed: z.boolean().describe('True when the session was already open') }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: (args) => {
      const scope = scopeOf(args);
      const open = stores.sessions.current(scope);
      const session = open ?? stores.sessions.start(scope);
      return { session: sessionOut(session), resumed: open !== null };
    },
  });
}
