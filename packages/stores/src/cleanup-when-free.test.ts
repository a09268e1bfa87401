import { afterEach, describe, expect, it } from 'vitest';
import { A, U } from './test-helpers.js';
import { holdUntilTimer, whenFreeScratch } from './when-free.fixture.js';

const scratch = whenFreeScratch('cleanup-when-free-');
afterEach(() => scratch.closeAll());

const DAY = 86_400_000;

/** Stores over a kernel Storage with duplicates to remove, old audit rows, old texts and free pages; the other connection is another process's. */
function seeded() {
  let t = Date.UTC(2026, 0, 1);
  const h = scratch.hosted({ now: () => t });
  const s = h.stores;
  s.facts.upsert(U, { key: 'color', value: 'blue', importance: 0.4 });
  s.facts.upsert(U, { key: 'colour', value: 'blue', importance: 0.9 });
  s.facts.upsert(U, { key: 'old', value: 'x'.repeat(20_000) });
  s.facts.upsert(A, { key: 'agent', value: 'kept' });
  t += 10 * DAY;
  s.facts.delete(U, 'old');
  // The busy timeout shortened (10 s in service): a write left in SQLite's busy handler fails within the test.
  h.storage.db.pragma('busy_timeout = 3000');
  const duplicates = () => s.ctx.db.prepare("SELECT COUNT(*) FROM facts WHERE layer = 'user' AND value = 'blue'").pluck(true).get() as number;
  const cleanups = () => s.ctx.db.prepare("SELECT COUNT(*) FROM audit_log WHERE action = 'cleanup'").pluck(true).get() as number;
  return { ...h, duplicates, cleanups };
}

describe('Cleanup while another process holds the write lock', () => {
  it('the scope tasks\' transaction and the backups task\'s trims wait for it without blocking the event loop, then write', async () => {
    const { stores, other, duplicates, cleanups } = seeded();
    const order: string[] = [];
    holdUntilTimer(other, order, 'timer');
    const r = await stores.cleanup.run(U, { dryRun: false, tasks: ['dedup_core', 'audit'], auditRetentionDays: 5 });
    order.push('scope tasks');
    expect(order).toEqual(['timer', 'scope tasks']);
    expect(r.dedup_core?.removed).toBe(1);
    expect(duplicates()).toBe(1);
    expect(cleanups()).toBe(1);

    holdUntilTimer(other, order, 'timer 2');
    const b = await stores.cleanup.run(U, { dryRun: false, tasks: ['backups'], auditRetentionDays: 5 });
    order.push('backups');
    expect(order.slice(2)).toEqual(['timer 2', 'backups']);
    expect(b.backups).toMatchObject({ saga_table: true, saga_rows_removed: 0 });
  });

  it('compaction\'s writes (the old texts cleared, the statistics, VACUUM) each wait for it without blocking the event loop', async () => {
    const { stores, other } = seeded();
    const order: string[] = [];
    holdUntilTimer(other, order, 'before the old texts');
    // Taken again once the indexes are refreshed: the statistics and the vacuum wait too.
    const refresh = stores.retrieval.refreshInSlices.bind(stores.retrieval);
    stores.retrieval.refreshInSlices = async (...a: Parameters<typeof refresh>) => {
      const done = await refresh(...a);
      order.push('refreshed');
      holdUntilTimer(other, order, 'before the vacuum');
      return done;
    };
    const r = await stores.cleanup.run(U, { dryRun: false, tasks: ['compaction'] });
    order.push('compacted');
    expect(order).toEqual(['before the old texts', 'refreshed', 'before the vacuum', 'compacted']);
    expect(r.compaction).toMatchObject({ vacuum: 'vacuum', indexes_refreshed: true, freelist_pages_after: 0 });
    expect(r.compaction?.freelist_pages_before).toBeGreaterThan(0);
    expect(stores.ctx.db.prepare('SELECT COUNT(*) FROM retrieval_changes WHERE old IS NOT NULL').pluck(true).get()).toBe(0);
  });

  it('a dry run writes the dream telemetry still queued (which dream_buffer counts) once the lock is free, the event loop turning meanwhile', async () => {
    const { stores, other } = seeded();
    for (let i = 0; i < 3; i++) stores.defer(() => stores.recallEvents.record(U, { query: `q${i}`, intent: 'balanced', result_count: 0, ms: 1 }));
    const order: string[] = [];
    holdUntilTimer(other, order, 'timer');
    const r = await stores.cleanup.run(U, { dryRun: true, tasks: ['dream_buffer'] });
    order.push('dry run');
    expect(order).toEqual(['timer', 'dry run']);
    expect(r.dream_buffer?.rows).toBe(3);
  });

  it('gives up with SQLITE_BUSY once the busy timeout has passed, the event loop turning meanwhile: nothing of the scope tasks written', async () => {
    const { storage, stores, other, duplicates, cleanups } = seeded();
    storage.db.pragma('busy_timeout = 150');
    other.exec('BEGIN IMMEDIATE');
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    const err = await stores.cleanup.run(U, { dryRun: false }).catch((e: unknown) => e);
    clearInterval(ticker);
    expect((err as { code?: string }).code).toMatch(/^SQLITE_BUSY/);
    expect(ticks).toBeGreaterThan(2);
    other.exec('ROLLBACK');
    expect(duplicates()).toBe(2);
    expect(cleanups()).toBe(0);
    expect(stores.ctx.db.inTransaction).toBe(false);
  });
});
