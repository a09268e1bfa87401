import primitives from '@memory-service/plugin-primitives';
import type { Stores } from '@memory-service/stores';
import { createTestServer, ManualClock, ToolCallError, toolError, type TestServer } from '@memory-service/testing';
import review from '../src/index.js';

export { ManualClock, ToolCallError, toolError, primitives, review };
export type { TestServer };

export const PRIMITIVES = ['think', 'dream', 'forget', 'evolve', 'project', 'memory_hook', 'wake_up'];

/** A server with the primitives and review plugins on a fresh temp data dir, the review tier exposed. */
export function start(opts: { clock?: ManualClock; expose?: string } = {}): Promise<TestServer> {
  return createTestServer({ plugins: [primitives, review], expose: opts.expose ?? 'review', clock: opts.clock ?? new ManualClock() });
}

/** The server's stores, to seed or inspect records directly. */
export function storesOf(s: TestServer): Stores {
  return s.kernel.container.resolve<Stores>('stores');
}
