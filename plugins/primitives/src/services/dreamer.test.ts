import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { Storage, systemClock } from '@memory-service/kernel';
import { Stores, storesMigrations, type Hit } from '@memory-service/stores';
import { collapseRedundant, Dreamer } from './dreamer.js';

/** collapseRedundant: a hit whose whole text stands inside a better-ranked hit is dropped. */
const explain = { bm25: 0, importance: 0, recency: 0, access: 0, fused: 0, signals: { bm25_raw: 0, bm25: 0, importance: 0, recency: 0, access: 0 } };
const hit = (id: string, text: string, source: Hit['source'] = 'l3'): Hit => ({ source, id, score: 1, text, created: '2026-01-01T00:00:00.000Z', explain });
const ids = (hits: Hit[]) => hits.map((h) => h.id);

describe('collapseRedundant', () => {
  it('drops a later hit contained in an earlier one', () => {
    const out = collapseRedundant([hit('ep_1', 'Postgres is related to the event store, we said'), hit('node_1', 'Postgres is related to the event store', 'graph')]);
    expect(ids(out)).toEqual(['ep_1']);
  });

  it('keeps a later hit that contains an earlier one (only the better-ranked wins)', () => {
    const out = collapseRedundant([hit('node_1', 'Postgres is related to the event store', 'graph'), hit('ep_1', 'Postgres is related to the event store, we said')]);
    expect(ids(out)).toEqual(['node_1', 'ep_1']);
  });

  it('compares case- and whitespace-insensitively', () => {
    const out = collapseRedundant([hit('ep_1', 'The  Ferry leaves\nat eight'), hit('ep_2', 'the ferry LEAVES at eight')]);
    expect(ids(out)).toEqual(['ep_1']);
    // A lone tab or line break counts as a space too, either side, and so does trailing white space.
    expect(ids(collapseRedundant([hit('ep_1', 'the ferry leaves at eight'), hit('ep_2', 'ferry\tleaves at ')]))).toEqual(['ep_1']);
    expect(ids(collapseRedundant([hit('ep_1', 'the\nferry leaves'), hit('ep_2', 'the ferry')]))).toEqual(['ep_1']);
  });

  it('compares in NFC: a decomposed copy of a memory stands in its precomposed copy, and the reverse', () => {
    expect(ids(collapseRedundant([hit('ep_1', 'Meet at the Caf\u00e9 Z\u00fcrich at noon'), hit('ep_2', 'cafe\u0301 zu\u0308rich at noon')]))).toEqual(['ep_1']);
    expect(ids(collapseRedundant([hit('ep_1', 'Cafe\u0301 Zu\u0308rich at noon'), hit('ep_2', 'CAF\u00c9 Z\u00dcRICH AT NOON')]))).toEqual(['ep_1']);
    // Only the same text: an accent is still a letter of its own ("cafe" is another word than "café").
    expect(ids(collapseRedundant([hit('ep_1', 'Caf\u00e9 Z\u00fcrich'), hit('ep_2', 'Cafe Zurich')]))).toEqual(['ep_1', 'ep_2']);
  });

  it('keeps distinct hits in their order', () => {
    const out = collapseRedundant([hit('a', 'alpha'), hit('b', 'beta'), hit('c', 'gamma'), hit('d', 'alphabet')]);
    expect(ids(out)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('keeps at most limit hits, counting only those it keeps', () => {
    const hits = [hit('a', 'the ferry to the island'), hit('b', 'ferry to the island'), hit('c', 'weather report'), hit('d', 'tide tables')];
    expect(ids(collapseRedundant(hits, 2))).toEqual(['a', 'c']);
    expect(ids(collapseRedundant(hits, 1))).toEqual(['a']);
    expect(ids(collapseRedundant(hits))).toEqual(['a', 'c', 'd']);
  });

  it('checks against every kept hit, not only the previous one', () => {
    const out = collapseRedundant([hit('a', 'the ferry to the island'), hit('b', 'weather report'), hit('c', 'ferry to the island')]);
    expect(ids(out)).toEqual(['a', 'b']);
  });

  it('drops a hit only when its text stands inside as whole words: another memory inside a word is kept', () => {
    const kept = (a: string, b: string) => ids(collapseRedundant([hit('a', a), hit('b', b)]));
    expect(kept('My daughter likes the caterpillar', 'My daughter likes the cat')).toEqual(['a', 'b']);
    expect(kept('The meeting room code is 4512', 'The meeting room code is 45')).toEqual(['a', 'b']);
    expect(kept('She said fortune was kind', 'tune was kind')).toEqual(['a', 'b']);
    expect(kept('Über café', 'ber caf')).toEqual(['a', 'b']);
    // A later occurrence at a word boundary still counts; punctuation is no part of a word.
    expect(kept('the caterpillar and the cat', 'the cat')).toEqual(['a']);
    expect(kept('"the cat", she said', 'the cat')).toEqual(['a']);
    expect(kept('we said: hi.', 'hi.')).toEqual(['a']);
    expect(kept('🐱cat naps', 'cat naps')).toEqual(['a']);
  });

  it('never drops an empty-text hit and handles an empty list', () => {
    expect(ids(collapseRedundant([hit('a', 'anything'), hit('b', '   ')]))).toEqual(['a', 'b']);
    expect(collapseRedundant([])).toEqual([]);
  });
});

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
