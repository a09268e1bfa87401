import { afterEach, describe, expect, it } from 'vitest';
import { holdUntilTimer, whenFreeScratch } from '../when-free.fixture.js';

const scratch = whenFreeScratch('health-when-free-');
afterEach(() => scratch.closeAll());

describe('memory_heal remigrate while another process holds the write lock', () => {
  it('waits for the lock without blocking the event loop (each migration opens a transaction), then applies what is pending', async () => {
    const { storage, stores, other } = scratch.hosted();
    // The busy timeout shortened (10 s in service): a transaction left in SQLite's busy handler fails within the test.
    storage.db.pragma('busy_timeout = 3000');
    storage.db.prepare("DELETE FROM kernel_migrations WHERE owner = '@memory-service/stores' AND id = 13").run();
    const order: string[] = [];
    holdUntilTimer(other, order, 'timer');
    const out = await stores.health.heal(['remigrate'], storage);
    order.push('healed');
    expect(order).toEqual(['timer', 'healed']);
    expect(out[0]).toMatchObject({ action: 'remigrate', applied: { '@memory-service/stores': [13] } });
  });

  it('gives up with SQLITE_BUSY once the busy timeout has passed, the event loop turning meanwhile, nothing applied', async () => {
    const { storage, stores, other } = scratch.hosted();
    storage.db.pragma('busy_timeout = 300');
    storage.db.prepare("DELETE FROM kernel_migrations WHERE owner = '@memory-service/stores' AND id = 13").run();
    other.exec('BEGIN IMMEDIATE');
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    const err = await (async () => stores.health.heal(['remigrate'], storage))().catch((e: unknown) => e);
    clearInterval(ticker);
    expect((err as { code?: string }).code).toMatch(/^SQLITE_BUSY/);
    expect(ticks).toBeGreaterThan(10);
    other.exec('ROLLBACK');
    expect(storage.status().find((s) => s.owner === '@memory-service/stores')?.pending).toEqual([13]);
  });
});
