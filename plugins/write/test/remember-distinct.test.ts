import { afterEach, describe, expect, it } from 'vitest';
import context from '@memory-service/plugin-context';
import insight from '@memory-service/plugin-insight';
import { createTestServer, ManualClock, type TestServer } from '@memory-service/testing';
import { primitives, write } from './helpers.js';

/**
 * memory_remember stores each fact twice, as the fact and as a graph node of the same `key: value`
 * text: the reads that answer distinct memories (dream, memory_search, memory_recall_protocol's
 * semantic axis) must still fill their limit and show each memory once.
 */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const start = () => createTestServer({ plugins: [primitives, write, insight, context], expose: 'all', clock: new ManualClock() });

/** 12 facts that all mention "database", remembered through the tool; their entry ids in order. */
async function rememberDatabaseFacts(): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 1; i <= 12; i++) {
    const value = i % 2 ? `Database setting number ${i} for the reporting cluster.` : `The reporting cluster database uses setting ${i}, see the runbook.`;
    const r = await s.call('memory_remember', { key: `db.note${i}`, value, layer: 'user' });
    expect(r.node_id).toBeTruthy();
    ids.push(r.entry_id);
  }
  return ids;
}

/** The remembered fact a hit shows (a fact or its node: the same `key: value` text). */
const keyOf = (text: string) => /db\.note\d+/.exec(text)?.[0];

describe('distinct hits over remembered facts', () => {
  it('dream with limit 10 answers 10 distinct memories when 12 match', async () => {
    s = await start();
    await rememberDatabaseFacts();
    for (const limit of [5, 10, 12]) {
      const r = await s.call('dream', { query: 'database', limit, hits: true, layer: 'user' });
      expect(r.result_count, `limit ${limit}`).toBe(limit);
      expect(r.hits).toHaveLength(limit);
      // Each hit's section: a heading, then the memory's text.
      const keys = r.summary.split(/^## /m).filter(Boolean).map((sec: string) => keyOf(sec.slice(sec.indexOf('\n'))));
      expect(keys).toHaveLength(limit);
      expect(new Set(keys).size, `limit ${limit}: ${keys.join(' ')}`).toBe(limit);
    }
    // More than match: all 12, once each.
    expect((await s.call('dream', { query: 'database', limit: 20, layer: 'user' })).result_count).toBe(12);
  });

  it('memory_search shows no memory twice and fills its limit', async () => {
    s = await start();
    await rememberDatabaseFacts();
    for (const limit of [4, 10, 50]) {
      const r = await s.call('memory_search', { query: 'database', limit, layer: 'user' });
      const keys = r.hits.map((h: any) => keyOf(h.text));
      expect(keys.every(Boolean)).toBe(true);
      expect(new Set(keys).size, `limit ${limit}: ${keys.join(' ')}`).toBe(keys.length);
      expect(r.count).toBe(Math.min(limit, 12));
    }
  });

  it("memory_recall_protocol's semantic block shows each memory once, a fact's key once", async () => {
    s = await start();
    await rememberDatabaseFacts();
    const r = await s.call('memory_recall_protocol', { query: 'database', layer: 'user', budget: 8000 });
    const semantic = r.blocks.find((b: any) => b.kind === 'semantic');
    expect(semantic.items).toHaveLength(10);
    const lines = semantic.text.split('\n').filter((l: string) => l.startsWith('- ['));
    expect(lines).toHaveLength(10);
    const keys = lines.map(keyOf);
    expect(new Set(keys).size, keys.join(' ')).toBe(10);
    expect(semantic.text).not.toMatch(/(db\.note\d+): \1:/);
    // A fact's line reads `key: value`, a node's `fact: key: value` (its type, then its text).
    expect(semantic.text).toMatch(/\[l4 fact_\d+\] db\.note\d+: /);
  });
});
