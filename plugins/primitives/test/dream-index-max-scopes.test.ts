import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, start, type TestServer } from './helpers.js';

/** dream with retrieval.index_max_scopes: idle scopes' index parts are evicted and reloaded, same answers. */
let servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers) await s.close();
  servers = [];
});

const notes = ['the ferry to the island leaves at dawn', 'a red kayak on the harbour wall', 'violin lessons on Tuesday by the lake', 'the barn roof needs a new canoe rack'];

describe('retrieval.index_max_scopes', () => {
  it('answers every user as a server keeping every scope does, while it keeps only one scope indexed', async () => {
    const bounded = await start({ clock: new ManualClock(), config: { retrieval: { index_max_scopes: 1 } } });
    const reference = await start({ clock: new ManualClock() });
    servers = [bounded, reference];
    const users = ['ann', 'bob', 'cat', 'dan'];
    const both = (tool: string, args: Record<string, unknown>) => Promise.all(servers.map((s) => s.call(tool, args)));
    for (const [u, user_id] of users.entries()) for (let k = 0; k < 3; k++) await both('think', { text: `${user_id}: ${notes[(u + k) % 4]}`, layer: 'user', user_id });
    for (let round = 0; round < 2; round++) {
      for (const [u, user_id] of users.entries()) {
        // A write to a scope whose part was evicted since its last search.
        await both('think', { text: `${user_id} round ${round}: ${notes[(u + round + 1) % 4]}`, layer: 'user', user_id });
        for (const query of ['ferry island', 'kayak harbour violin', 'canoe']) {
          const [got, want] = await both('dream', { query, layer: 'user', user_id, hits: true });
          expect(got.hits.map((h: { id: string; score: number }) => [h.id, h.score])).toEqual(want.hits.map((h: { id: string; score: number }) => [h.id, h.score]));
          expect(got.summary).toBe(want.summary);
        }
      }
    }
  });

  it('is refused at start when not a whole number of at least 1', async () => {
    await expect(start({ config: { retrieval: { index_max_scopes: 0 } } })).rejects.toThrow(/retrieval\.index_max_scopes/);
  });
});
