import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AccessLog } from './access-log.js';
import { ACCESS_FLUSH_ROWS, DEFERRED_WRITE_MS } from './stores.js';
import { U, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => {
  vi.restoreAllMocks();
  env.close();
});

const counts = (e: Env, ids: string[]) => ids.map((id) => e.stores.episodes.get(U, id)?.access_count);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('AccessLog', () => {
  it('coalesces accesses per row, keeps the latest time and skips sources and ids that keep no count', () => {
    const log = new AccessLog();
    log.add(
      [
        { source: 'l3', id: 'ep_7' },
        { source: 'l3', id: 'ep_7' },
        { source: 'l4', id: 'fact_2' },
        { source: 'graph', id: 'node_3' },
        { source: 'wiki', id: 'wiki_1' },
        { source: 'l3', id: 'fact_9' },
        { source: 'l3', id: 'ep_x' },
      ],
      '2026-01-01T00:00:01.000Z',
    );
    log.add([{ source: 'l3', id: 'ep_7' }], '2026-01-01T00:00:00.000Z');
    expect(log.rows).toBe(3);
    const a = env.stores.episodes.add(U, { summary: 'one' });
    const taken = log.take(env.stores.ctx);
    expect(log.rows).toBe(0);
    expect(log.take(env.stores.ctx)).toBeNull();
    taken!.putBack();
    expect(log.rows).toBe(3);
    log.add([{ source: 'l3', id: a.id }], '2026-01-01T00:00:02.000Z');
    const again = log.take(env.stores.ctx)!;
    env.stores.transaction(() => again.write());
    const got = env.stores.episodes.get(U, a.id);
    expect(got?.access_count).toBe(1);
    expect(got?.last_access).toBe('2026-01-01T00:00:02.000Z');
    // Rows that do not exist (ep_7 here) are skipped by their UPDATE, not created.
    expect(env.db.prepare('SELECT COUNT(*) AS n FROM episodes').get()).toEqual({ n: 1 });
  });
});

