import fs from 'node:fs';
import path from 'node:path';
import { sqliteDriver } from '@memory-service/kernel';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countSql, RECORD_KIND_TABLES, RECORD_KINDS, type RecordCounts } from './record-counts.js';
import { REPLICA_FILE, REPLICA_FRESH_SECONDS } from './replica.js';
import { A, U, U2, makeEnv, recordingLogger, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

/** The count of one kind in one layer. */
const count = (r: RecordCounts, kind: string, layer: string) => r.counts.find((c) => c.kind === kind && c.layer === layer)?.count;

describe('RecordCounter', () => {
  it('counts every kind in both layers over every user_id, 0 where there is none, from the live database without a replica', () => {
    env.stores.facts.upsert(U, { key: 'a', value: 'one' });
    env.stores.facts.upsert(U2, { key: 'b', value: 'two' });
    env.stores.facts.upsert(A, { key: 'c', value: 'three' });
    env.stores.episodes.add(U, { summary: 'ep' });
    const n1 = env.stores.graph.addNode(A, { node_type: 'concept', content: 'x' });
    const n2 = env.stores.graph.addNode(A, { node_type: 'concept', content: 'y' });
    env.stores.graph.addEdge(A, { from: n1.node_id, to: n2.node_id, relation: 'relates_to' });
    env.stores.timeline.add(U2, { type: 'thought', summary: 't' });
    env.stores.shadowBin.archive(U, { origin_store: 'l4', origin_id: 'gone', content: { key: 'gone' }, reason: 'test' });
    const r = env.stores.recordCounts.read();
    expect(r.source).toBe('live');
    expect(r.replica_age_seconds).toBeNull();
    expect(r.counts).toHaveLength(RECORD_KINDS.length * 2);
    expect(count(r, 'facts', 'user')).toBe(2);
    expect(count(r, 'facts', 'agent')).toBe(1);
    expect(count(r, 'episodes', 'user')).toBe(1);
    expect(count(r, 'graph_nodes', 'agent')).toBe(2);
    expect(count(r, 'graph_edges', 'agent')).toBe(1);
    expect(count(r, 'timeline_events', 'user')).toBe(1);
    expect(count(r, 'archive', 'user')).toBe(1);
    expect(count(r, 'wiki_pages', 'user')).toBe(0);
    expect(count(r, 'episodes', 'agent')).toBe(0);
  });

  it('reads a fresh replica (its rows, not the live ones) and the live database once it is older than 300 s', async () => {
    env.stores.facts.upsert(U, { key: 'a', value: 'one' });
    await env.stores.replica.sync(U);
    env.stores.facts.upsert(U, { key: 'b', value: 'two' });
    env.clock.advance(REPLICA_FRESH_SECONDS * 1000);
    const fromReplica = env.stores.recordCounts.read();
    expect(fromReplica).toMatchObject({ source: 'replica', replica_age_seconds: REPLICA_FRESH_SECONDS });
    expect(count(fromReplica, 'facts', 'user')).toBe(1);
    env.clock.advance(1000);
    const live = env.stores.recordCounts.read();
    expect(live).toMatchObject({ source: 'live', replica_age_seconds: REPLICA_FRESH_SECONDS + 1 });
    expect(count(live, 'facts', 'user')).toBe(2);
  });

  it('a fresh replica that cannot be read is left for the live database, with a warning', async () => {
    const logger = recordingLogger();
    env.close();
    env = makeEnv({}, logger);
    env.stores.facts.upsert(U, { key: 'a', value: 'one' });
    await env.stores.replica.sync(U);
    // A stamped replica whose facts table is gone: the status still reads it as fresh.
    const copy = new (sqliteDriver().Database)(path.join(env.dir, REPLICA_FILE));
    copy.exec('DROP TABLE facts');
    copy.close();
    const r = env.stores.recordCounts.read();
    expect(r.source).toBe('live');
    expect(count(r, 'facts', 'user')).toBe(1);
    expect(logger.lines.some((l) => l.level === 'warn' && /replica cannot be read/.test(l.message))).toBe(true);
    expect(fs.existsSync(path.join(env.dir, REPLICA_FILE))).toBe(true);
  });

  it('each count scans an index (the query plan names a covering index, no table scan)', () => {
    for (const kind of RECORD_KINDS) {
      const plan = (env.db.prepare(`EXPLAIN QUERY PLAN ${countSql(kind)}`).all() as { detail: string }[]).map((r) => r.detail).join('; ');
      expect(plan, `${kind} (${RECORD_KIND_TABLES[kind]})`).toMatch(/USING COVERING INDEX/);
    }
  });
});
