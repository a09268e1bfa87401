import { afterEach, describe, expect, it } from 'vitest';
import { makeEnv, openDb, type Env } from '../test-helpers.js';
import { Stores } from '../stores.js';
import type { Scope } from '../types.js';
import type { RetrievalIndex } from './index-sync.js';

let env: Env;
afterEach(() => env.close());

/** The l3 index of a Stores (white-box: how many scope parts it keeps). */
const l3 = (s: Stores) => ((s.retrieval as unknown as { index: RetrievalIndex }).index as unknown as { built: Map<string, { index: { residentParts: number } }> }).built.get('l3')!.index;

const scopes: Scope[] = ['ann', 'bob', 'cat', 'dan', 'eve'].flatMap((u) => [
  { layer: 'user', user_id: u },
  { layer: 'agent', user_id: u },
]);

describe('retrieval index with a bound on resident scopes (retrieval.index_max_scopes)', () => {
  it('answers every scope as an unbounded index does, while writes reach evicted scopes, from this process and another', () => {
    env = makeEnv({ indexMaxScopes: 2 });
    const s = env.stores;
    // The reference: a second connection whose Stores keeps every scope.
    const refDb = openDb(`${env.dir}/memory.db`);
    const ref = new Stores({ db: refDb, dataDir: `${env.dir}/ref`, clock: env.clock, config: {} });
    const other = env.second().stores;
    const words = ['kayak', 'harbour', 'violin', 'ferry', 'sunrise', 'barn', 'lake', 'canoe'];
    const say = (i: number) => `${words[i % 8]} ${words[(i * 3) % 8]} near the ${words[(i * 5) % 8]} ${i}`;
    try {
      let i = 0;
      for (const sc of scopes) for (let k = 0; k < 4; k++) s.episodes.add(sc, { summary: say(i++) });
      for (let round = 0; round < 3; round++) {
        for (const [n, sc] of scopes.entries()) {
          // Writes to scopes evicted by now: this process, and another connection.
          const eps = s.episodes.list(sc);
          if (n % 3 === 0) s.episodes.delete(sc, eps[0].id);
          if (n % 3 === 1) other.episodes.add(sc, { summary: say(i++) });
          if (n % 3 === 2) env.db.prepare('UPDATE episodes SET summary = ? WHERE id = ?').run(say(i++), Number(eps[0].id.slice(3)));
          s.facts.upsert(sc, { key: `k${round}`, value: say(i++), importance: 0.5 });
        }
        for (const sc of scopes) {
          for (const q of ['kayak harbour', 'violin', 'barn lake canoe']) {
            expect(s.retrieval.search(sc, q)).toEqual(ref.retrieval.search(sc, q));
          }
          expect(l3(s).residentParts).toBeLessThanOrEqual(2);
        }
      }
      // Inside a transaction that wrote to an evicted scope: its own write is found.
      s.transaction(() => {
        s.episodes.add(scopes[0], { summary: 'a zeppelin over the harbour' });
        expect(s.retrieval.search(scopes[0], 'zeppelin').map((h) => h.text)).toEqual(['a zeppelin over the harbour']);
      });
      expect(s.retrieval.search(scopes[0], 'zeppelin harbour')).toEqual(ref.retrieval.search(scopes[0], 'zeppelin harbour'));
      // Saved with evicted parts, read by the next start, which answers the same.
      s.retrieval.warm();
      s.retrieval.persist();
      const next = env.second().stores;
      for (const sc of scopes) expect(next.retrieval.search(sc, 'kayak violin')).toEqual(ref.retrieval.search(sc, 'kayak violin'));
    } finally {
      refDb.close();
    }
  });
});
