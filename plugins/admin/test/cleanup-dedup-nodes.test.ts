import insight from '@memory-service/plugin-insight';
import write from '@memory-service/plugin-write';
import { createTestServer } from '@memory-service/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { admin, ManualClock, primitives, storesOf, type TestServer } from './helpers.js';

/** memory_cleanup dedup_core and the graph node memory_remember makes beside each fact. */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const start = () => createTestServer({ plugins: [primitives, write, insight, admin], expose: 'all', clock: new ManualClock() });

describe('memory_cleanup dedup_core', () => {
  it("removes a duplicate fact's graph node with it, so dream no longer finds the removed fact through its node", async () => {
    s = await start();
    await s.call('memory_remember', { key: 'editor', value: 'uses neovim daily', importance: 0.5 });
    await s.call('memory_remember', { key: 'tool_pref', value: 'uses neovim daily', importance: 0.8 });
    const nodes = async () => ((await s.call('memory_graph_nodes', {})) as any).nodes.map((n: any) => n.content);
    const dry: any = await s.call('memory_cleanup', { tasks: ['dedup_core'] });
    expect(dry.dedup_core).toMatchObject({ removed: 1, removed_nodes: 1, archived: 0, removed_keys: ['editor'] });
    expect(await nodes()).toHaveLength(2);
    const applied: any = await s.call('memory_cleanup', { tasks: ['dedup_core'], dry_run: false });
    expect(applied.dedup_core).toMatchObject({ removed: 1, removed_nodes: 1, archived: 2, removed_keys: ['editor'] });
    expect(await nodes()).toEqual(['tool_pref: uses neovim daily']);
    expect((await s.call('memory_stats', {})) as any).toMatchObject({ l4: 1, graph_nodes: 1 });
    const d: any = await s.call('dream', { query: 'editor neovim', hits: true });
    expect(JSON.stringify(d)).not.toContain('editor: uses neovim daily');
    expect(storesOf(s).shadowBin.list({ layer: 'user', user_id: 'default' }).map((e) => e.origin_store).sort()).toEqual(['graph', 'l4']);
  });
});
