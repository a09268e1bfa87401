import { afterEach, describe, expect, it } from 'vitest';
import { U } from '../test-helpers.js';
import { holdUntilTimer, whenFreeScratch } from '../when-free.fixture.js';

const scratch = whenFreeScratch('sagas-when-free-');
afterEach(() => scratch.closeAll());

describe('a saga while another process holds the write lock', () => {
  it('its journal\'s writes and its steps\' transactions wait for the lock without blocking the event loop', async () => {
    const { storage, stores, other } = scratch.hosted();
    // The busy timeout shortened (10 s in service): a write left in SQLite's busy handler fails within the test.
    storage.db.pragma('busy_timeout = 3000');
    stores.episodes.add(U, { summary: 'Moved to Lyon in spring', importance: 0.9 });
    const order: string[] = [];
    const hold = (name: string) => holdUntilTimer(other, order, name);
    hold('before the start');
    // Taken again just before the audit step: its transaction and the journal's writes after it wait too.
    let taken!: () => void;
    stores.sagas.stalls.set('consolidate:audit', new Promise<void>((resolve) => (taken = resolve)));
    const run = stores.sagas.run('consolidate', U);
    setTimeout(function takeWhenStarted() {
      if (!stores.ctx.db.prepare("SELECT COUNT(*) FROM saga_steps WHERE name = 'consolidate'").pluck(true).get()) return void setTimeout(takeWhenStarted, 1);
      hold('before the audit');
      taken();
    }, 0);
    const result = await run;
    order.push('ended');
    expect(order).toEqual(['before the start', 'before the audit', 'ended']);
    expect(result).toMatchObject({ status: 'completed', error: null });
    expect(result.steps.map((s) => `${s.step}:${s.status}`)).toEqual(['consolidate:done', 'audit:done', 'reindex:done']);
    expect(stores.sagas.runs(U)[0]).toMatchObject({ run_id: result.run_id, status: 'completed' });
  });

  it('the watchdog\'s heartbeat and claim of a run past its timeout wait for the lock without blocking the event loop, then roll it back', async () => {
    let t = Date.UTC(2026, 0, 1);
    const { storage, stores, other } = scratch.hosted({ now: () => t });
    storage.db.pragma('busy_timeout = 3000');
    stores.episodes.add(U, { summary: 'Moved to Lyon in spring', importance: 0.9 });
    let release!: () => void;
    stores.sagas.stalls.set('consolidate:consolidate', new Promise<void>((resolve) => (release = resolve)));
    const run = stores.sagas.run('consolidate', U);
    while (!stores.ctx.db.prepare('SELECT COUNT(*) FROM saga_runs').pluck(true).get()) await new Promise((resolve) => setTimeout(resolve, 1));
    t += (stores.sagas.timeoutMs + 1000);
    const order: string[] = [];
    holdUntilTimer(other, order, 'timer');
    const report = await stores.sagaWatchdog.check();
    order.push('checked');
    expect(order).toEqual(['timer', 'checked']);
    expect(report).toMatchObject({ error: null, rolled_back: [{ reason: 'timed_out' }] });
    release();
    expect((await run).status).toBe('rolled_back');
  });

  it('a run whose start cannot be recorded within the busy timeout fails with SQLITE_BUSY, nothing journaled, the event loop turning meanwhile', async () => {
    const { storage, stores, other } = scratch.hosted();
    storage.db.pragma('busy_timeout = 300');
    other.exec('BEGIN IMMEDIATE');
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    const err = await stores.sagas.run('consolidate', U).catch((e: unknown) => e);
    clearInterval(ticker);
    expect((err as { code?: string }).code).toMatch(/^SQLITE_BUSY/);
    expect(ticks).toBeGreaterThan(10);
    other.exec('ROLLBACK');
    expect(stores.ctx.db.prepare('SELECT COUNT(*) FROM saga_runs').pluck(true).get()).toBe(0);
  });
});
