import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Config, createHooks, silentLogger, Storage, systemClock } from '@memory-service/kernel';
import { Stores, storesMigrations } from '@memory-service/stores';
import { LifecycleHandlers } from './lifecycle.js';
import { WakeUp, WAKE_UP_QUERY_HITS } from './wake-up.js';

/**
 * wake_up's query section, the session_started inject's Relevant block and post_context_compression's
 * candidates list each memory once: memory_remember stores a fact and a graph node of the same
 * `key: value` text, which filled two of their slots.
 */
const scope = { layer: 'user' as const, user_id: 'default' };

/** Stores on a fresh data dir holding 12 facts about the database, remembered (fact and graph node each); closed and removed after `run`. */
async function withRemembered(run: (stores: Stores) => unknown): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'distinct-hits-'));
  const storage = new Storage(dir);
  try {
    storage.migrate('@memory-service/stores', storesMigrations);
    const stores = new Stores({ db: storage.db, dataDir: dir, clock: systemClock });
    for (let i = 1; i <= 12; i++) {
      // Two phrasings: the short one (3 facts) ranks its fact and its node above the other nine facts.
      const value = i <= 3 ? `Database setting number ${i} for the reporting cluster.` : `The reporting cluster database uses setting ${i}, see the runbook.`;
      stores.rememberer.remember(scope, { key: `db.note${i}`, value });
    }
    await run(stores);
    stores.flush();
  } finally {
    storage.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The remembered facts named by lines of a listing, in order. */
const keysOf = (text: string) => text.split('\n').filter((l) => l.startsWith('- ')).map((l) => /db\.note\d+/.exec(l)?.[0]);
const lifecycle = (stores: Stores) => new LifecycleHandlers(stores, createHooks(), new Config({}), silentLogger());

describe('WakeUp query section', () => {
  it('lists WAKE_UP_QUERY_HITS distinct memories', async () => {
    await withRemembered((stores) => {
      const r = new WakeUp(stores).brief({ ...scope, budget: 8000, query: 'database' });
      const section = r.brief.split(/^## /m).find((s) => s.startsWith('About "database"'))!;
      const keys = keysOf(section);
      expect(keys).toHaveLength(WAKE_UP_QUERY_HITS);
      expect(keys.every(Boolean)).toBe(true);
      expect(new Set(keys).size, keys.join(' ')).toBe(WAKE_UP_QUERY_HITS);
    });
  });
});

describe('LifecycleHandlers retrieval lists', () => {
  it("session_started's Relevant block lists 5 distinct memories", async () => {
    await withRemembered(async (stores) => {
      const r = await lifecycle(stores).sessionStarted({ ...scope, event: 'session_started', payload: { text: 'database', budget: 8000 } });
      const block = r.inject.split(/^## /m).find((s) => s.startsWith('Relevant'))!;
      const keys = keysOf(block);
      expect(keys).toHaveLength(5);
      expect(new Set(keys).size, keys.join(' ')).toBe(5);
    });
  });

  it("post_context_compression's candidates are 10 distinct memories", async () => {
    await withRemembered((stores) => {
      const r = lifecycle(stores).postContextCompression({ ...scope, event: 'post_context_compression', payload: { query: 'database' } });
      const keys = r.candidates.map((c) => /db\.note\d+/.exec(c.excerpt)?.[0]);
      expect(keys).toHaveLength(10);
      expect(new Set(keys).size, keys.join(' ')).toBe(10);
    });
  });
});
