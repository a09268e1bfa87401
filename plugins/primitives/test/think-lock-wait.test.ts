import path from 'node:path';
import { openSqlite } from '@memory-service/kernel';
import { afterEach, describe, expect, it } from 'vitest';
import { start, type TestServer } from './helpers.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

describe('think while another process holds the write lock', () => {
  // Regression guard, fixed: the think waited in SQLite's busy handler inside a synchronous call, so the
  // whole server (every session, timers) stood still for up to the 10 s busy timeout.
  it('waits for the lock without holding up the server: a dream meanwhile answers at once, the think lands once the lock is free', async () => {
    s = await start();
    await s.call('think', { text: 'The quarterly planning meeting moved to the Lisbon office.' });
    const other = openSqlite(path.join(s.dataDir, 'memory.db'));
    other.exec('BEGIN IMMEDIATE');
    let thought: Promise<unknown>;
    let settled = false;
    try {
      thought = s.call('think', { text: 'The Lisbon office opens at nine on Mondays.' });
      void thought.then(() => (settled = true), () => (settled = true));
      const asked = performance.now();
      const dream = await s.call('dream', { query: 'Lisbon office' });
      const took = performance.now() - asked;
      expect(dream.summary).toContain('quarterly planning');
      expect(took).toBeLessThan(2000);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(settled).toBe(false);
    } finally {
      if (other.inTransaction) other.exec('COMMIT');
      other.close();
    }
    await thought;
    expect((await s.call('dream', { query: 'nine on Mondays' })).summary).toContain('nine on Mondays');
  }, 30_000);
});
