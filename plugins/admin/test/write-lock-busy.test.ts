import path from 'node:path';
import { openSqlite } from '@memory-service/kernel';
import { createTestServer, toolError, type TestServer } from '@memory-service/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { admin, primitives } from './helpers.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

describe('a write while another process holds the write lock', () => {
  // Regression guard, fixed (audit-o finding 4): while another process ran a long memory_data import, a
  // memory_remember here failed after the busy timeout with a bare KERNEL_ERR_TOOL_FAILED "database is locked".
  it('fails with KERNEL_ERR_BUSY saying another process holds the write lock, how long it waited and to try again; works once it is free', async () => {
    s = await createTestServer({ plugins: [primitives, admin], expose: 'all' });
    // The busy timeout shortened (10 s in service), so the test does not wait it out.
    s.kernel.storage.db.pragma('busy_timeout = 150');
    const other = openSqlite(path.join(s.dataDir, 'memory.db'));
    other.exec('BEGIN IMMEDIATE');
    try {
      const err = await toolError(s.call('think', { text: 'The quarterly planning meeting moved to the Lisbon office.' }));
      expect(err).toMatchObject({ type: 'BusyError', code: 'KERNEL_ERR_BUSY' });
      expect(err.message).toContain('another process holds its write lock');
      expect(err.message).toMatch(/waited 0\.\d s for it and gave up; nothing of this call was written/);
      expect(err.message).toContain('Try again later');
      expect(err.message).not.toContain('database is locked');
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    await s.call('think', { text: 'The quarterly planning meeting moved to the Lisbon office.' });
    expect((await s.call('dream', { query: 'Lisbon office' })).summary).toContain('Lisbon');
  });
});
