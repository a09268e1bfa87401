import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { A, U, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

describe('ShadowBin', () => {
  it('purgeHolding drops the scope\'s entries of one origin whose content the test accepts, and nothing else', () => {
    const bin = env.stores.shadowBin;
    const put = (scope: typeof U, origin_store: 'l3' | 'l4', origin_id: string, summary: string) => bin.archive(scope, { origin_store, origin_id, content: { summary }, reason: 'r' });
    put(U, 'l3', 'ep_1', 'my home is 12 Elm Street');
    put(U, 'l3', 'ep_2', 'the weather was fine');
    put(U, 'l4', 'home', 'my home is 12 Elm Street');
    put(A, 'l3', 'ep_3', 'my home is 12 Elm Street');
    const holds = (c: unknown) => String((c as { summary: string }).summary).includes('Elm Street');
    expect(bin.purgeHolding(U, 'l3', holds)).toBe(1);
    expect(bin.list(U).map((e) => e.origin_id).sort()).toEqual(['ep_2', 'home']);
    expect(bin.list(A).map((e) => e.origin_id)).toEqual(['ep_3']);
    expect(bin.purgeHolding(U, 'l3', holds)).toBe(0);
  });

  it('archives a fact before deletion and restores it with its entry_id', () => {
    const f = env.stores.facts.upsert(U, { key: 'city', value: 'Lyon', importance: 0.7, source: 'user_explicit' });
    const entry = env.stores.transaction(() => {
      const e = env.stores.shadowBin.archive(U, { origin_store: 'l4', origin_id: 'city', content: f, reason: 'forget exact' });
      env.stores.facts.delete(U, 'city');
      return e;
    });
    expect(env.stores.facts.get(U, 'city')).toBeNull();
    // What archive() answers is the entry as stored.
    expect(entry).toEqual(env.stores.shadowBin.get(entry.id));
    expect(entry).toMatchObject({ origin_store: 'l4', origin_id: 'city', reason: 'forget exact', restored: null, content: JSON.parse(JSON.stringify(f)) });
    expect(env.stores.shadowBin.list(U).map((e) => e.id)).toEqual([entry.id]);
    expect(env.stores.shadowBin.list(A)).toEqual([]);
    const { record } = env.stores.shadowBin.restore(entry.id);
    expect(record).toMatchObject({ key: 'city', value: 'Lyon', entry_id: f.entry_id });
    expect(env.stores.facts.get(U, 'city')?.importance).toBe(0.7);
    expect(env.stores.shadowBin.list(U)).toEqual([]);
    expect(env.stores.shadowBin.list(U, { includeRestored: true })[0].restored).not.toBeNull();
    expect(() => env.stores.shadowBin.restore(entry.id)).toThrow(/already restored/);
  });

  it('restores episodes, graph nodes and wiki pages into their stores', () => {
    const ep = env.stores.episodes.add(U, { summary: 'a walk', tags: ['x'] });
    const node = env.stores.graph.addNode(U, { content: 'Alice', node_type: 'person' });
    const page = env.stores.wiki.save(U, { title: 'Spec', content: 'body', wiki_type: 'project_spec' });
    const e1 = env.stores.shadowBin.archive(U, { origin_store: 'l3', origin_id: ep.id, content: ep, reason: 'r' });
    const e2 = env.stores.shadowBin.archive(U, { origin_store: 'graph', origin_id: node.node_id, content: node, reason: 'r' });
    const e3 = env.stores.shadowBin.archive(U, { origin_store: 'wiki', origin_id: page.title, content: page, reason: 'r' });
    env.stores.episodes.delete(U, ep.id);
    env.stores.graph.deleteNode(U, node.node_id);
    env.stores.wiki.delete(U, 'Spec');
    expect(fs.existsSync(path.join(env.dir, page.path))).toBe(false);
    env.stores.shadowBin.restore(e1.id);
    env.stores.shadowBin.restore(e2.id);
    env.stores.shadowBin.restore(e3.id);
    expect(env.stores.episodes.get(U, ep.id)?.tags).toEqual(['x']);
    expect(env.stores.graph.getNode(U, node.node_id)?.content).toBe('Alice');
    expect(env.stores.wiki.getByTitle(U, 'Spec')?.content).toBe('body');
    expect(fs.existsSync(path.join(env.dir, page.path))).toBe(true);
  });

  it('purges entries for one origin record and validates the origin', () => {
    env.stores.shadowBin.archive(U, { origin_store: 'l4', origin_id: 'k', content: {}, reason: 'r' });
    env.stores.shadowBin.archive(U, { origin_store: 'l4', origin_id: 'k', content: {}, reason: 'r' });
    env.stores.shadowBin.archive(A, { origin_store: 'l4', origin_id: 'k', content: {}, reason: 'r' });
    expect(env.stores.shadowBin.purgeFor(U, 'l4', 'k')).toBe(2);
    expect(env.stores.shadowBin.count(A)).toBe(1);
    expect(() => env.stores.shadowBin.archive(U, { origin_store: 'nope' as never, origin_id: 'k', content: {}, reason: 'r' })).toThrow(
      /origin_store/,
    );
  });

  // Regression guard: forget exact of a thought's fact said again after an earlier forget purged the
  // fact's older copy but kept the copy of the relation node archived with it ("My name is Alice"),
  // so shadow_bin: false left the forgotten text in the Shadow Bin.
  it('purges with a fact\'s older copies the archived copies of the nodes they name', () => {
    const bin = env.stores.shadowBin;
    const archiveFact = (value: string, content: string) => {
      const node = env.stores.graph.addNode(U, { content, node_type: 'relation', tags: ['thought'] });
      const fact = env.stores.facts.upsert(U, { key: 'note:name', value, importance: 0.8, source: 'user_explicit', metadata: { origin: 'think', derived_nodes: [node.node_id] } });
      bin.archive(U, { origin_store: 'l4', origin_id: fact.key, content: fact, reason: 'forget exact' });
      bin.archive(U, { origin_store: 'graph', origin_id: node.node_id, content: node, reason: 'forget exact' });
      env.stores.facts.delete(U, fact.key);
      env.stores.graph.deleteNode(U, node.node_id);
      return node;
    };
    // An earlier, different fact under the key keeps its copy and its node's.
    const earlier = archiveFact('My name is Bob.', 'My name is Bob');
    const older = archiveFact('My name is Alice.', 'My name is Alice');
    const unrelated = env.stores.graph.addNode(U, { content: 'Alice is a friend', node_type: 'relation' });
    bin.archive(U, { origin_store: 'graph', origin_id: unrelated.node_id, content: unrelated, reason: 'r' });
    // The same node id archived in another scope is another record.
    bin.archive(A, { origin_store: 'graph', origin_id: older.node_id, content: older, reason: 'r' });
    const node = env.stores.graph.addNode(U, { content: 'My name is Alice', node_type: 'relation', tags: ['thought'] });
    const fact = env.stores.facts.upsert(U, { key: 'note:name', value: 'My name is Alice.', importance: 0.8, source: 'user_explicit', metadata: { origin: 'think', derived_nodes: [node.node_id] } });
    expect(bin.purgeFactCopies(U, fact)).toBe(2);
    const left = bin.list(U).map((e) => [e.origin_store, e.origin_id]);
    expect(left.sort()).toEqual(
      [
        ['graph', earlier.node_id],
        ['graph', unrelated.node_id],
        ['l4', 'note:name'],
      ].sort(),
    );
    expect(JSON.stringify(bin.list(U))).not.toContain('My name is Alice');
    expect(bin.count(A)).toBe(1);
  });

  it('purges the archived copies of the nodes the fact itself names', () => {
    const bin = env.stores.shadowBin;
    const node = env.stores.graph.addNode(U, { content: 'sky is blue', node_type: 'relation' });
    bin.archive(U, { origin_store: 'graph', origin_id: node.node_id, content: node, reason: 'forget fuzzy' });
    const fact = env.stores.facts.upsert(U, { key: 'sky', value: 'The sky is blue', importance: 0.8, source: 'user_explicit', metadata: { derived_nodes: [node.node_id] } });
    expect(bin.purgeFactCopies(U, { key: fact.key, entry_id: fact.entry_id, value: fact.value })).toBe(0);
    expect(bin.purgeFactCopies(U, fact)).toBe(1);
    expect(bin.count(U)).toBe(0);
  });
});

