import primitives from '@memory-service/plugin-primitives';
import { createTestServer, ManualClock, ToolCallError, toolError, type TestServer } from '@memory-service/testing';
import wiki from '../src/index.js';

export { ManualClock, ToolCallError, toolError, primitives, wiki };
export type { TestServer };

export const WIKI_TOOLS = ['wiki_add', 'wiki_search', 'wiki_list', 'wiki_read', 'wiki_delete', 'wiki_summarize', 'wiki_link', 'wiki_query', 'wiki_reflect'];
export const PRIMITIVES = ['think', 'dream', 'forget', 'evolve', 'project', 'memory_hook', 'wake_up'];

/** A server with the primitives and wiki plugins on a fresh temp data dir, the wiki tier exposed. */
export function start(opts: { clock?: ManualClock; expose?: string } = {}): Promise<TestServer> {
  return createTestServer({ plugins: [primitives, wiki], expose: opts.expose ?? 'wiki', clock: opts.clock ?? new ManualClock() });
}


/** Row count of a table, to show that a failed call wrote nothing. */
export function rows(s: TestServer, table: 'wiki_pages' | 'wiki_links' | 'shadow_bin'): number {
  return (s.kernel.storage.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
}

/** Add a page (user layer by default) and return the call's result. */
export function add(s: TestServer, title: string, content: string, extra: Record<string, unknown> = {}): Promise<any> {
  return s.call('wiki_add', { title, content, wiki_type: 'diary', ...extra });
}
