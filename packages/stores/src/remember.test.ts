import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { makeEnv, A, U, type Env } from './test-helpers.js';
import { REMEMBER_DEDUP_TTL_MS } from './remember.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

describe('Rememberer', () => {
  it('writes a user_explicit fact and a graph node, scrubbing secrets', () => {
    const r = env.stores.rememberer.remember(U, { key: 'deploy', value: 'Deploy with token: abcdef123456 from CI', importance: 0.6 });
    expect(r).toMatchObject({ deduplicated: false, updated: false, redacted: { token: 1 }, redacted_total: 1 });
    expect(r.fact).toMatchObject({ key: 'deploy', value: 'Deploy with token: [REDACTED:token] from CI', importance: 0.6, source: 'user_explicit' });
    expect(r.fact.metadata).toMatchObject({ origin: 'memory_remember', derived_nodes: [r.node_id], redacted: { token: 1 } });
    expect(env.stores.graph.getNode(U, r.node_id!)).toMatchObject({ node_type: 'fact', content: 'deploy: Deploy with token: [REDACTED:token] from CI' });
    expect(JSON.stringify(env.db.prepare('SELECT * FROM facts').all())).not.toContain('abcdef123456');
  });

  it('deduplicates the same key and value within the TTL by the clock, then writes again', () => {
    const rm = env.stores.rememberer;
    const first = rm.remember(U, { key: 'k', value: 'v' });
    env.clock.advance(REMEMBER_DEDUP_TTL_MS - 1000);
    const again = rm.remember(U, { key: 'k', value: 'v' });
    expect(again).toMatchObject({ deduplicated: true, node_id: first.node_id });
    expect(again.fact.updated).toBe(first.fact.updated);
    expect(rm.remember(A, { key: 'k', value: 'v' }).deduplicated).toBe(false);
    env.clock.advance(2000);
    const later = rm.remember(U, { key: 'k', value: 'v' });
    expect(later.deduplicated).toBe(false);
    expect(later.fact.updated > first.fact.updated).toBe(true);
    expect(rm.remember(U, { key: 'k', value: 'w' })).toMatchObject({ deduplicated: false, updated: true });
  });

  // The TTL is a window that ends at now (iso-time recentWindow): a fact last written at a time after
  // now (the clock stepped back, or a future date) was "within the last 30 minutes" until the clock
  // passed that time plus 30 minutes, so every repeat until then wrote nothing.
  it('does not deduplicate against a fact last written after now (clock stepped back), then deduplicates again', () => {
    const rm = env.stores.rememberer;
    const first = rm.remember(U, { key: 'k', value: 'v' });
    env.clock.advance(-60 * 60_000); // an NTP correction: back by an hour
    const after = rm.remember(U, { key: 'k', value: 'v' });
    expect(after.deduplicated).toBe(false);
    expect(after.node_id).toBe(first.node_id);
    expect(after.fact.updated).toBe(new Date(env.clock.now()).toISOString());
    // Written at the corrected now, the next repeat is within the TTL again.
    env.clock.advance(60_000);
    expect(rm.remember(U, { key: 'k', value: 'v' }).deduplicated).toBe(true);
  });

  it('does not deduplicate against a fact dated years ahead', () => {
    const rm = env.stores.rememberer;
    const now = env.clock.t;
    env.clock.t = Date.UTC(2099, 0, 1);
    rm.remember(U, { key: 'k', value: 'v', importance: 0.5 });
    env.clock.t = now;
    const r = rm.remember(U, { key: 'k', value: 'v', importance: 0.9 });
    expect(r).toMatchObject({ deduplicated: false, fact: { importance: 0.9, updated: new Date(now).toISOString() } });
  });

  it('stores the gate\'s importance clamped to 0.05..1.0, and tags the node with the write-gate tags', () => {
    fs.writeFileSync(path.join(env.dir, 'rules.yaml'), '- {when_content_contains: allergy, importance_boost: 0.1, tags: [health]}\n');
    const high = env.stores.rememberer.remember(U, { key: 'a', value: 'peanut allergy', importance: 0.9 }, (i) => i + 5);
    expect(high.fact.importance).toBe(1);
    expect(env.stores.graph.getNode(U, high.node_id!)!.tags).toEqual(['remember', 'health']);
    expect(env.stores.rememberer.remember(U, { key: 'b', value: 'x', importance: 0.9 }, () => -3).fact.importance).toBe(0.05);
    expect(env.stores.rememberer.remember(U, { key: 'c', value: 'y', importance: 0.4 }, () => NaN).fact.importance).toBe(0.4);
  });

  // Regression guard: an update made a second node and named only it, so the old value's node stayed
  // ("home_city: I live in Springfield Oregon", found by dream) and forget exact, going by the
  // fact's derived_nodes, never removed it.
  it('replaces the node of the old value when a key gets a new one', () => {
    const rm = env.stores.rememberer;
    const first = rm.remember(U, { key: 'home_city', value: 'I live in Springfield Oregon' });
    const other = rm.remember(U, { key: 'work_city', value: 'I work in Springfield Oregon' });
    rm.remember(A, { key: 'home_city', value: 'I live in Springfield Oregon' });
    const second = rm.remember(U, { key: 'home_city', value: 'I live in Shelbyville Kentucky' });
    expect(second).toMatchObject({ updated: true, removed_nodes: [first.node_id] });
    expect(second.node_id).not.toBe(first.node_id);
    expect(second.fact.metadata.derived_nodes).toEqual([second.node_id]);
    expect(env.stores.graph.getNode(U, first.node_id!)).toBeNull();
    expect(env.stores.graph.nodes(U).map((n) => n.content).sort()).toEqual([
      'home_city: I live in Shelbyville Kentucky',
      'work_city: I work in Springfield Oregon',
    ]);
    // Another key's node and the other layer's node stay.
    expect(env.stores.graph.getNode(U, other.node_id!)).not.toBeNull();
    expect(env.stores.graph.count(A)).toBe(1);
    expect(env.stores.retrieval.search(U, 'live Springfield Oregon').map((h) => h.text)).not.toContain('home_city: I live in Springfield Oregon');
  });

  it('keeps the node when the new value makes the same one, and names the nodes it did not make', () => {
    const rm = env.stores.rememberer;
    const first = rm.remember(U, { key: 'k', value: 'Blue is my colour' });
    const same = rm.remember(U, { key: 'k', value: 'blue is my colour.' });
    expect(same).toMatchObject({ updated: true, node_id: first.node_id, removed_nodes: [] });
    expect(env.stores.graph.getNode(U, first.node_id!)).not.toBeNull();
    // A fact think wrote names the relation node of its thought: it stays, still named, so forget exact removes it.
    const rel = env.stores.graph.addNode(U, { content: 'my name is Alice', node_type: 'relation', tags: ['thought'] });
    env.stores.facts.upsert(U, { key: 'note:name', value: 'Remember: my name is Alice', importance: 0.8, source: 'user_explicit', metadata: { origin: 'think', derived_nodes: [rel.node_id] } });
    const r = rm.remember(U, { key: 'note:name', value: 'My name is Alice Smith' });
    expect(r.removed_nodes).toEqual([]);
    expect(r.fact.metadata.derived_nodes).toEqual([r.node_id, rel.node_id]);
    expect(env.stores.graph.getNode(U, rel.node_id)).not.toBeNull();
    // The next update replaces remember's own node and still names the thought's.
    const again = rm.remember(U, { key: 'note:name', value: 'My name is Alice Jones' });
    expect(again.removed_nodes).toEqual([r.node_id]);
    expect(again.fact.metadata.derived_nodes).toEqual([again.node_id, rel.node_id]);
  });
});

describe('Rememberer: free text in the value', () => {
  it('stores a value holding a soft hyphen or a zero-width space: its graph node is de-duplicated but is not a name', () => {
    const r = env.stores.rememberer.remember(U, { key: 'word', value: 'hyphen\u00adation and zero\u200bwidth', importance: 0.6 });
    expect(r.fact.value).toBe('hyphen\u00adation and zero\u200bwidth');
    expect(env.stores.graph.getNode(U, r.node_id!)).toMatchObject({ node_type: 'fact' });
  });
});
