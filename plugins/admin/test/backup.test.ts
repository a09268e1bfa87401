import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, start, storesOf, toolError, type TestServer } from './helpers.js';
import { createTestServer } from '@memory-service/testing';
import { admin, primitives } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const USER = { layer: 'user' as const, user_id: 'default' };

describe('memory_backup', () => {
  it('status, now and list: an online copy in backups/ named by the clock, newest first', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const empty = await s.call('memory_backup', { action: 'status' });
    expect(empty).toEqual({ action: 'status', scheduler: { enabled: false, interval_hours: 0, next_run: null, last_error: null }, last_backup: null, count: 0, total_bytes: 0 });
    await s.call('evolve', { instruction: 'Answer in short sentences.' });
    const now = await s.call('memory_backup', { action: 'now' });
    expect(now.backup).toMatchObject({ name: expect.stringMatching(/^manual-\d{8}T\d{9}Z\.db$/), kind: 'manual' });
    expect(now.backup.size_bytes).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(s.dataDir, 'backups', now.backup.name))).toBe(true);
    clock.advance(60_000);
    const later = await s.call('memory_backup', { action: 'now' });
    expect((await s.call('memory_backup', { action: 'list' })).backups.map((b: any) => b.name)).toEqual([later.backup.name, now.backup.name]);
    expect(await s.call('memory_backup', { action: 'status' })).toMatchObject({ count: 2, last_backup: { name: later.backup.name } });
  });

  it('restore: the current db is backed up first, the backup content comes back, and the service keeps working', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    await s.call('think', { text: 'The staging database migrates every Tuesday night after the backup finishes.', layer: 'user' });
    const st = storesOf(s);
    const episodesBefore = st.episodes.count(USER);
    const taken = (await s.call('memory_backup', { action: 'now' })).backup;
    clock.advance(1000);
    await s.call('think', { text: 'The production cluster was moved to the Frankfurt region during the spring outage.', layer: 'user' });
    expect(st.episodes.count(USER)).toBe(episodesBefore + 1);
    const r = await s.call('memory_backup', { action: 'restore', name: taken.name });
    expect(r.restored.name).toBe(taken.name);
    expect(r.safety_backup.kind).toBe('pre-restore');
    expect(st.episodes.count(USER)).toBe(episodesBefore);
    // Search sees the restored content; new writes and reads go on.
    expect((await s.call('dream', { query: 'Frankfurt region' })).summary).not.toContain('production cluster');
    expect((await s.call('dream', { query: 'staging database Tuesday' })).summary).toContain('Tuesday');
    await s.call('think', { text: 'A note written after the restore, about the quarterly planning meeting.', layer: 'user' });
    expect(st.episodes.count(USER)).toBe(episodesBefore + 1);
    // The pre-restore copy undoes the restore.
    await s.call('memory_backup', { action: 'restore', name: r.safety_backup.name });
    expect((await s.call('dream', { query: 'Frankfurt region' })).summary).toContain('production cluster');
  });

  it('a scheduler interval past what a Node timer holds (backup.interval_hours 8760) takes no backup before its time', async () => {
    s = await createTestServer({ plugins: [primitives, admin], expose: 'admin', clock: new ManualClock(), config: { backup: { interval_hours: 8760 } } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await s.call('memory_backup', { action: 'status' })).toMatchObject({ scheduler: { enabled: true, interval_hours: 8760 }, count: 0 });
  });

  it('restore names name when it is missing, malformed, unknown or not a database', async () => {
    s = await start();
    expect((await toolError(s.call('memory_backup', { action: 'restore' }))).field).toBe('name');
    expect((await toolError(s.call('memory_backup', { action: 'restore', name: '../memory.db' }))).field).toBe('name');
    expect(await toolError(s.call('memory_backup', { action: 'restore', name: 'manual-1.db' }))).toMatchObject({ field: 'name', type: 'NotFoundError' });
    fs.mkdirSync(path.join(s.dataDir, 'backups'), { recursive: true });
    fs.writeFileSync(path.join(s.dataDir, 'backups', 'broken.db'), 'nope');
    expect((await toolError(s.call('memory_backup', { action: 'restore', name: 'broken.db' }))).message).toContain('not a usable memory database');
    expect((await toolError(s.call('memory_backup', { action: 'zip' }))).field).toBe('action');
    // Nothing was backed up by the refused restores.
    expect((await s.call('memory_backup', { action: 'list' })).backups.map((b: any) => b.name)).toEqual(['broken.db']);
  });

  // Regression guard, fixed: restore copied the backup's api_keys table over the live one: a key revoked since the
  // backup worked again, a key created since was gone, and a backup taken before the first key left no keys at all.
  it('restore keeps the API keys as they were: a key revoked since stays revoked, one created since stays', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const keys = async () =>
      (await s.call('memory_api_key', { action: 'list' })).keys.map((k: any) => ({ id: k.id, name: k.name, created: k.created, revoked: k.revoked }));
    const early = (await s.call('memory_backup', { action: 'now' })).backup;
    clock.advance(1000);
    const a = (await s.call('memory_api_key', { action: 'create', name: 'key-a' })).created;
    const taken = (await s.call('memory_backup', { action: 'now' })).backup;
    clock.advance(1000);
    const b = (await s.call('memory_api_key', { action: 'create', name: 'key-b' })).created;
    const revokedAt = (await s.call('memory_api_key', { action: 'revoke', key_id: a.id })).revoked.revoked;
    const before = await keys();
    expect(before).toEqual([
      { id: a.id, name: 'key-a', created: a.created, revoked: revokedAt },
      { id: b.id, name: 'key-b', created: b.created, revoked: null },
    ]);

    await s.call('memory_backup', { action: 'restore', name: taken.name });
    expect(await keys()).toEqual(before);
    expect(storesOf(s).apiKeys.verify(a.key)).toBe('revoked');
    expect(storesOf(s).apiKeys.verify(b.key)).toBe('ok');

    // A backup taken before any key was made leaves the keys listed.
    await s.call('memory_backup', { action: 'restore', name: early.name });
    expect(await keys()).toEqual(before);
    expect(storesOf(s).apiKeys.verify(a.key)).toBe('revoked');
    expect(storesOf(s).apiKeys.verify(b.key)).toBe('ok');
  });

  it('the scheduler runs with backup.interval_hours and stops when the service closes', async () => {
    s = await createTestServer({ plugins: [primitives, admin], expose: 'admin', clock: new ManualClock(), config: { backup: { interval_hours: 24 } } });
    const status = await s.call('memory_backup', { action: 'status' });
    expect(status.scheduler).toMatchObject({ enabled: true, interval_hours: 24, next_run: expect.any(String) });
    const st = storesOf(s);
    await s.close();
    expect(st.backups.status().scheduler.enabled).toBe(false);
    s = undefined as unknown as TestServer;
  });
});
