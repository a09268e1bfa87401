import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { createTestServer, tempDataDir } from '@memory-service/testing';
import { ManualClock, primitives, start, type TestServer } from './helpers.js';

/** dream with retrieval.index_max_scopes: idle scopes' index parts are evicted and reloaded, same answers. */
let servers: TestServer[] = [];
let dirs: string[] = [];
afterEach(async () => {
  for (const s of servers) await s.close();
  servers = [];
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
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

  it('answers as a server that never stopped after a restart reads a saved index of more scopes than it keeps', async () => {
    const dir = tempDataDir();
    dirs.push(dir);
    const clock = new ManualClock();
    const open = () => createTestServer({ plugins: [primitives], expose: 'primitives', clock, dataDir: dir, config: { retrieval: { index_max_scopes: 2 } } });
    const reference = await start({ clock: new ManualClock() });
    let restarted = await open();
    servers = [restarted, reference];
    const users = ['ann', 'bob', 'cat', 'dan', 'eve', 'fay'];
    const both = (tool: string, args: Record<string, unknown>) => Promise.all([restarted, reference].map((s) => s.call(tool, args)));
    const same = async (user_id: string) => {
      for (const query of ['ferry island', 'kayak harbour violin', 'canoe']) {
        const [got, want] = await both('dream', { query, layer: 'user', user_id, hits: true });
        expect(got.hits.map((h: { id: string; score: number }) => [h.id, h.score])).toEqual(want.hits.map((h: { id: string; score: number }) => [h.id, h.score]));
      }
    };
    for (const [u, user_id] of users.entries()) for (let k = 0; k < 3; k++) await both('think', { text: `${user_id}: ${notes[(u + k) % 4]}`, layer: 'user', user_id });
    // Searched last: fay and eve, the parts the saved index keeps for the next start.
    for (const user_id of users) await same(user_id);
    await restarted.close();
    restarted = await open();
    servers = [restarted, reference];
    // A write to a kept part not decoded yet, and to one the restart evicted, then every user.
    await both('think', { text: 'eve: a second ferry to the island at noon', layer: 'user', user_id: 'eve' });
    await both('think', { text: 'ann: the kayak club meets by the harbour', layer: 'user', user_id: 'ann' });
    for (const user_id of [...users].reverse()) await same(user_id);
  });

  it('is refused at start when not a whole number of at least 1', async () => {
    await expect(start({ config: { retrieval: { index_max_scopes: 0 } } })).rejects.toThrow(/retrieval\.index_max_scopes/);
  });
});
