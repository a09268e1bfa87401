import { definePlugin } from '@memory-service/kernel';
import { createTestServer } from '@memory-service/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, primitives, start, storesOf, toolError, write, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const U = { layer: 'user' as const, user_id: 'default' };
const add = (args: Record<string, unknown>) => s.call('memory_graph_add', args);

/** Records every graph_domain call. */
function domainSpy() {
  const seen: { node_id: string; node_type: string; content: string; layer: string }[] = [];
  const plugin = definePlugin({
    name: 'graph-domain-spy',
    version: '1.0.0',
    tier: 'spy',
    kernel: '^1.0.0',
    setup(ctx) {
      ctx.hooks.graph_domain.tapPromise('graph-domain-spy', async (n) => void seen.push({ node_id: n.node_id, node_type: n.node_type, content: n.content, layer: n.layer }));
    },
  });
  return { seen, plugin };
}

describe('memory_graph_add action add', () => {
  it('adds a node with type and tags; a person or organization again returns the existing node', async () => {
    s = await start();
    const ada: any = await add({ content: 'Ada Lovelace', node_type: 'Person', tags: ['team:core'] });
    expect(ada).toMatchObject({ action: 'add', existed: false, edge: null, node: { content: 'Ada Lovelace', node_type: 'person', tags: ['team:core'] } });
    const again: any = await add({ content: 'ada lovelace.', node_type: 'person' });
    expect(again).toMatchObject({ existed: true, node: { node_id: ada.node.node_id, content: 'Ada Lovelace' } });
    const org: any = await add({ content: 'Acme', node_type: 'organization' });
    expect(((await add({ content: 'ACME', node_type: 'organization' })) as any).node.node_id).toBe(org.node.node_id);
    // Deduplicated per user: bob's Ada is his own node.
    const bobs: any = await add({ content: 'Ada Lovelace', node_type: 'person', user_id: 'bob' });
    expect(bobs.existed).toBe(false);
    // Other types are not deduplicated.
    const n1: any = await add({ content: 'Refactor the parser', node_type: 'task' });
    const n2: any = await add({ content: 'Refactor the parser', node_type: 'task' });
    expect(n2.node.node_id).not.toBe(n1.node.node_id);
    expect(storesOf(s).graph.count(U)).toBe(4);
  });

  it('links to relates_to with one of the six relations', async () => {
    s = await start();
    const bo: any = await add({ content: 'Bo', node_type: 'person' });
    const r: any = await add({ content: 'Ada', node_type: 'person', relates_to: bo.node.node_id, relation: 'works_with' });
    expect(r.edge).toMatchObject({ relation: 'works_with', from: { node_id: r.node.node_id, content: 'Ada' }, to: { node_id: bo.node.node_id, content: 'Bo' } });
    // Re-adding the social node with another relation links the existing node.
    const again: any = await add({ content: 'Ada', node_type: 'person', relates_to: bo.node.node_id, relation: 'friend_of' });
    expect(again).toMatchObject({ existed: true, node: { node_id: r.node.node_id }, edge: { relation: 'friend_of' } });
    for (const relation of ['knows', 'family_of', 'met', 'mentions']) {
      expect(((await add({ content: `note ${relation}`, node_type: 'note', relates_to: bo.node.node_id, relation })) as any).edge.relation).toBe(relation);
    }
    expect(storesOf(s).graph.edges(U, { node_id: bo.node.node_id, direction: 'in' })).toHaveLength(6);
  });

  it('names relation, relates_to and node_type for bad input, writing nothing', async () => {
    s = await start();
    const bo: any = await add({ content: 'Bo', node_type: 'person' });
    const agentNode = storesOf(s).graph.addNode({ layer: 'agent', user_id: 'default' }, { content: 'Self', node_type: 'personality' });
    const before = storesOf(s).graph.count(U);
    expect((await toolError(add({ content: 'Ada', node_type: 'person', relates_to: bo.node.node_id, relation: 'hates' }))).field).toBe('relation');
    expect((await toolError(add({ content: 'Ada', node_type: 'person', relates_to: bo.node.node_id, relation: 'led_to' }))).field).toBe('relation');
    expect((await toolError(add({ content: 'Ada', node_type: 'person', relates_to: bo.node.node_id }))).field).toBe('relation');
    expect((await toolError(add({ content: 'Ada', node_type: 'person', relation: 'knows' }))).field).toBe('relates_to');
    for (const relates_to of ['node_999', 'bo', 'ep_1', agentNode.node_id]) {
      expect((await toolError(add({ content: 'Ada', node_type: 'person', relates_to, relation: 'knows' }))).field, relates_to).toBe('relates_to');
    }
    expect((await toolError(add({ content: 'Bo', node_type: 'person', relates_to: bo.node.node_id, relation: 'knows' }))).field).toBe('relates_to');
    expect((await toolError(add({ content: 'Ada' }))).field).toBe('node_type');
    expect((await toolError(add({ content: ' ', node_type: 'person' }))).field).toBe('content');
    expect((await toolError(add({ content: 'Ada', node_type: 'person', outcome: 'x' }))).field).toBe('outcome');
    expect((await toolError(add({ content: 'Ada', node_type: 'person', strength: 0.5 }))).field).toBe('strength');
    expect(storesOf(s).graph.count(U)).toBe(before);
    expect(storesOf(s).graph.edges(U)).toHaveLength(0);
  });

  it('fires graph_domain for error, decision, personality and emotion nodes only', async () => {
    const spy = domainSpy();
    s = await createTestServer({ plugins: [primitives, write, spy.plugin], expose: 'write', clock: new ManualClock() });
    for (const node_type of ['error', 'decision', 'personality', 'emotion', 'person', 'project']) {
      const r: any = await add({ content: `a ${node_type}`, node_type, layer: 'agent' });
      expect(r.domain_hook, node_type).toBe(['error', 'decision', 'personality', 'emotion'].includes(node_type));
    }
    expect(spy.seen.map((n) => n.node_type)).toEqual(['error', 'decision', 'personality', 'emotion']);
    expect(spy.seen[0]).toMatchObject({ content: 'a error', layer: 'agent' });
  });
});

