import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BREAKER_THRESHOLD, WRITE_PROBE_NAME } from '@memory-service/stores';
import { createTestServer, ManualClock, tempDataDir } from '@memory-service/testing';
import { insight, primitives, start, storesOf, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  vi.restoreAllMocks();
  await s?.close();
});

const statusOf = (d: any, name: string) => d.checks.find((c: any) => c.name === name);

describe('memory_diagnose', () => {
  it('a fresh service: the eight checks are ok and the overall status is ok', async () => {
    s = await start();
    await s.call('think', { text: 'The staging database migrates every Tuesday night after the backup finishes.', layer: 'user' });
    storesOf(s).flush();
    const d = await s.call('memory_diagnose', {});
    expect(d.checks.map((c: any) => [c.name, c.status])).toEqual([
      ['database', 'ok'],
      ['data_dir', 'ok'],
      ['migrations', 'ok'],
      ['l1_files', 'ok'],
      ['proposals', 'ok'],
      ['breakers', 'ok'],
      ['nightly', 'ok'],
      ['sagas', 'ok'],
    ]);
    expect(d.status).toBe('ok');
    expect(statusOf(d, 'database').detail).toContain('quick_check ok');
    expect(statusOf(d, 'migrations').detail).toMatch(/@memory-service\/stores \d+\/\d+/);
    expect(d.breakers.map((b: any) => b.state)).toEqual(['closed', 'closed', 'closed', 'closed', 'closed', 'closed']);
    expect(d.breakers.map((b: any) => b.name)).toEqual(expect.arrayContaining(['nightly', 'saga_watchdog']));
  });

  // Regression guard, fixed: on a read-only remount the database check (reads only) said ok, and
  // only the writes' own errors showed the problem. As root permission bits cannot make the dir
  // unwritable: the probe's open fails with EROFS as a read-only remount makes it fail.
  it('data_dir fails naming the dir and the OS error code when the data dir cannot be written, and nothing is left behind', async () => {
    s = await start();
    const open = fs.openSync;
    vi.spyOn(fs, 'openSync').mockImplementation(((file: fs.PathLike, flags: fs.OpenMode, mode?: fs.Mode | null) => {
      if (String(file).includes(WRITE_PROBE_NAME)) throw Object.assign(new Error(`EROFS: read-only file system, open '${String(file)}'`), { code: 'EROFS' });
      return open(file, flags, mode);
    }) as typeof fs.openSync);
    const d = await s.call('memory_diagnose', {});
    expect(d.status).toBe('degraded');
    expect(statusOf(d, 'data_dir')).toEqual({
      name: 'data_dir',
      status: 'fail',
      detail: `the data dir ${s.dataDir} cannot be written now (create of a probe file failed with EROFS: the file system holding it is mounted read-only): writes that make files there (memory.db's journal, L1 files, backups, exports) fail until it can be written again`,
    });
    expect(statusOf(d, 'database').status).toBe('ok');
    vi.restoreAllMocks();
    expect(statusOf(await s.call('memory_diagnose', {}), 'data_dir')).toMatchObject({ status: 'ok', detail: `${s.dataDir} is writable: a probe file was created, written, synced and removed` });
    expect(fs.readdirSync(s.dataDir).filter((n) => n.startsWith(WRITE_PROBE_NAME))).toEqual([]);
  });

  it('a probe file a process killed mid-check left is removed shortly after the next start', async () => {
    const dataDir = tempDataDir();
    const on = () => createTestServer({ plugins: [primitives, insight], expose: 'insight', clock: new ManualClock(), dataDir });
    const left = path.join(dataDir, `${WRITE_PROBE_NAME}.999999999.0123456789ab.tmp`);
    try {
      await (await on()).close();
      fs.writeFileSync(left, 'memory-service write probe\n');
      s = await on();
      // Shortly after the start (the stores' repair after a stop runs off the start-up path).
      await vi.waitFor(() => expect(fs.existsSync(left)).toBe(false), { timeout: 5000, interval: 50 });
      expect(statusOf(await s.call('memory_diagnose', {}), 'data_dir').status).toBe('ok');
    } finally {
      await s?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('reports an invalid L1 file, a pending migration and an open breaker as problems (degraded), not as an error', async () => {
    s = await start();
    await s.call('think', { text: 'Bob likes green tea in the morning, every single day of the week.', layer: 'user', user_id: 'bob' });
    const st = storesOf(s);
    st.flush();
    fs.writeFileSync(st.l1.fileFor({ layer: 'user', user_id: 'bob' }), '[1, 2');
    s.kernel.storage.db.prepare("DELETE FROM kernel_migrations WHERE owner = '@memory-service/stores' AND id = (SELECT max(id) FROM kernel_migrations WHERE owner = '@memory-service/stores')").run();
    for (let i = 0; i < BREAKER_THRESHOLD; i++) st.breakers.get('index_catch_up').failure(new Error('index broken'));
    const d = await s.call('memory_diagnose', { layer: 'agent', user_id: 'someone' });
    expect(d.status).toBe('degraded');
    expect(statusOf(d, 'l1_files')).toMatchObject({ status: 'warn', detail: expect.stringContaining(path.join('l1', 'user', 'bob.json')) });
    expect(statusOf(d, 'migrations')).toMatchObject({ status: 'fail', detail: expect.stringContaining('pending migrations') });
    expect(statusOf(d, 'breakers')).toMatchObject({ status: 'fail', detail: expect.stringContaining('index_catch_up') });
    expect(d.breakers.find((b: any) => b.name === 'index_catch_up')).toMatchObject({ state: 'open', failures: BREAKER_THRESHOLD, last_error: 'index broken' });
    expect(statusOf(d, 'database').status).toBe('ok');
  });

  it('sagas: fail for a saga run left unfinished past its timeout, ok once the watchdog rolled it back, warn for a recent rollback_failed', async () => {
    s = await start();
    const db = s.kernel.storage.db;
    const insert = db.prepare(
      `INSERT INTO saga_runs (id, saga, layer, user_id, status, started, updated, heartbeat, owner, owner_pid, owner_host, error)
       VALUES (?, ?, 'user', 'default', ?, ?, ?, ?, 'gone', 1, 'another-host', ?)`,
    );
    // The clock is at 2026-01-01: a run started a day before, silent since, on another host.
    const old = '2025-12-31T00:00:00.000Z';
    insert.run('saga_stuck', 'consolidate', 'running', old, old, old, null);
    const d = await s.call('memory_diagnose', {});
    expect(d.status).toBe('degraded');
    expect(statusOf(d, 'sagas')).toMatchObject({ status: 'fail', detail: expect.stringContaining('saga_stuck') });
    await storesOf(s).sagaWatchdog.check();
    expect(statusOf(await s.call('memory_diagnose', {}), 'sagas')).toMatchObject({ status: 'ok', detail: expect.stringContaining('1 rolled back') });
    insert.run('saga_half_undone', 'backup', 'rollback_failed', '2025-12-31T23:00:00.000Z', '2025-12-31T23:00:00.000Z', '2025-12-31T23:00:00.000Z', 'backup broke');
    const w = await s.call('memory_diagnose', {});
    expect(statusOf(w, 'sagas')).toMatchObject({ status: 'warn', detail: expect.stringContaining('saga_half_undone (backup, rollback_failed: backup broke)') });
    expect(w.status).toBe('degraded');
  });

  it('reads the pending proposals when a proposals store exists', async () => {
    s = await start();
    const db = s.kernel.storage.db;
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'proposals'").get()) {
      db.exec('CREATE TABLE proposals (id INTEGER PRIMARY KEY, status TEXT NOT NULL, created TEXT NOT NULL)');
    }
    expect(statusOf(await s.call('memory_diagnose', {}), 'proposals')).toMatchObject({ status: 'ok', detail: '0 pending proposal(s)' });
  });

  it('names layer and user_id when they are bad', async () => {
    s = await start();
    expect((await toolError(s.call('memory_diagnose', { layer: 'team' }))).field).toBe('layer');
    expect((await toolError(s.call('memory_diagnose', { user_id: '../x' }))).field).toBe('user_id');
  });
});
