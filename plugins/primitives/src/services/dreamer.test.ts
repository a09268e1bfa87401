import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { Storage, systemClock } from '@memory-service/kernel';
import { Stores, storesMigrations, type Hit } from '@memory-service/stores';
import { Dreamer } from './dreamer.js';

const scope = { layer: 'user' as const, user_id: 'default' };

/** Stores on a fresh data dir holding one episode about the ferry, closed and removed after `run`. */
async function withFerryStores(run: (stores: Stores) => unknown): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dreamer-'));
  const storage = new Storage(dir);
  try {
    storage.migrate('@memory-service/stores', storesMigrations);
    const stores = new Stores({ db: storage.db, dataDir: dir, clock: systemClock });
    stores.episodes.add(scope, { summary: 'The ferry to the island leaves at eight' });
    await run(stores);
  } finally {
    storage.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('Dreamer bookkeeping', () => {
  it("keeps none of a search's hits alive while the recall waits to be written", async () => {
    await withFerryStores(async (stores) => {
      const search = stores.retrieval.search.bind(stores.retrieval);
      let found: WeakRef<Hit> | undefined;
      stores.retrieval.search = (...args) => {
        const hits = search(...args);
        found = new WeakRef(hits[0]);
        return hits;
      };
      const result = new Dreamer(stores, 2000).dream({ ...scope, query: 'ferry island', limit: 5, intent: 'balanced' });
      expect(result.result_count).toBe(1);
      // The access count and the recall_events row are still queued (written within DEFERRED_WRITE_MS)...
      expect(stores.pendingAccessRows).toBe(1);
      // (read from the table itself: RecallEventStore's reads write the queue first)
      expect(stores.ctx.db.prepare('SELECT COUNT(*) FROM recall_events').pluck(true).get()).toBe(0);
      // ...and what they hold is the row, not the hit with its text: the hit can be collected now.
      v8.setFlagsFromString('--expose-gc');
      const gc = vm.runInNewContext('gc') as () => void;
      await new Promise((resolve) => setImmediate(resolve));
      gc();
      expect(found?.deref()).toBeUndefined();
      stores.flush();
      expect(stores.recallEvents.recent(scope)).toMatchObject([{ query: 'ferry island', intent: 'balanced', result_count: 1 }]);
    });
  });
});

describe('Dreamer hit list', () => {
  it('lists the hits unasked when the recent events leave no room for a hit section, and not when one fits', async () => {
    await withFerryStores((stores) => {
      const event = (i: number) => ({ id: `evt_${i}`, type: 'thought', summary: `A long event ${i} `.repeat(12), created: '2026-01-01T00:00:00.000Z' });
      stores.timeline.latest = () => [1, 2, 3, 4, 5].map(event) as ReturnType<typeof stores.timeline.latest>;
      const input = { ...scope, query: 'ferry island', limit: 5, intent: 'recent' as const };
      const tight = new Dreamer(stores, 60).dream(input);
      expect(tight).toMatchObject({ truncated: true, result_count: 1 });
      expect(tight.summary).not.toContain('## [l3]');
      expect(tight.hits?.map((h) => h.source)).toEqual(['l3']);
      const roomy = new Dreamer(stores, 4000).dream(input);
      expect(roomy.summary).toContain('## [l3] ep_');
      expect(roomy).not.toHaveProperty('hits');
      stores.flush();
    });
  });
});

describe('Dreamer limit', () => {
  it('answers limit distinct hits when collapsing drops more than the extra fifth retrieval was asked for', async () => {
    await withFerryStores((stores) => {
      // memory_remember's pairs: each fact and a graph node of the same `key: value` text.
      for (let i = 1; i <= 12; i++) {
        const value = i % 2 ? `Database setting number ${i} for the reporting cluster.` : `The reporting cluster database uses setting ${i}, see the runbook.`;
        stores.rememberer.remember(scope, { key: `db.note${i}`, value });
      }
      const dream = (limit: number) => new Dreamer(stores, 4000).dream({ ...scope, query: 'database', limit, intent: 'balanced', hits: true });
      for (const limit of [5, 10, 12]) {
        const r = dream(limit);
        expect(r.result_count, `limit ${limit}`).toBe(limit);
        const keys = r.summary.split(/^## /m).filter(Boolean).map((sec) => /db\.note\d+/.exec(sec.slice(sec.indexOf('\n')))?.[0]);
        expect(new Set(keys).size, `limit ${limit}`).toBe(limit);
      }
      expect(dream(30).result_count).toBe(12);
      stores.flush();
    });
  });
});
