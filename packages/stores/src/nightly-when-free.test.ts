import { afterEach, describe, expect, it } from 'vitest';
import type { NightlyRun } from './nightly.js';
import { U } from './test-helpers.js';
import { holdUntilTimer, whenFreeScratch } from './when-free.fixture.js';

const scratch = whenFreeScratch('nightly-when-free-');
afterEach(() => scratch.closeAll());

/** Stores over a kernel Storage with a scope to visit; the other connection is another process's. */
function seeded(busyTimeoutMs: number) {
  const h = scratch.hosted();
  h.stores.episodes.add(U, { summary: 'Walked along the river at dawn' });
  h.stores.facts.upsert(U, { key: 'city', value: 'Lyon' });
  h.storage.db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  return h;
}

const statuses = (run: NightlyRun) => run.results.flatMap((r) => r.phases.map((p) => `${p.phase}:${p.status}`));

describe('the nightly run while another process holds the write lock', () => {
  it('its start\'s record, each phase\'s transaction and its end\'s record wait for the lock without blocking the event loop', async () => {
    const { stores, other } = seeded(3000);
    const order: string[] = [];
    const hold = (name: string) => holdUntilTimer(other, order, name);
    hold('before the start');
    // Taken again once the indexes are refreshed: the phases after it and the run's end wait too.
    const refresh = stores.retrieval.refreshInSlices.bind(stores.retrieval);
    stores.retrieval.refreshInSlices = async (...a: Parameters<typeof refresh>) => {
      const done = await refresh(...a);
      order.push('refreshed');
      hold('before skill_promotion');
      return done;
    };
    const run = await stores.nightly.run();
    order.push('ended');
    expect(order).toEqual(['before the start', 'refreshed', 'before skill_promotion', 'ended']);
    expect(run).toMatchObject({ status: 'ok', scopes: 1, phases_failed: 0 });
    expect(statuses(run)).toEqual(['consolidation:ok', 'dream_buffer:ok', 'index_refresh:ok', 'skill_promotion:ok', 'reflection:ok']);
    expect(stores.nightly.lastRun()).toMatchObject({ id: run.id, status: 'ok' });
  });

  it('a phase still refused the lock once the busy timeout has passed fails alone, nothing of it written; the event loop turns meanwhile', async () => {
    const { stores, other } = seeded(150);
    const refresh = stores.retrieval.refreshInSlices.bind(stores.retrieval);
    stores.retrieval.refreshInSlices = async (...a: Parameters<typeof refresh>) => {
      const done = await refresh(...a);
      other.exec('BEGIN IMMEDIATE');
      return done;
    };
    // Let go by the plugins' phase, after the built-in ones: the run's end is recorded.
    stores.nightly.attach({
      taps: [{ name: 'p-release' }],
      promise: async (results) => {
        other.exec('COMMIT');
        return { ...results, 'p-release': { counts: {} } };
      },
    });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    const run = await stores.nightly.run();
    clearInterval(ticker);
    expect(ticks).toBeGreaterThan(2);
    expect(statuses(run)).toEqual(['consolidation:ok', 'dream_buffer:ok', 'index_refresh:ok', 'skill_promotion:failed', 'reflection:failed', 'p-release:ok']);
    expect(run.results[0]!.phases[4]!.error).toMatch(/locked|busy/i);
    expect(run).toMatchObject({ status: 'failed', phases_failed: 2 });
    expect(stores.reflections.list(U).length).toBe(0);
  });

  it('a run whose start cannot be recorded within the busy timeout fails with SQLITE_BUSY, no run recorded, the event loop turning meanwhile', async () => {
    const { stores, other } = seeded(150);
    other.exec('BEGIN IMMEDIATE');
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    const err = await stores.nightly.run().catch((e: unknown) => e);
    clearInterval(ticker);
    expect((err as { code?: string }).code).toMatch(/^SQLITE_BUSY/);
    expect(ticks).toBeGreaterThan(2);
    other.exec('ROLLBACK');
    expect(stores.nightly.lastRun()).toBeNull();
    expect(stores.nightly.busy).toBe(false);
  });
});