describe('Stores.noteAccess', () => {
  it('writes coalesced counts with the deferred batch: after DEFERRED_WRITE_MS or at flush', async () => {
    const [a, b] = ['one', 'two'].map((summary) => env.stores.episodes.add(U, { summary }));
    env.stores.noteAccess([{ source: 'l3', id: a.id }, { source: 'l3', id: b.id }]);
    env.clock.advance(5000);
    env.stores.noteAccess([{ source: 'l3', id: a.id }]);
    expect(env.stores.pendingAccessRows).toBe(2);
    expect(counts(env, [a.id, b.id])).toEqual([0, 0]);
    await sleep(DEFERRED_WRITE_MS + 50);
    expect(counts(env, [a.id, b.id])).toEqual([2, 1]);
    expect(env.stores.episodes.get(U, a.id)?.last_access).toBe(new Date(env.clock.now()).toISOString());
    env.stores.noteAccess([{ source: 'l3', id: b.id }]);
    env.stores.flush();
    expect(counts(env, [a.id, b.id])).toEqual([2, 2]);
    expect(env.stores.pendingAccessRows).toBe(0);
  });

  it(`writes at once, after the current turn, when ${ACCESS_FLUSH_ROWS} rows are pending`, async () => {
    const made = env.stores.transaction(() => Array.from({ length: ACCESS_FLUSH_ROWS }, (_, i) => env.stores.episodes.add(U, { summary: `e${i}` })));
    env.stores.noteAccess(made.slice(0, -1).map((e) => ({ source: 'l3', id: e.id })));
    await sleep(20);
    expect(env.stores.pendingAccessRows).toBe(ACCESS_FLUSH_ROWS - 1);
    env.stores.noteAccess([{ source: 'l3', id: made.at(-1)!.id }]);
    // Not inside the call that reached the bound: the answer of that turn goes first.
    expect(env.stores.pendingAccessRows).toBe(ACCESS_FLUSH_ROWS);
    await sleep(20);
    expect(env.stores.pendingAccessRows).toBe(0);
    expect(counts(env, [made[0].id, made.at(-1)!.id])).toEqual([1, 1]);
  });

  it("keeps the counts when another process holds the write lock, and writes them once it is free", async () => {
    const a = env.stores.episodes.add(U, { summary: 'one' });
    const other = env.second();
    other.db.exec('BEGIN IMMEDIATE');
    env.stores.noteAccess([{ source: 'l3', id: a.id }]);
    await sleep(DEFERRED_WRITE_MS + 50);
    expect(env.stores.pendingAccessRows).toBe(1);
    env.stores.noteAccess([{ source: 'l3', id: a.id }]);
    other.db.exec('COMMIT');
    await sleep(DEFERRED_WRITE_MS + 50);
    expect(env.stores.pendingAccessRows).toBe(0);
    expect(counts(env, [a.id])).toEqual([2]);
  });

  it(`while another process holds the write lock, ${ACCESS_FLUSH_ROWS} pending rows wait for the delayed retry instead of a try per recall`, async () => {
    const made = env.stores.transaction(() => Array.from({ length: ACCESS_FLUSH_ROWS }, (_, i) => env.stores.episodes.add(U, { summary: `e${i}` })));
    const hits = made.map((e) => ({ source: 'l3', id: e.id }));
    const take = vi.spyOn(AccessLog.prototype, 'take');
    const other = env.second();
    other.db.exec('BEGIN IMMEDIATE');
    env.stores.noteAccess(hits);
    await sleep(20);
    expect(take).toHaveBeenCalledTimes(1);
    expect(env.stores.pendingAccessRows).toBe(ACCESS_FLUSH_ROWS);
    for (let i = 0; i < 3; i++) {
      env.stores.noteAccess(hits.slice(0, 1));
      await sleep(20);
    }
    expect(take).toHaveBeenCalledTimes(1);
    other.db.exec('COMMIT');
    await sleep(DEFERRED_WRITE_MS + 50);
    expect(take).toHaveBeenCalledTimes(2);
    expect(env.stores.pendingAccessRows).toBe(0);
    expect(counts(env, [made[0].id, made[1].id])).toEqual([4, 1]);
    // Once a batch is written, the bound brings the write forward again.
    env.stores.noteAccess(hits);
    await sleep(20);
    expect(take).toHaveBeenCalledTimes(3);
    expect(env.stores.pendingAccessRows).toBe(0);
  });
});

describe('pending accesses in the ranking', () => {
  it('pending(): the count not written yet of one row, 0 for others and for sources that keep none', () => {
    const log = new AccessLog();
    log.add([{ source: 'l3', id: 'ep_7' }, { source: 'l3', id: 'ep_7' }, { source: 'l4', id: 'fact_2' }], '2026-01-01T00:00:01.000Z');
    expect([log.pending('l3', 7), log.pending('l4', 2), log.pending('l3', 2), log.pending('wiki', 7)]).toEqual([2, 1, 0, 0]);
  });

  it('a search ranks the same before and after the batch of accesses is written', () => {
    // Two episodes alike for the query: only their access counts can order them.
    const a = env.stores.episodes.add(U, { summary: 'the ferry to the island leaves at noon' });
    const b = env.stores.episodes.add(U, { summary: 'the ferry to the island leaves at nine' });
    const order = () => env.stores.retrieval.search(U, 'ferry island', { limit: 2 }).map((h) => [h.id, h.explain.signals.access]);
    const before = order();
    // The later of the two ranks second: recall it three times, without writing the batch.
    const second = before[1]![0] as string;
    for (let i = 0; i < 3; i++) env.stores.noteAccess([{ source: 'l3', id: second }]);
    const pending = order();
    expect(pending[0]![0]).toBe(second);
    env.stores.flush();
    expect(counts(env, [a.id, b.id]).some((n) => n === 3)).toBe(true);
    expect(order()).toEqual(pending);
  });
});
