import primitives from '@memory-service/plugin-primitives';
import type { Stores } from '@memory-service/stores';
import { createTestServer, ManualClock, ToolCallError, toolError, type TestServer } from '@memory-service/testing';
import admin from '../src/index.js';

export { ManualClock, ToolCallError, toolError, primitives, admin };
export type { TestServer };

export const PRIMITIVES = ['think', 'dream', 'forget', 'evolve', 'project', 'memory_hook', 'wake_up'];

/** A server with the primitives and admin plugins on a fresh temp data dir, the admin tier exposed. */
export function start(opts: { clock?: ManualClock; expose?: string } = {}): Promise<TestServer> {
  return createTestServer({ plugins: [primitives, admin], expose: opts.expose ?? 'admin', clock: opts.clock ?? new ManualClock() });
}

/** The server's stores, to seed or inspect records directly. */
export function storesOf(s: TestServer): Stores {
  return s.kernel.container.resolve<Stores>('stores');
}
