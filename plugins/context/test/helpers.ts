import primitives from '@memory-service/plugin-primitives';
import { createTestServer, ManualClock, ToolCallError, toolError, type TestServer } from '@memory-service/testing';
import context from '../src/index.js';

export { ManualClock, ToolCallError, toolError, primitives, context };
export type { TestServer };

export const CONTEXT_TOOLS = ['memory_get_smart_context', 'memory_context', 'memory_context_inject', 'memory_steering', 'memory_compress'];
export const PRIMITIVES = ['think', 'dream', 'forget', 'evolve', 'project', 'memory_hook', 'wake_up'];

/** A server with the primitives and context plugins on a fresh temp data dir, the context tier exposed. */
export function start(opts: { clock?: ManualClock; expose?: string } = {}): Promise<TestServer> {
  return createTestServer({ plugins: [primitives, context], expose: opts.expose ?? 'context', clock: opts.clock ?? new ManualClock() });
}

