import path from 'node:path';
import { openSqlite } from '@memory-service/kernel';
import { createTestServer, type TestServer } from '@memory-service/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { admin, ManualClock, primitives, storesOf, toolError } from './helpers.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const U = { layer: 'user' as const, user_id: 'default' };

/** A server whose scope holds facts of the same value (dedup_core removes one) and a deleted fact's old text and pages (compaction). */
async function seeded(): Promise<TestServer> {
  const server = await createTestServer({ plugins: [primitives, admin], expose: 'all', clock: new ManualClock() });
  const st = storesOf(server);
  st.facts.upsert(U, { key: 'color', value: 'blue', importance: 0.4 });
  st.facts.upsert(U, { key: 'colour', value: 'blue', importance: 0.9 });
  st.facts.upsert(U, { key: 'old', value: 'x'.repeat(20_000) });
  st.facts.delete(U, 'old');
  return server;
}

describe('memory_cleanup and another process\'s write lock', () => {
  it('waits for the lock without holding up the server (pings answered meanwhile), then applies every task', async () => {
    s = await seeded();
    // Before, its scope transaction waited in SQLite's busy handler inside a synchronous call: no ping was answered until it failed.
    s.kernel.storage.db.pragma('busy_timeout = 4000');
    const other = openSqlite(path.join(s.dataDir, 'memory.db'));
    other.exec('BEGIN IMMEDIATE');
    const order: string[] = [];
    const call = s.call('memory_cleanup', { dry_run: false }).finally(() => order.push('cleanup'));
    try {
      await s.client.ping();
      order.push('ping');
    } finally {
      // Let go by this process once the ping is answered: it is, only while the event loop turns.
      other.exec('COMMIT');
      other.close();
    }
    const done = await call;
    expect(order).toEqual(['ping', 'cleanup']);
    expect(done.dedup_core.removed).toBe(1);
    expect(done.compaction).toMatchObject({ vacuum: 'vacuum', indexes_refreshed: true, freelist_pages_after: 0 });
  });

  it('gives up with KERNEL_ERR_BUSY naming the wait once the busy timeout has passed: nothing of the scope tasks written', async () => {
    s = await seeded();
    s.kernel.storage.db.pragma('busy_timeout = 150');
    const db = s.kernel.storage.db;
    const audit = () => db.prepare("SELECT COUNT(*) FROM audit_log WHERE action = 'cleanup'").pluck(true).get();
    const other = openSqlite(path.join(s.dataDir, 'memory.db'));
    other.exec('BEGIN IMMEDIATE');
    try {
      // A timer of this process fires while the call waits: in SQLite's busy handler none did.
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 5);
      const err = await toolError(s.call('memory_cleanup', { dry_run: false }));
      clearInterval(ticker);
      expect(ticks).toBeGreaterThan(3);
      expect(err).toMatchObject({ code: 'KERNEL_ERR_BUSY' });
      expect(err.message).toMatch(/waited \d+\.\d s/);
      expect(err.message).toContain('the write that waited was not made');
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(audit()).toBe(0);
    expect(storesOf(s).facts.holding(U, 'blue').length).toBe(2);
    const done = await s.call('memory_cleanup', { dry_run: false, tasks: ['dedup_core'] });
    expect(done.dedup_core.removed).toBe(1);
  });
});
