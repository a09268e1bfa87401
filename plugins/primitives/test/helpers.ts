import { expect } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import type { ConfigData, PluginDefinition } from '@memory-service/kernel';
import { createTestServer, ManualClock, ToolCallError, toolError, type TestServer } from '@memory-service/testing';
import primitives from '../src/index.js';

export { ManualClock, ToolCallError, toolError, primitives };
export type { TestServer };

export interface StartOptions {
  config?: ConfigData;
  clock?: ManualClock;
  plugins?: PluginDefinition[];
  expose?: string;
}

/** A server with the primitives plugin (plus any extra plugin) on a fresh temp data dir. */
export function start(opts: StartOptions = {}): Promise<TestServer> {
  return createTestServer({
    plugins: [primitives, ...(opts.plugins ?? [])],
    expose: opts.expose ?? 'primitives',
    clock: opts.clock ?? new ManualClock(),
    config: opts.config,
  });
}


/** Write what the stores batch (L1 files, access counts, recall telemetry) before reading the disk. */
export function flushStores(s: TestServer): void {
  s.kernel.container.resolve<{ flush(): void }>('stores').flush();
}

export type Table = 'facts' | 'episodes' | 'graph_nodes' | 'wiki_pages' | 'timeline_events' | 'recall_events' | 'shadow_bin' | 'l1_items' | 'sessions';

/** Row count of a stores table, optionally for one scope. */
export function count(s: TestServer, table: Table, scope?: { layer: string; user_id?: string }): number {
  flushStores(s);
  const db = s.kernel.storage.db;
  if (!scope) return (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
  return (
    db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE layer = ? AND user_id = ?`).get(scope.layer, scope.user_id ?? 'default') as {
      n: number;
    }
  ).n;
}

/** Counts of every content table, to show that a failed call wrote nothing. */
export function snapshot(s: TestServer): Record<Table, number> {
  const tables: Table[] = ['facts', 'episodes', 'graph_nodes', 'wiki_pages', 'timeline_events', 'recall_events', 'shadow_bin', 'l1_items'];
  return Object.fromEntries(tables.map((t) => [t, count(s, t)])) as Record<Table, number>;
}

/** The persisted L1 ring file of a scope. */
export function l1File(s: TestServer, layer: 'user' | 'agent', user = 'default'): { items: { id: string; text: string }[] } {
  flushStores(s);
  return JSON.parse(fs.readFileSync(path.join(s.dataDir, 'l1', layer, `${user}.json`), 'utf8'));
}

export interface Action {
  store: string;
  id: string;
  kind?: string;
  key?: string;
  path?: string;
}

/** The actions of a think result in one store. */
export function actionsIn(result: { actions: Action[] }, store: string): Action[] {
  return result.actions.filter((a) => a.store === store);
}

/** Past the window in which think indexes the previous thought as an episode's neighbouring context. */
const NEIGHBOUR_GAP_MS = 3600_000;

/**
 * A server on a manual clock, with `texts` thought in the user layer in order, the clock moved an
 * hour after each (so no thought is another's neighbouring context); with each think's answer.
 */
export async function thinkApart(texts: readonly string[]): Promise<{ s: TestServer; results: any[] }> {
  const clock = new ManualClock();
  const s = await start({ clock });
  const results: any[] = [];
  for (const text of texts) {
    results.push(await s.call('think', { text, layer: 'user' }));
    clock.advance(NEIGHBOUR_GAP_MS);
  }
  return { s, results };
}

/** Hit ids of a dream call. */
export async function dreamIds(s: TestServer, args: Record<string, unknown>): Promise<string[]> {
  const r = await s.call('dream', { ...args, hits: true });
  return r.hits.map((h: { id: string }) => h.id);
}

/** The answer of the primitives plugin to a lifecycle event. */
export async function hook(s: TestServer, event: string, payload: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Promise<any> {
  const r = await s.call('memory_hook', { event, payload, ...extra });
  return r.results[primitives.name];
}

/** The L4 key think made for `text` (it must route there), in the user layer. */
export async function keyOf(s: TestServer, text: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await s.call('think', { text, layer: 'user', ...extra });
  const [fact] = actionsIn(r, 'l4');
  expect(fact, `"${text}" should route to L4`).toBeDefined();
  return fact!.key!;
}

/** The Shadow Bin's rows, oldest first. */
export function shadowRows(s: TestServer): { origin_store: string; origin_id: string; layer: string }[] {
  return s.kernel.storage.db.prepare('SELECT origin_store, origin_id, layer FROM shadow_bin ORDER BY id').all() as {
    origin_store: string;
    origin_id: string;
    layer: string;
  }[];
}
