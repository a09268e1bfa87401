import { expect } from 'vitest';
import primitives from '@memory-service/plugin-primitives';
import { createTestServer, ManualClock, ToolCallError, type TestServer } from '@memory-service/testing';
import context from '../src/index.js';

export { ManualClock, ToolCallError, primitives, context };
export type { TestServer };

export const CONTEXT_TOOLS = ['memory_get_smart_context', 'memory_context', 'memory_context_inject', 'memory_steering', 'memory_compress'];
export const PRIMITIVES = ['think', 'dream', 'forget', 'evolve', 'project', 'memory_hook', 'wake_up'];

/** A server with the primitives and context plugins on a fresh temp data dir, the context tier exposed. */
export function start(opts: { clock?: ManualClock; expose?: string } = {}): Promise<TestServer> {
  return createTestServer({ plugins: [primitives, context], expose: opts.expose ?? 'context', clock: opts.clock ?? new ManualClock() });
}

/** The structured error a failing tool call rejects with. */
export async function toolError(p: Promise<unknown>): Promise<ToolCallError['error']> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, 'the call should have failed').toBeInstanceOf(ToolCallError);
  return (err as ToolCallError).error;
}
