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

let clock: ManualClock;
const start = () => {
  clock = new ManualClock();
  return createTestServer({ plugins: [primitives, write, insight, context], expose: 'all', clock });
};

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

/**
 * 12 facts that all mention "database", remembered through the tool a minute apart: the first 3 said
 * shortly (their facts and nodes rank first), the others at more length (their nodes rank above their
 * facts, the newest first), so a search's first hits and the day's newest facts meet a fact's node.
 */
async function rememberMixedFacts(): Promise<void> {
  for (let i = 1; i <= 12; i++) {
    const value = i <= 3 ? `Database setting number ${i} for the reporting cluster.` : `The reporting cluster database uses setting ${i}, see the runbook.`;
    await s.call('memory_remember', { key: `db.note${i}`, value, layer: 'user' });
    clock.advance(60_000);
  }
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

/** The remembered facts named by the `- ` lines of a Markdown text, in order. */
const keysIn = (text: string) => text.split('\n').filter((l) => l.startsWith('- ')).map(keyOf);

describe('distinct hits in the other lists', () => {
  it("wake_up's query section shows 5 distinct memories", async () => {
    s = await start();
    await rememberMixedFacts();
    const r = await s.call('wake_up', { query: 'database', layer: 'user', budget: 8000 });
    const section = r.brief.split(/^## /m).find((sec: string) => sec.startsWith('About "database"'));
    const keys = keysIn(section);
    expect(keys).toHaveLength(5);
    expect(new Set(keys).size, keys.join(' ')).toBe(5);
  });

  it("the session_started inject's Relevant block (memory_hook) shows 5 distinct memories", async () => {
    s = await start();
    await rememberMixedFacts();
    const r = await s.call('memory_hook', { event: 'session_started', payload: { text: 'database', budget: 8000 }, layer: 'user' });
    const inject: string = r.results[primitives.name].inject;
    const keys = keysIn(inject.split(/^## /m).find((sec) => sec.startsWith('Relevant'))!);
    expect(keys).toHaveLength(5);
    expect(new Set(keys).size, keys.join(' ')).toBe(5);
  });

  it('memory_recall shows each memory once and fills its limit when episodes repeat the facts', async () => {
    s = await start();
    await rememberMixedFacts();
    // The same texts as episodes, of little importance: each ranks below the fact that holds it whole.
    for (let i = 1; i <= 12; i++) {
      const value = i <= 3 ? `Database setting number ${i} for the reporting cluster.` : `The reporting cluster database uses setting ${i}, see the runbook.`;
      await s.call('memory_episode_save', { summary: `db.note${i}: ${value}`, importance: 0.05, layer: 'user' });
    }
    for (const limit of [5, 10, 12]) {
      const r = await s.call('memory_recall', { query: 'database', limit, layer: 'user' });
      const keys = r.hits.map((h: any) => keyOf(h.text));
      expect(keys, `limit ${limit}`).toHaveLength(limit);
      expect(new Set(keys).size, `limit ${limit}: ${keys.join(' ')}`).toBe(limit);
    }
  });

  it('memory_recall_protocol shows no memory twice across its blocks (the day block leaves out a fact whose node was shown)', async () => {
    s = await start();
    await rememberMixedFacts();
    const r = await s.call('memory_recall_protocol', { query: 'database', layer: 'user', budget: 8000 });
    const keys = keysIn(r.text);
    expect(keys.every(Boolean)).toBe(true);
    expect(new Set(keys).size, keys.join(' ')).toBe(keys.length);
    const semantic = r.blocks.find((b: any) => b.kind === 'semantic');
    expect(semantic.items).toHaveLength(10);
    // The day block keeps its counts though it lists fewer of its newest facts.
    expect(r.blocks.find((b: any) => b.kind === 'day').text).toMatch(/^12 facts, 0 episodes/);
  });
});
