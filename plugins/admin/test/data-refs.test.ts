import insight from '@memory-service/plugin-insight';
import wiki from '@memory-service/plugin-wiki';
import write from '@memory-service/plugin-write';
import { createTestServer } from '@memory-service/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { admin, ManualClock, primitives, type TestServer } from './helpers.js';

/** memory_data import and the ids an exported record names (graph nodes, pages): they name the records the import wrote. */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const start = () => createTestServer({ plugins: [primitives, write, insight, wiki, admin], expose: 'all', clock: new ManualClock() });
const nodes = async (user_id: string) => ((await s.call('memory_graph_nodes', { user_id, limit: 200 })) as any).nodes.map((n: any) => n.content).sort();

describe('memory_data import into a scope that holds records of its own', () => {
  it("forget exact of an imported fact and memory_remember of a new value touch the fact's own node, not the target's", async () => {
    s = await start();
    await s.call('memory_remember', { key: 'color', value: 'favourite colour is teal', user_id: 'source' });
    await s.call('memory_remember', { key: 'city', value: 'lives in Lisbon', user_id: 'source' });
    const doc = (await s.call('memory_data', { action: 'export', user_id: 'source' })).data;
    for (let i = 0; i < 3; i++) await s.call('memory_graph_add', { content: `precious node ${i}`, node_type: 'note', user_id: 'target' });
    await s.call('memory_data', { action: 'import', data: doc, user_id: 'target' });
    const precious = ['precious node 0', 'precious node 1', 'precious node 2'];
    await s.call('forget', { key: 'color', scope: 'exact', user_id: 'target' });
    expect(await nodes('target')).toEqual(['city: lives in Lisbon', ...precious]);
    await s.call('memory_remember', { key: 'city', value: 'moved to Porto', user_id: 'target' });
    expect(await nodes('target')).toEqual(['city: moved to Porto', ...precious]);
  });

  it("a long thought imported into another user_id links to that user's page, which a forget of the link then removes with it", async () => {
    s = await start();
    const text = 'Notes on the caching layer design and eviction policy. '.repeat(45);
    const thought = await s.call('think', { text, user_id: 'alice' });
    expect(thought.actions.map((a: any) => a.store)).toContain('wiki');
    const doc = (await s.call('memory_data', { action: 'export', user_id: 'alice' })).data;
    await s.call('memory_data', { action: 'import', data: doc, user_id: 'bob' });
    const bobPage = ((await s.call('wiki_list', { user_id: 'bob' })) as any).pages[0];
    expect(bobPage.path).toContain('/bob/');
    const link = ((await s.call('memory_episode_list', { user_id: 'bob' })) as any).episodes.find((e: any) => e.summary.includes('[wiki: '));
    expect(link.summary).toContain(`(${bobPage.path})]`);
    expect(link.summary).not.toContain('/alice/');
    // Forgetting the thought's words in bob's scope takes the link with bob's page, not alice's (forget matches what the user
    // wrote, not the page title and path the link ends with).
    await s.call('forget', { key: 'eviction policy', scope: 'fuzzy', user_id: 'bob' });
    expect(((await s.call('wiki_list', { user_id: 'bob' })) as any).pages).toEqual([]);
    expect(((await s.call('wiki_list', { user_id: 'alice' })) as any).pages).toHaveLength(1);
  });
});
