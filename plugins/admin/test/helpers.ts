import fs from 'node:fs';
import type { PluginDefinition } from '@memory-service/kernel';
import primitives from '@memory-service/plugin-primitives';
import type { Stores } from '@memory-service/stores';
import { createTestServer, ManualClock, tempDataDir, ToolCallError, toolError, type TestServer } from '@memory-service/testing';
import { afterEach } from 'vitest';
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

/**
 * Servers of these plugins on one data dir (every tool exposed), for a restart or several processes
 * on one database: `fresh()` makes a new temp dir and answers it, `start()` starts a server on it.
 * `close(s)` closes one before the test ends; after each test, the others are closed and the dir removed.
 */
export function serversOnOneDir(plugins: PluginDefinition[]): { fresh(): string; start(): Promise<TestServer>; close(s: TestServer): Promise<void> } {
  const open: TestServer[] = [];
  let dir = '';
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    dir = '';
  });
  return {
    fresh: () => (dir = tempDataDir()),
    start: async () => {
      const s = await createTestServer({ plugins, expose: 'all', clock: new ManualClock(), dataDir: dir });
      open.push(s);
      return s;
    },
    close: async (s) => {
      open.splice(open.indexOf(s), 1);
      await s.close();
    },
  };
}
