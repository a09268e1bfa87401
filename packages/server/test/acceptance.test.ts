import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { stdioClient, tempDir } from './helpers.js';

const PRIMITIVES = ['think', 'dream', 'forget', 'evolve', 'project', 'memory_hook', 'wake_up'];
const BOOKMARKS = fileURLToPath(new URL('../../../examples/custom-plugin', import.meta.url));

const open: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

describe('the first-party server as an MCP host sees it', () => {
  it('lists exactly the 7 primitives when MEMORY_EXPOSE is unset', async () => {
    const c = await stdioClient({ MCP_MEMORY_DATA_DIR: tempDir() });
    open.push(c);
    const tools = (await c.client.listTools()).tools;
    expect(tools.map((t) => t.name).sort()).toEqual([...PRIMITIVES].sort());
    for (const t of tools) {
      expect(t.title, t.name).toBeTruthy();
      expect(t.description!.length, t.name).toBeGreaterThan(40);
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type, t.name).toBe('object');
      expect(Object.keys(t.annotations ?? {}).sort()).toEqual(['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint', 'title']);
    }
  });

  it('MEMORY_EXPOSE=wiki lists the nine wiki tools next to the primitives', async () => {
    const c = await stdioClient({ MCP_MEMORY_DATA_DIR: tempDir(), MEMORY_EXPOSE: 'wiki' });
    open.push(c);
    const names = (await c.client.listTools()).tools.map((t) => t.name).sort();
    expect(names).toEqual([...PRIMITIVES, 'wiki_add', 'wiki_search', 'wiki_list', 'wiki_read', 'wiki_delete', 'wiki_summarize', 'wiki_link', 'wiki_query', 'wiki_reflect'].sort());
    const added: any = await c.client.callTool({ name: 'wiki_add', arguments: { title: 'Plan', content: 'Ship on Friday.', wiki_type: 'work_notes' } });
    expect(added.structuredContent.status).toBe('created');
    const read: any = await c.client.callTool({ name: 'wiki_read', arguments: { path: added.structuredContent.page.path } });
    expect(read.structuredContent.page.content).toBe('Ship on Friday.');
    const found: any = await c.client.callTool({ name: 'wiki_query', arguments: { wiki_type: 'work_notes', content: 'friday' } });
    expect(found.structuredContent.pages.map((p: any) => p.title)).toEqual(['Plan']);
    const reflected: any = await c.client.callTool({ name: 'wiki_reflect', arguments: {} });
    expect(reflected.structuredContent).toMatchObject({ created: 1, by_type: [{ wiki_type: 'work_notes', created: 1, updated: 0 }], orphans: [{ title: 'Plan' }] });
  });

  it('MEMORY_EXPOSE=insight lists the built insight tools next to the primitives, and reads what think wrote', async () => {
    const c = await stdioClient({ MCP_MEMORY_DATA_DIR: tempDir(), MEMORY_EXPOSE: 'insight' });
    open.push(c);
    const names = (await c.client.listTools()).tools.map((t) => t.name).sort();
    // memory_history and memory_standing are in the insight and write tiers both.
    const insight = ['memory_query', 'memory_fact_blame', 'memory_history', 'memory_quality', 'memory_reflect', 'memory_stats', 'memory_search', 'memory_recall', 'memory_episode_recall', 'memory_episode_list', 'memory_episode_get', 'memory_session_list', 'memory_graph_query', 'memory_graph_nodes', 'memory_graph_edges', 'memory_diagnose', 'memory_standing'];
    expect(names).toEqual([...PRIMITIVES, ...insight].sort());
    const thought: any = await c.client.callTool({ name: 'think', arguments: { text: 'The staging database migrates every Tuesday night after the backup finishes.', layer: 'user' } });
    const l3 = thought.structuredContent.actions.find((a: any) => a.store === 'l3');
    const got: any = await c.client.callTool({ name: 'memory_episode_get', arguments: { episode_id: l3.id } });
    expect(got.structuredContent.episode.summary).toBe('The staging database migrates every Tuesday night after the backup finishes.');
    const found: any = await c.client.callTool({ name: 'memory_query', arguments: { target: 'episodes', content_like: 'tuesday' } });
    expect(found.structuredContent.episodes.map((e: any) => e.id)).toEqual([l3.id]);
    const stats: any = await c.client.callTool({ name: 'memory_stats', arguments: {} });
    expect(stats.structuredContent).toMatchObject({ l3: 1, l2: 0, recall_count: 0 });
  });

  it('think then dream round-trips through the real bin, and layers stay apart', async () => {
    const c = await stdioClient({ MCP_MEMORY_DATA_DIR: tempDir() });
    open.push(c);
    const thought: any = await c.client.callTool({
      name: 'think',
      arguments: { text: 'The staging database migrates every Tuesday night after the backup finishes.', layer: 'user' },
    });
    const l3 = thought.structuredContent.actions.find((a: any) => a.store === 'l3');
    expect(l3).toBeTruthy();
    const found: any = await c.client.callTool({ name: 'dream', arguments: { query: 'when does the staging database migrate' } });
    // The best hit heads the summary: its source and id name it (the list of hits only when asked).
    expect(found.structuredContent.summary.startsWith(`## [l3] ${l3.id} | `)).toBe(true);
    expect(found.structuredContent).not.toHaveProperty('hits');
    const other: any = await c.client.callTool({ name: 'dream', arguments: { query: 'staging database', layer: 'agent' } });
    expect(other.structuredContent.result_count).toBe(0);
    const otherUser: any = await c.client.callTool({ name: 'dream', arguments: { query: 'staging database', user_id: 'someone-else' } });
    expect(otherUser.structuredContent.result_count).toBe(0);
  });

  it('loads the example bookmarks plugin from MEMORY_PLUGINS next to the primitives', async () => {
    const c = await stdioClient({ MCP_MEMORY_DATA_DIR: tempDir(), MEMORY_PLUGINS: BOOKMARKS, MEMORY_EXPOSE: 'primitives,bookmarks' });
    open.push(c);
    const names = (await c.client.listTools()).tools.map((t) => t.name).sort();
    expect(names).toEqual([...PRIMITIVES, 'bookmark_add', 'bookmark_list', 'bookmark_search'].sort());
    const added: any = await c.client.callTool({ name: 'bookmark_add', arguments: { url: 'https://example.org/spec', title: 'The spec' } });
    expect(added.isError).toBeFalsy();
    const hook: any = await c.client.callTool({ name: 'memory_hook', arguments: { event: 'session_started', payload: {} } });
    expect(Object.keys(hook.structuredContent.results).sort()).toEqual(['@memory-service/example-custom-plugin', '@memory-service/plugin-primitives']);
  });

  it('agent with MEMORY_META lists the primitives flat, one dispatcher per other agent tier and the catalogue: 13 schemas', async () => {
    const c = await stdioClient({ MCP_MEMORY_DATA_DIR: tempDir(), MEMORY_EXPOSE: 'agent', MEMORY_META: '1' });
    open.push(c);
    const names = (await c.client.listTools()).tools.map((t) => t.name);
    expect(names).toHaveLength(13);
    expect(names.slice(0, 7).sort()).toEqual([...PRIMITIVES].sort());
    expect(names.slice(7).sort()).toEqual(['memory_catalog', 'memory_tier_context', 'memory_tier_insight', 'memory_tier_review', 'memory_tier_wiki', 'memory_tier_write']);
  });

  it('counts the distinct tools of the spec: all, full and operator 66, agent 59, the default 7', async () => {
    const counts: Record<string, number> = {};
    for (const expose of ['all', 'full', 'operator', 'agent', '']) {
      const c = await stdioClient({ MCP_MEMORY_DATA_DIR: tempDir(), MEMORY_EXPOSE: expose });
      open.push(c);
      const names = (await c.client.listTools()).tools.map((t) => t.name);
      expect(new Set(names).size, expose).toBe(names.length);
      counts[expose || 'default'] = names.length;
    }
    expect(counts).toEqual({ all: 66, full: 66, operator: 66, agent: 59, default: 7 });
  });
});
