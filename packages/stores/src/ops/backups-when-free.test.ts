import path from 'node:path';
import { openSqlite } from '@memory-service/kernel';
import { afterEach, describe, expect, it } from 'vitest';
import { U } from '../test-helpers.js';
import { holdUntilTimer, whenFreeScratch } from '../when-free.fixture.js';

const scratch = whenFreeScratch('backups-when-free-');
afterEach(() => scratch.closeAll());

describe('a backup while another process holds the write lock', () => {
  it('writes the queued bookkeeping first once the lock is free, the event loop turning meanwhile; with nothing queued it does not wait', async () => {
    const { storage, stores, other, dir } = scratch.hosted();
    // The busy timeout shortened (10 s in service): a write left in SQLite's busy handler fails within the test.
    storage.db.pragma('busy_timeout = 3000');
    const recorded = (file: string) => {
      const db = openSqlite(file, { readonly: true });
      try {
        return db.prepare("SELECT COUNT(*) FROM recall_events WHERE query = 'queued'").pluck(true).get();
      } finally {
        db.close();
      }
    };
    stores.defer(() => stores.recallEvents.record(U, { query: 'queued', intent: 'balanced', result_count: 0, ms: 1 }));
    const order: string[] = [];
    holdUntilTimer(other, order, 'timer');
    const made = await stores.backups.create('manual');
    order.push('backup');
    expect(order).toEqual(['timer', 'backup']);
    expect(recorded(path.join(dir, 'backups', made.name))).toBe(1);

    // Nothing queued: the copy only reads, and is taken while the lock stays held.
    other.exec('BEGIN IMMEDIATE');
    const again = await stores.backups.create('manual');
    expect(other.inTransaction).toBe(true);
    other.exec('ROLLBACK');
    expect(recorded(path.join(dir, 'backups', again.name))).toBe(1);
  });

  it('takes the backup without the bookkeeping when the lock stays taken past the busy timeout, which stays queued', async () => {
    const { storage, stores, other, dir } = scratch.hosted();
    storage.db.pragma('busy_timeout = 300');
    stores.defer(() => stores.recallEvents.record(U, { query: 'queued', intent: 'balanced', result_count: 0, ms: 1 }));
    other.exec('BEGIN IMMEDIATE');
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    const made = await stores.backups.create('manual');
    clearInterval(ticker);
    expect(ticks).toBeGreaterThan(10);
    other.exec('ROLLBACK');
    const copy = openSqlite(path.join(dir, 'backups', made.name), { readonly: true });
    expect(copy.prepare('SELECT COUNT(*) FROM recall_events').pluck(true).get()).toBe(0);
    copy.close();
    // Still queued: written at the next read of the telemetry.
    expect(stores.recallEvents.count(U)).toBe(1);
  });
});
