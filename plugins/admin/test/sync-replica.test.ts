import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, start, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

describe('memory_sync_replica', () => {
  it('status without a replica, then sync writes replica.db with its size, time and row counts', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    expect(await s.call('memory_sync_replica', { action: 'status' })).toMatchObject({ action: 'status', exists: false, size_bytes: null, age_seconds: null, fresh: false });
    expect(fs.existsSync(path.join(s.dataDir, 'replica.db'))).toBe(false);
    await s.call('think', { text: 'The replica should hold this thought about sailing boats on the lake in summer.' });
    await s.call('think', { text: 'Bob keeps bees on the roof of his building downtown and sells the honey.', user_id: 'bob' });
    const r = await s.call('memory_sync_replica', {});
    expect(r).toMatchObject({ action: 'sync', exists: true, path: 'replica.db', age_seconds: 0, fresh: true, synced_at: new Date(clock.now()).toISOString() });
    expect(r.size_bytes).toBe(fs.statSync(path.join(s.dataDir, 'replica.db')).size);
    expect(r.rows.episodes).toBe(2);
    expect(r.scope_rows.episodes).toBe(1);
    expect(typeof r.duration_ms).toBe('number');
    clock.advance(400_000);
    expect(await s.call('memory_sync_replica', { action: 'status' })).toMatchObject({ exists: true, age_seconds: 400, fresh: false, size_bytes: r.size_bytes });
  });

  it('a sync after more writes carries them; the scope counts follow layer and user_id', async () => {
    s = await start();
    await s.call('memory_sync_replica', {});
    await s.call('evolve', { instruction: 'Prefer metric units.' });
    const r = await s.call('memory_sync_replica', { layer: 'agent' });
    expect(r.rows.facts).toBe(1);
    expect(r.scope_rows.facts).toBe(1);
    const other = await s.call('memory_sync_replica', { user_id: 'bob' });
    expect(other.scope_rows.facts).toBe(0);
    expect(fs.readdirSync(s.dataDir).filter((f) => f.startsWith('replica'))).toEqual(['replica.db']);
  });

  it('refuses an unknown action naming it', async () => {
    s = await start();
    expect((await toolError(s.call('memory_sync_replica', { action: 'restore' }))).field).toBe('action');
  });
});
