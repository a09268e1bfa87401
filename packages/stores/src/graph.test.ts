import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { A, U, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

describe('GraphStore', () => {
  it('deduplicates social nodes per scope by normalised content', () => {
    const a = env.stores.graph.addNode(U, { content: 'Alice Smith', node_type: 'person' });
    const b = env.stores.graph.addNode(U, { content: '  alice   SMITH. ', node_type: 'person' });
    expect(a.existed).toBe(false);
    expect(b.existed).toBe(true);
    expect(b.node_id).toBe(a.node_id);
    const other = env.stores.graph.addNode(A, { content: 'Alice Smith', node_type: 'person' });
    expect(other.existed).toBe(false);
    const c1 = env.stores.graph.addNode(U, { content: 'idea', node_type: 'concept' });
    const c2 = env.stores.graph.addNode(U, { content: 'idea', node_type: 'concept' });
    expect(c2.node_id).not.toBe(c1.node_id);
    const o1 = env.stores.graph.addNode(U, { content: 'deploy', node_type: 'action', dedupe: true });
    expect(env.stores.graph.addNode(U, { content: 'Deploy', node_type: 'action', dedupe: true }).node_id).toBe(o1.node_id);
  });

  it('adds edges, lists them by direction with both contents, and validates relations', () => {
    const a = env.stores.graph.addNode(U, { content: 'Alice', node_type: 'person', confidence: 0.9 });
    const b = env.stores.graph.addNode(U, { content: 'Acme', node_type: 'organization', confidence: 0.4 });
    const c = env.stores.graph.addNode(U, { content: 'outage', node_type: 'error', tags: ['prod'] });
    env.stores.graph.addEdge(U, { from: a.node_id, to: b.node_id, relation: 'works_with' });
    const causal = env.stores.graph.addEdge(U, { from: c.node_id, to: a.node_id, relation: 'caused', strength: 0.7 });
    expect(causal.strength).toBe(0.7);
    expect(causal.from.content).toBe('outage');
    expect(causal.to.content).toBe('Alice');
    expect(env.stores.graph.edges(U, { node_id: a.node_id }).map((e) => e.to.content)).toEqual(['Acme']);
    expect(env.stores.graph.edges(U, { node_id: a.node_id, direction: 'in' }).map((e) => e.from.content)).toEqual(['outage']);
    expect(env.stores.graph.edges(U, { node_id: a.node_id, direction: 'both' })).toHaveLength(2);
    expect(() => env.stores.graph.addEdge(U, { from: a.node_id, to: b.node_id, relation: 'hates' })).toThrow(/relation must be one of/);
    const agentNode = env.stores.graph.addNode(A, { content: 'x', node_type: 'concept' });
    expect(() => env.stores.graph.addEdge(U, { from: a.node_id, to: agentNode.node_id, relation: 'knows' })).toThrow(/not found/);
    expect(env.stores.graph.nodes(U).map((n) => n.content)).toEqual(['Alice', 'outage', 'Acme']);
    expect(env.stores.graph.nodes(U, { node_type: 'person' }).map((n) => n.content)).toEqual(['Alice']);
    expect(env.stores.graph.query(U, { tag: 'prod' }).map((n) => n.content)).toEqual(['outage']);
    expect(env.stores.graph.query(A, { tag: 'prod' })).toEqual([]);
  });

  it('deletes by node, pattern and time, cascading edges', () => {
    const a = env.stores.graph.addNode(U, { content: 'Alice', node_type: 'person' });
    const b = env.stores.graph.addNode(U, { content: 'Bob', node_type: 'person' });
    env.stores.graph.addEdge(U, { from: a.node_id, to: b.node_id, relation: 'knows' });
    // Whole words only: a part of a word deletes nothing.
    expect(env.stores.graph.deleteMatching(U, 'ali')).toEqual([]);
    expect(env.stores.graph.deleteMatching(U, 'ALICE').map((n) => n.node_id)).toEqual([a.node_id]);
    expect(env.stores.graph.edges(U)).toEqual([]);
    env.clock.advance(1000);
    const since = new Date(env.clock.now()).toISOString();
    env.stores.graph.addNode(U, { content: 'Carol', node_type: 'person' });
    expect(env.stores.graph.deleteSince(U, since)).toBe(1);
    expect(env.stores.graph.deleteNode(U, b.node_id)?.content).toBe('Bob');
    expect(env.stores.graph.count(U)).toBe(0);
  });

  it('countQuery counts the nodes query pages through for the same filter', () => {
    const g = env.stores.graph;
    g.addNode(U, { content: 'Ada', node_type: 'person', tags: ['team:core', 'role:lead'] });
    g.addNode(U, { content: 'Bo', node_type: 'person', tags: ['team:core'] });
    g.addNode(U, { content: 'Postgres', node_type: 'decision', tags: ['team:infra', 'role:lead'] });
    g.addNode(A, { content: 'Self', node_type: 'person', tags: ['team:core'] });
    expect(g.countQuery(U)).toBe(3);
    expect(g.countQuery(U, { node_type: 'Person' })).toBe(2);
    expect(g.countQuery(U, { tag: 'role:lead' })).toBe(2);
    expect(g.countQuery(U, { tag: ['team:core', 'team:infra', 'role:lead'] })).toBe(2);
    expect(g.countQuery(U, { tag: 'team:core', node_type: 'decision' })).toBe(0);
    expect(g.countQuery(U, { tag: 'team:core' })).toBe(g.query(U, { tag: 'team:core', limit: 200 }).length);
    expect(g.countQuery(A)).toBe(1);
  });

  it('purgeSince counts the nodes and the edges it deletes, an edge between two old nodes included', () => {
    const g = env.stores.graph;
    const a = g.addNode(U, { content: 'Alice', node_type: 'person' });
    const b = g.addNode(U, { content: 'Bob', node_type: 'person' });
    const c = g.addNode(U, { content: 'Carol', node_type: 'person' });
    g.addEdge(U, { from: a.node_id, to: b.node_id, relation: 'knows' });
    env.clock.advance(1000);
    const since = new Date(env.clock.now()).toISOString();
    // In the window: an edge between two old nodes, and a new node with an edge to an old one.
    g.addEdge(U, { from: b.node_id, to: c.node_id, relation: 'knows' });
    const d = g.addNode(U, { content: 'Dan', node_type: 'person' });
    g.addEdge(U, { from: d.node_id, to: a.node_id, relation: 'works_with' });
    expect(g.purgeSince(U, since)).toEqual({ nodes: 1, edges: 2 });
    expect(g.edges(U).map((e) => `${e.from.content}>${e.to.content}`)).toEqual(['Alice>Bob']);
    expect(g.purgeSince(U, since)).toEqual({ nodes: 0, edges: 0 });
  });

});

describe('GraphStore: folded names and NFC tags', () => {
  it('deduplicates social nodes on the folded form dream uses, and refuses invisible format characters in their names', () => {
    const g = env.stores.graph;
    const ist = g.addNode(U, { content: '\u0130stanbul Ltd', node_type: 'organization' });
    expect(g.addNode(U, { content: 'istanbul ltd', node_type: 'organization' })).toMatchObject({ node_id: ist.node_id, existed: true });
    const str = g.addNode(U, { content: 'Stra\u00dfe AG', node_type: 'organization' });
    expect(g.addNode(U, { content: 'STRASSE AG', node_type: 'organization' })).toMatchObject({ node_id: str.node_id, existed: true });
    const zoe = g.addNode(U, { content: 'Zo\u00eb', node_type: 'person' });
    expect(g.addNode(U, { content: 'ZOE\u0308', node_type: 'person' })).toMatchObject({ node_id: zoe.node_id, existed: true });
    for (const bad of ['Zo\u00eb\u200b', 'Bob\u202e']) {
      expect(() => g.addNode(U, { content: bad, node_type: 'person' }), JSON.stringify(bad)).toThrow(expect.objectContaining({ field: 'content', message: expect.stringMatching(/invisible format/) }));
    }
    // A concept is not a name: not deduplicated, and its text is not checked so.
    expect(g.addNode(U, { content: 'a\u200bb', node_type: 'concept' }).existed).toBe(false);
    expect(g.nodes(U, { node_type: 'person' }).map((n) => n.content)).toEqual(['Zo\u00eb']);
  });

  it('filters by a tag given decomposed, finding the tag stored precomposed', () => {
    const n = env.stores.graph.addNode(U, { content: 'tagged', node_type: 'concept', tags: ['cafe\u0301'] });
    expect(n.tags).toEqual(['caf\u00e9']);
    expect(env.stores.graph.query(U, { tag: 'cafe\u0301' }).map((x) => x.node_id)).toEqual([n.node_id]);
    expect(env.stores.graph.query(U, { tag: 'caf\u00e9' }).map((x) => x.node_id)).toEqual([n.node_id]);
  });

  // node_type was trimmed and lower-cased only: "Café" sent decomposed and precomposed were two
  // types, a filter by one never found the other's nodes, and a de-duplicated node was made twice.
  it('takes node_type in NFC and lower case on add, filter and de-duplication', () => {
    const g = env.stores.graph;
    const n = g.addNode(U, { content: 'Le Procope', node_type: ' Cafe\u0301 ', dedupe: true });
    expect(n.node_type).toBe('caf\u00e9');
    for (const t of ['caf\u00e9', 'CAF\u00c9', 'cafe\u0301', 'CAFE\u0301']) expect(g.query(U, { node_type: t }).map((x) => x.node_id), t).toEqual([n.node_id]);
    expect(g.addNode(U, { content: 'Le Procope', node_type: 'CAF\u00c9', dedupe: true })).toMatchObject({ node_id: n.node_id, existed: true });
    expect(g.countQuery(U, { node_type: 'cafe\u0301' })).toBe(1);
  });
});
