import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Storage, systemClock } from '@memory-service/kernel';
import { Stores, storesMigrations, type Hit } from '@memory-service/stores';
import { Seen, semanticBlock, semanticHits } from './recall-blocks.js';
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
