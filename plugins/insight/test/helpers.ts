import { expect } from 'vitest';
import primitives from '@memory-service/plugin-primitives';
import type { Scope, Stores } from '@memory-service/stores';
import { createTestServer, ManualClock, ToolCallError, toolError, type TestServer } from '@memory-service/testing';
import insight from '../src/index.js';

export { ManualClock, ToolCallError, toolError, insight, primitives };
export type { TestServer };

/** Every tool the insight plugin registers, in registration order (memory_history, also of the insight tier, comes with the write plugin). */
export const INSIGHT_TOOLS = ['memory_episode_list', 'memory_episode_get', 'memory_episode_recall', 'memory_session_list', 'memory_graph_nodes', 'memory_graph_edges', 'memory_graph_query', 'memory_fact_blame', 'memory_query', 'memory_stats', 'memory_search', 'memory_recall', 'memory_quality', 'memory_reflect', 'memory_standing', 'memory_diagnose'];
/** The insight tools that write: feedback, reflections, saved queries. */
export const INSIGHT_WRITERS = ['memory_quality', 'memory_reflect', 'memory_standing'];
export const PRIMITIVES = ['think', 'dream', 'forget', 'evolve', 'project', 'memory_hook', 'wake_up'];

/** A server with the primitives and insight plugins on a fresh temp data dir, the insight tier exposed. */
export function start(opts: { clock?: ManualClock; expose?: string } = {}): Promise<TestServer> {
  return createTestServer({ plugins: [primitives, insight], expose: opts.expose ?? 'insight', clock: opts.clock ?? new ManualClock() });
}


/** The server's stores, to seed records no primitive writes (episodes with chosen tags, graph edges). */
export function storesOf(s: TestServer): Stores {
  return s.kernel.container.resolve<Stores>('stores');
}

export const USER: Scope = { layer: 'user', user_id: 'default' };

/** Every row of a table as JSON, to show that a read changed nothing (no access counts, no telemetry). */
export function dump(s: TestServer, table: string): string {
  storesOf(s).flush();
  return JSON.stringify(s.kernel.storage.db.prepare(`SELECT * FROM ${table} ORDER BY rowid`).all());
}

/** Think a text that goes to L3 and return the episode id it reports. */
export async function thinkEpisode(s: TestServer, text: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r: any = await s.call('think', { text, layer: 'user', ...extra });
  const l3 = r.actions.find((a: any) => a.store === 'l3');
  expect(l3, `think should route "${text}" to L3`).toBeTruthy();
  return l3.id;
}

