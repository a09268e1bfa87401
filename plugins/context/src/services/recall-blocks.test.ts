import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Storage, systemClock } from '@memory-service/kernel';
import { Stores, storesMigrations, type Hit } from '@memory-service/stores';
import { dayBlock, Seen, semanticBlock, semanticHits } from './recall-blocks.js';
import { SmartContextBuilder } from './smart-context.js';

const scope = { layer: 'user' as const, user_id: 'default' };
const explain = { bm25: 0, importance: 0, recency: 0, access: 0, fused: 0, signals: { bm25_raw: 0, bm25: 0, importance: 0, recency: 0, access: 0 } };
const hit = (source: Hit['source'], id: string, text: string, title?: string): Hit => ({ source, id, score: 1, text, title, created: '2026-01-01T00:00:00.000Z', explain });

/** Stores on a fresh data dir holding 12 facts about the database, remembered (fact and graph node each); closed and removed after `run`. */
async function withRemembered(run: (stores: Stores) => unknown): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-blocks-'));
  const storage = new Storage(dir);
  try {
    storage.migrate('@memory-service/stores', storesMigrations);
    const stores = new Stores({ db: storage.db, dataDir: dir, clock: systemClock });
    for (let i = 1; i <= 12; i++) {
      // Two phrasings: the short one ranks its fact and its node above the other six facts.
      const value = i % 2 ? `Database setting number ${i} for the reporting cluster.` : `The reporting cluster database uses setting ${i}, see the runbook.`;
      stores.rememberer.remember(scope, { key: `db.note${i}`, value });
    }
    await run(stores);
    stores.flush();
  } finally {
    storage.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const keyOf = (text: string) => /db\.note\d+/.exec(text)?.[0];

describe('semanticBlock', () => {
  it("writes a hit's title before its text only where the text does not already start with it", () => {
    const b = semanticBlock(
      [
        hit('l4', 'fact_1', 'db.cache: Redis caches the sessions.', 'db.cache'),
        hit('graph', 'node_1', 'db.cache: Redis caches the sessions.', 'fact'),
        hit('wiki', 'wiki_1', 'How the cache is warmed.', 'Cache'),
        hit('l3', 'ep_1', 'Cache: warmed at eight.'),
      ],
      new Seen(),
    );
    expect(b.items.map((i) => i.text)).toEqual(['db.cache: Redis caches the sessions.', 'fact: db.cache: Redis caches the sessions.', 'Cache: How the cache is warmed.', 'Cache: warmed at eight.']);
  });
});

describe('semanticHits', () => {
  it('answers SEMANTIC_LIMIT distinct memories when a fact and its node would fill two slots each', async () => {
    await withRemembered((stores) => {
      const hits = semanticHits(stores, scope, 'database');
      expect(hits).toHaveLength(10);
      expect(new Set(hits.map((h) => keyOf(h.text))).size).toBe(10);
    });
  });
});

describe('SmartContextBuilder relevant', () => {
  it("lists distinct memories, a fact's key once", async () => {
    await withRemembered((stores) => {
      const relevant = new SmartContextBuilder(stores, systemClock).items(scope, 'database').relevant;
      expect(relevant).toHaveLength(12);
      expect(new Set(relevant.map(keyOf)).size).toBe(12);
      for (const line of relevant) expect(line).not.toMatch(/(db\.note\d+): \1:/);
    });
  });
});

describe('Seen', () => {
  const item = (source: string, id: string, text: string) => ({ source, id, text });
  it('leaves out a record shown before, and a memory whose whole text stands in one shown before', () => {
    const seen = new Seen();
    expect(seen.keep([item('graph', 'node_1', 'fact: db.cache: Redis caches the sessions.'), item('l3', 'ep_1', 'The ferry leaves at eight, we said')])).toHaveLength(2);
    const later = seen.keep([
      item('graph', 'node_1', 'anything'),
      item('l4', 'fact_1', 'DB.cache:  Redis caches the sessions.'),
      item('l3', 'ep_2', 'the ferry leaves at eight'),
      item('l4', 'fact_2', 'db.cache: Redis caches the sessions and the carts.'),
      item('l3', 'ep_3', 'ferry leaves at eighty'),
    ]);
    expect(later.map((i) => i.id)).toEqual(['fact_2', 'ep_3']);
    // Kept items count too: a later copy of one is left out.
    expect(seen.keep([item('l3', 'ep_4', 'redis caches the sessions and the carts')])).toEqual([]);
  });

  it('compares by text only records whose text is a whole memory (episodes, facts, nodes)', () => {
    const seen = new Seen();
    seen.keep([item('session', 'sess_1', 'closed 2026-01-01: Deploy | topics: deploy'), item('l4', 'fact_1', 'deploy: blue green')]);
    // A wiki page's day line is its title only, a timeline event is not a copy of a memory: kept. An
    // episode whose whole text stands in the fact is left out, as dream leaves it out.
    const kept = seen.keep([item('wiki', 'wiki_1', 'Deploy'), item('timeline', 'evt_1', 'deploy: blue green'), item('l3', 'ep_1', 'Deploy')]);
    expect(kept.map((i) => i.id)).toEqual(['wiki_1', 'evt_1']);
  });
});

describe('dayBlock after semanticBlock', () => {
  it("leaves out the day's newest facts whose graph nodes the semantic block showed, keeping the counts", async () => {
    await withRemembered((stores) => {
      const seen = new Seen();
      const nodes = stores.graph.nodes(scope).filter((n) => /db\.note1[012]:/.test(n.content));
      expect(nodes).toHaveLength(3);
      semanticBlock(nodes.map((n) => hit('graph', n.node_id, n.content, 'fact')), seen);
      const day = dayBlock(stores, scope, seen);
      expect(day.items).toEqual([]);
      expect(day.lead).toMatch(/^12 facts, 0 episodes/);
    });
  });
});
