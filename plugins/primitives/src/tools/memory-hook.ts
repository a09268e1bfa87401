import { defineTool, LIFECYCLE_EVENTS, z, type Kernel } from '@memory-service/kernel';
import { layerInput, userIdInput } from '../common.js';

export function memoryHookTool(kernel: Kernel) {
  return defineTool({
    name: 'memory_hook',
    title: 'Fire a lifecycle event',
    description:
      `Fire one lifecycle event into the hook dispatcher (the same one as POST /api/hooks/<event>). Events: ${LIFECYCLE_EVENTS.join(', ')}. ` +
      'session_started {text?, budget?} returns the critical inject block (its Relevant block: 5 distinct memories for text); session_ended {summary, topics?: string[], state_deltas?: object or list} saves the summary as an episode and closes the session; ' +
      'new_message / auto_save_candidate {text} auto-save by importance (>= 0.5 to L3 and the graph, >= 0.8 also to L4); the same text saved in the last 10 minutes answers already_saved with its ids and is not saved again; ' +
      'post_context_compression {query} returns 10 distinct rehydrate candidates; context_threshold and memory_pressure return advice. ' +
      'An unknown event is a ValueError. Returns every handler\'s result keyed by plugin name.',
    input: () => z.object({
      // Any string: the dispatcher answers every name it does not know, as over HTTP, with a ValueError.
      event: z.string().describe(`One of ${LIFECYCLE_EVENTS.join(', ')}`),
      payload: z.record(z.string(), z.unknown()).default({}).describe('The event payload'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      event: z.string(),
      layer: z.enum(['user', 'agent']),
      user_id: z.string(),
      results: z.record(z.string(), z.unknown()),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    // Outside the call's transaction: each lifecycle handler writes in one transaction of its own,
    // and in the call's, events that only read (post_context_compression, context_threshold) waited
    // for another process's write lock, and their searches could not use or build the index.
    transaction: false,
    // The call's start and cancel signal go to the handlers (EventContext), whose writes wait for
    // another process's write lock without blocking the server (LifecycleHandlers).
    handler: (args, call) => kernel.dispatchEvent(args.event, args.payload, args.layer, args.user_id, call),
  });
}