describe('memory_graph_add action causal', () => {
  it('records action -> outcome with a causal relation and strength; the same pair again returns the same nodes', async () => {
    s = await start();
    const r: any = await add({ action: 'causal', content: 'Enabled the query cache', outcome: 'p95 latency halved', relation: 'caused', strength: 0.7 });
    expect(r).toMatchObject({
      action: 'causal',
      existed: false,
      outcome_existed: false,
      node: { content: 'Enabled the query cache', node_type: 'action' },
      outcome_node: { content: 'p95 latency halved', node_type: 'outcome' },
      edge: { relation: 'caused', strength: 0.7 },
    });
    const again: any = await add({ action: 'causal', content: 'enabled the query cache', outcome: 'P95 latency halved.', relation: 'caused', strength: 0.9 });
    expect(again).toMatchObject({ existed: true, outcome_existed: true, edge: { edge_id: r.edge.edge_id, strength: 0.9 } });
    expect(again.node.node_id).toBe(r.node.node_id);
    expect(again.outcome_node.node_id).toBe(r.outcome_node.node_id);
    // Same action, another outcome: the action node is reused.
    const blocked: any = await add({ action: 'causal', content: 'Enabled the query cache', outcome: 'Stale reports', relation: 'blocked' });
    expect(blocked).toMatchObject({ existed: true, outcome_existed: false, edge: { relation: 'blocked', strength: 1 } });
    expect(((await add({ action: 'causal', content: 'Wrote docs', outcome: 'Fewer questions' })) as any).edge.relation).toBe('led_to');
    expect(storesOf(s).graph.count(U)).toBe(5);
    // Isolated per layer: the agent's same pair is its own.
    expect(((await add({ action: 'causal', content: 'Enabled the query cache', outcome: 'p95 latency halved', layer: 'agent' })) as any).existed).toBe(false);
  });

  it('names outcome, relation, strength and the fields of action add', async () => {
    s = await start();
    expect((await toolError(add({ action: 'causal', content: 'x' }))).field).toBe('outcome');
    expect((await toolError(add({ action: 'causal', content: 'x', outcome: 'y', relation: 'knows' }))).field).toBe('relation');
    expect((await toolError(add({ action: 'causal', content: 'x', outcome: 'y', strength: 2 }))).field).toBe('strength');
    expect((await toolError(add({ action: 'causal', content: 'x', outcome: 'y', node_type: 'person' }))).field).toBe('node_type');
    expect((await toolError(add({ action: 'causal', content: 'x', outcome: 'y', relates_to: 'node_1' }))).field).toBe('relates_to');
    expect((await toolError(add({ action: 'cause', content: 'x', outcome: 'y' }))).field).toBe('action');
    expect(storesOf(s).graph.count(U)).toBe(0);
  });
});
