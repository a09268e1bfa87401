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

  it('stores the gate\'s importance clamped to 0.05..1.0, and tags the node with the write-gate tags', () => {
    fs.writeFileSync(path.join(env.dir, 'rules.yaml'), '- {when_content_contains: allergy, importance_boost: 0.1, tags: [health]}\n');
    const high = env.stores.rememberer.remember(U, { key: 'a', value: 'peanut allergy', importance: 0.9 }, (i) => i + 5);
    expect(high.fact.importance).toBe(1);
    expect(env.stores.graph.getNode(U, high.node_id!)!.tags).toEqual(['remember', 'health']);
    expect(env.stores.rememberer.remember(U, { key: 'b', value: 'x', importance: 0.9 }, () => -3).fact.importance).toBe(0.05);
    expect(env.stores.rememberer.remember(U, { key: 'c', value: 'y', importance: 0.4 }, () => NaN).fact.importance).toBe(0.4);
  });
});
