import { afterEach, describe, expect, it } from 'vitest';
import { dump, start, storesOf, toolError, USER, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

/** A small graph: three user nodes of default, one of bob, one of the agent layer, and edges between the user's. */
function seed() {
  const g = storesOf(s).graph;
  const ada = g.addNode(USER, { content: 'Ada', node_type: 'person', tags: ['team:core', 'role:lead'], confidence: 0.9 });
  const bo = g.addNode(USER, { content: 'Bo', node_type: 'person', tags: ['team:core'], confidence: 0.6 });
  const pg = g.addNode(USER, { content: 'Move to Postgres', node_type: 'decision', tags: ['team:infra', 'role:lead'], confidence: 0.8 });
  const bob = g.addNode({ layer: 'user', user_id: 'bob' }, { content: 'Bob', node_type: 'person', tags: ['team:core'] });
  const agent = g.addNode({ layer: 'agent', user_id: 'default' }, { content: 'Self', node_type: 'personality', tags: ['team:core'] });
  const e1 = g.addEdge(USER, { from: ada.node_id, to: bo.node_id, relation: 'works_with' });
  const e2 = g.addEdge(USER, { from: ada.node_id, to: pg.node_id, relation: 'led_to', strength: 0.7 });
  const e3 = g.addEdge(USER, { from: bo.node_id, to: ada.node_id, relation: 'knows' });
  return { ada, bo, pg, bob, agent, e1, e2, e3 };
}

const ids = (r: any) => r.nodes.map((n: any) => n.node_id);

describe('memory_graph_nodes', () => {
  it('lists the nodes highest confidence first, by type, paged, without recording an access', async () => {
    s = await start();
    const { ada, bo, pg } = seed();
    const before = dump(s, 'graph_nodes');
    const all: any = await s.call('memory_graph_nodes', {});
    expect(ids(all)).toEqual([ada.node_id, pg.node_id, bo.node_id]);
    expect(all.nodes[0]).toMatchObject({ content: 'Ada', node_type: 'person', tags: ['team:core', 'role:lead'], confidence: 0.9 });
    expect(ids(await s.call('memory_graph_nodes', { node_type: 'Person' }))).toEqual([ada.node_id, bo.node_id]);
    expect(ids(await s.call('memory_graph_nodes', { node_type: 'emotion' }))).toEqual([]);
    const first: any = await s.call('memory_graph_nodes', { limit: 2 });
    expect(first).toMatchObject({ count: 2, next_offset: 2 });
    expect(ids(await s.call('memory_graph_nodes', { limit: 2, offset: 2 }))).toEqual([bo.node_id]);
    expect(ids(await s.call('memory_graph_nodes', { user_id: 'bob' }))).toHaveLength(1);
    expect(ids(await s.call('memory_graph_nodes', { layer: 'agent' }))).toHaveLength(1);
    expect(dump(s, 'graph_nodes')).toBe(before);
  });

  it('lists the node memory_hook new_message saves', async () => {
    s = await start();
    const r: any = await s.call('memory_hook', { event: 'new_message', payload: { text: 'I always deploy on Fridays after the review' } });
    const node = r.results['@memory-service/plugin-primitives'].actions.find((a: any) => a.store === 'graph');
    expect(node).toBeTruthy();
    expect(ids(await s.call('memory_graph_nodes', {}))).toEqual([node.id]);
  });

  it('names node_type for an empty one', async () => {
    s = await start();
    expect((await toolError(s.call('memory_graph_nodes', { node_type: ' ' }))).field).toBe('node_type');
  });
});

describe('memory_graph_edges', () => {
  it("lists a node's edges out (default), in or both, with both endpoints' contents", async () => {
    s = await start();
    const { ada, bo, pg, e1, e2, e3 } = seed();
    const out: any = await s.call('memory_graph_edges', { node_id: ada.node_id });
    expect(out.node).toMatchObject({ node_id: ada.node_id, content: 'Ada' });
    expect(out.edges.map((e: any) => e.edge_id)).toEqual([e1.edge_id, e2.edge_id]);
    expect(out.edges[1]).toMatchObject({
      relation: 'led_to',
      strength: 0.7,
      from: { node_id: ada.node_id, content: 'Ada', node_type: 'person' },
      to: { node_id: pg.node_id, content: 'Move to Postgres', node_type: 'decision' },
    });
    const inn: any = await s.call('memory_graph_edges', { node_id: ada.node_id, direction: 'in' });
    expect(inn.edges.map((e: any) => e.edge_id)).toEqual([e3.edge_id]);
    const both: any = await s.call('memory_graph_edges', { node_id: ada.node_id, direction: 'both' });
    expect(both).toMatchObject({ count: 3 });
    expect(((await s.call('memory_graph_edges', { node_id: bo.node_id, direction: 'both', limit: 1 })) as any).count).toBe(1);
    const scope: any = await s.call('memory_graph_edges', {});
    expect(scope).toMatchObject({ node: null, count: 3 });
    expect(scope.edges[0].edge_id).toBe(e3.edge_id);
    expect(((await s.call('memory_graph_edges', { user_id: 'bob' })) as any).count).toBe(0);
  });

  it('names node_id for a malformed, unknown or other scope node, and direction without a node', async () => {
    s = await start();
    const { ada, bob } = seed();
    for (const node_id of ['ada', 'node_', 'ep_1', 'node_999']) {
      expect((await toolError(s.call('memory_graph_edges', { node_id }))).field, node_id).toBe('node_id');
    }
    expect((await toolError(s.call('memory_graph_edges', { node_id: bob.node_id }))).field).toBe('node_id');
    expect((await toolError(s.call('memory_graph_edges', { node_id: ada.node_id, layer: 'agent' }))).field).toBe('node_id');
    expect((await toolError(s.call('memory_graph_edges', { node_id: ada.node_id, direction: 'up' }))).field).toBe('direction');
    expect((await toolError(s.call('memory_graph_edges', { direction: 'in' }))).field).toBe('direction');
  });
});

describe('memory_graph_query', () => {
  it('finds nodes by faceted tags, by node type, or both', async () => {
    s = await start();
    const { ada, bo, pg } = seed();
    expect(ids(await s.call('memory_graph_query', { tag: 'team:core' }))).toEqual([ada.node_id, bo.node_id]);
    expect(ids(await s.call('memory_graph_query', { tag: ['team:core', 'team:infra'] }))).toEqual([ada.node_id, pg.node_id, bo.node_id]);
    expect(ids(await s.call('memory_graph_query', { tag: ['team:core', 'team:infra', 'role:lead'] }))).toEqual([ada.node_id, pg.node_id]);
    expect(ids(await s.call('memory_graph_query', { node_type: 'decision' }))).toEqual([pg.node_id]);
    expect(ids(await s.call('memory_graph_query', { tag: 'role:lead', node_type: 'person' }))).toEqual([ada.node_id]);
    expect(ids(await s.call('memory_graph_query', { tag: 'team:core', limit: 1, offset: 1 }))).toEqual([bo.node_id]);
    expect(ids(await s.call('memory_graph_query', { tag: 'team:core', layer: 'agent' }))).toHaveLength(1);
    expect(ids(await s.call('memory_graph_query', { tag: 'team:core', user_id: 'nobody' }))).toEqual([]);
  });

  // node_type was compared trimmed and lower-cased only: a type sent decomposed found none of the nodes stored precomposed.
  it('finds nodes by a node_type given in NFC or NFD, whichever form it was stored in', async () => {
    s = await start();
    const g = storesOf(s).graph;
    const a = g.addNode(USER, { content: 'Le Procope', node_type: 'Caf\u00e9', confidence: 0.9 });
    const b = g.addNode(USER, { content: 'Flore', node_type: 'CAFE\u0301', confidence: 0.8 });
    for (const node_type of ['caf\u00e9', 'cafe\u0301', 'CAF\u00c9']) {
      expect(ids(await s.call('memory_graph_query', { node_type })), node_type).toEqual([a.node_id, b.node_id]);
      expect(ids(await s.call('memory_graph_nodes', { node_type })), node_type).toEqual([a.node_id, b.node_id]);
    }
    expect((await s.call('memory_graph_nodes', {})).nodes.map((n: any) => n.node_type)).toEqual(['caf\u00e9', 'caf\u00e9']);
  });

  it('answers the total of matching nodes on every page, as do memory_graph_nodes', async () => {
    s = await start();
    seed();
    expect(await s.call('memory_graph_query', { tag: 'team:core', limit: 1 })).toMatchObject({ count: 1, next_offset: 1, total: 2 });
    expect(await s.call('memory_graph_query', { tag: 'team:core', limit: 1, offset: 1 })).toMatchObject({ count: 1, next_offset: null, total: 2 });
    expect(await s.call('memory_graph_query', { node_type: 'emotion' })).toMatchObject({ count: 0, total: 0 });
    expect(await s.call('memory_graph_nodes', { limit: 2 })).toMatchObject({ count: 2, next_offset: 2, total: 3 });
    expect(await s.call('memory_graph_nodes', { node_type: 'person', limit: 1, offset: 1 })).toMatchObject({ count: 1, total: 2 });
    const tools = (await s.client.listTools()).tools;
    for (const name of ['memory_graph_nodes', 'memory_graph_query']) {
      expect((tools.find((t) => t.name === name)?.outputSchema as { required?: string[] }).required, name).toContain('total');
    }
  });

  it('names tag when neither tag nor node_type is given', async () => {
    s = await start();
    expect((await toolError(s.call('memory_graph_query', {}))).field).toBe('tag');
    expect((await toolError(s.call('memory_graph_query', { tag: [] }))).field).toBe('tag');
  });
});
