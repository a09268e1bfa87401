import fs from 'node:fs';
import path from 'node:path';
import { silentLogger, Storage } from '@memory-service/kernel';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { STORES_OWNER } from '../kernel-binding.js';
import { storesMigrations } from '../migrations/index.js';
import { makeEnv, U, U2, type Env } from '../test-helpers.js';
import { BREAKER_THRESHOLD } from './breakers.js';
import { removeLeftTemps } from '../stale-temps.js';
import { LOW_DISK_BYTES, PROPOSAL_BACKLOG_WARN, PROPOSAL_MAX_AGE_MS, WRITE_PROBE_NAME } from './health.js';

let env: Env;
let storage: Storage;
beforeEach(() => {
  env = makeEnv();
  storage = new Storage(env.dir, { logger: silentLogger() });
  // makeEnv applied the migrations without the kernel's bookkeeping: record them as applied.
  const record = storage.db.prepare('INSERT INTO kernel_migrations (owner, id, name, applied_at) VALUES (?, ?, ?, ?)');
  for (const m of storesMigrations) record.run(STORES_OWNER, m.id, m.name, '2026-01-01T00:00:00.000Z');
  storage.migrate(STORES_OWNER, storesMigrations);
});
afterEach(() => {
  storage.close();
  env.close();
});

const check = (name: string) => env.stores.health.diagnose(storage).checks.find((c) => c.name === name)!;

describe('Health.diagnose', () => {
  it('a healthy data dir: every check ok, overall ok, no pending proposal', () => {
    env.stores.l1.push(U, { text: 'hello' });
    env.stores.flush();
    const d = env.stores.health.diagnose(storage);
    expect(d.checks.map((c) => c.name)).toEqual(['database', 'data_dir', 'migrations', 'l1_files', 'proposals', 'breakers', 'nightly', 'sagas']);
    expect(d.checks.every((c) => c.status === 'ok')).toBe(true);
    expect(d.status).toBe('ok');
    expect(check('proposals').detail).toBe('0 pending proposal(s)');
    expect(check('l1_files').detail).toBe('1 L1 file(s), all valid JSON rings');
    expect(d.breakers).toHaveLength(6);
  });

  // Regression guard, fixed: with the disk full, every write failed while diagnose said ok.
  it("says how much room the data dir's disk has: warn below LOW_DISK_BYTES, fail when full, and nothing when the system cannot say", () => {
    const statfs = vi.spyOn(fs, 'statfsSync');
    const room = (bytes: number) => statfs.mockReturnValue({ bavail: bytes / 4096, bsize: 4096 } as never);
    try {
      room(2 * LOW_DISK_BYTES);
      expect(check('database')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/quick_check ok; 128\.0 MiB free on its disk$/) });
      room(LOW_DISK_BYTES / 2);
      expect(check('database')).toMatchObject({ status: 'warn', detail: expect.stringContaining('only 32.0 MiB free on the disk holding the data dir') });
      room(0);
      expect(check('database')).toMatchObject({ status: 'fail', detail: expect.stringContaining('the disk holding the data dir is full') });
      expect(env.stores.health.diagnose(storage).status).not.toBe('ok');
      statfs.mockImplementation(() => {
        throw new Error('ENOSYS');
      });
      expect(check('database')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/quick_check ok$/) });
    } finally {
      statfs.mockRestore();
    }
  });

  it('reports a pending migration, an invalid L1 file and an open breaker as fail/warn and overall degraded, never throwing', () => {
    env.stores.l1.push(U, { text: 'hello' });
    env.stores.l1.push(U2, { text: 'hi bob' });
    env.stores.flush();
    fs.writeFileSync(env.stores.l1.fileFor(U2), '{ not json');
    storage.db.prepare('DELETE FROM kernel_migrations WHERE owner = ? AND id = 13').run(STORES_OWNER);
    for (let i = 0; i < BREAKER_THRESHOLD; i++) env.stores.breakers.get('l1_files').failure(new Error('EACCES'));
    const d = env.stores.health.diagnose(storage);
    expect(d.status).toBe('degraded');
    expect(check('migrations')).toMatchObject({ status: 'fail', detail: expect.stringContaining(`${STORES_OWNER} 13`) });
    expect(check('l1_files')).toMatchObject({ status: 'warn', detail: expect.stringContaining(path.join('l1', 'user', 'bob.json')) });
    expect(check('breakers')).toMatchObject({ status: 'fail', detail: expect.stringContaining('l1_files (5 failure(s): EACCES)') });
    expect(check('database').status).toBe('ok');
  });

  // Regression guard, fixed: on a read-only remount (or a data dir the process may no longer write)
  // diagnose said ok; only the writes' own errors showed it.
  describe('data_dir: a probe file proves the data dir writable now', () => {
    afterEach(() => {
      vi.restoreAllMocks();
    });
    const probes = () => fs.readdirSync(env.dir).filter((n) => n.startsWith(`${WRITE_PROBE_NAME}.`));
    /** Make fs[fn] fail with `code` for the probe file only (as root, permission bits cannot make a dir unwritable). */
    function failProbe(fn: 'openSync' | 'fsyncSync', code: string) {
      const realOpen = fs.openSync;
      const realSync = fs.fsyncSync;
      const fail = (what: unknown): never => {
        throw Object.assign(new Error(`${code}: simulated, ${fn} ${String(what)}`), { code });
      };
      let probeFd: number | undefined;
      vi.spyOn(fs, 'openSync').mockImplementation(((file: fs.PathLike, flags: fs.OpenMode, mode?: fs.Mode | null) => {
        const isProbe = String(file).includes(WRITE_PROBE_NAME);
        if (isProbe && fn === 'openSync') return fail(file);
        const fd = realOpen(file, flags, mode);
        if (isProbe) probeFd = fd;
        return fd;
      }) as typeof fs.openSync);
      vi.spyOn(fs, 'fsyncSync').mockImplementation((fd: number) => (fd === probeFd && fn === 'fsyncSync' ? fail(fd) : realSync(fd)));
    }

    it('is ok on a writable data dir, and leaves neither a probe file nor a change to memory.db', () => {
      const db = path.join(env.dir, 'memory.db');
      const before = { bytes: fs.readFileSync(db), mtime: fs.statSync(db).mtimeMs };
      const open = vi.spyOn(fs, 'openSync');
      expect(check('data_dir')).toEqual({ name: 'data_dir', status: 'ok', detail: `${env.dir} is writable: a probe file was created, written, synced and removed` });
      // One file opened, in the data dir, named as the stale-temp cleanup knows temp files.
      const opened = open.mock.calls.map((c) => String(c[0])).filter((f) => f.includes(WRITE_PROBE_NAME));
      expect(opened).toHaveLength(1);
      expect(path.dirname(opened[0]!)).toBe(env.dir);
      expect(path.basename(opened[0]!)).toMatch(new RegExp(`^${WRITE_PROBE_NAME}\\.${process.pid}\\.[0-9a-f]{12}\\.tmp$`));
      expect(probes()).toEqual([]);
      expect(fs.readFileSync(db).equals(before.bytes)).toBe(true);
      expect(fs.statSync(db).mtimeMs).toBe(before.mtime);
    });

    it('fails naming the dir, the step and the OS error code when the dir cannot be written (a read-only remount: EROFS)', () => {
      failProbe('openSync', 'EROFS');
      const d = env.stores.health.diagnose(storage);
      expect(d.status).toBe('degraded');
      expect(d.checks.find((c) => c.name === 'data_dir')).toEqual({
        name: 'data_dir',
        status: 'fail',
        detail: `the data dir ${env.dir} cannot be written now (create of a probe file failed with EROFS: the file system holding it is mounted read-only): writes that make files there (memory.db's journal, L1 files, backups, exports) fail until it can be written again`,
      });
      // The database check reads only: it still says ok, which is why data_dir exists.
      expect(d.checks.find((c) => c.name === 'database')!.status).toBe('ok');
      vi.restoreAllMocks();
      failProbe('openSync', 'EACCES');
      expect(check('data_dir').detail).toContain('create of a probe file failed with EACCES: this process may not write there (permissions)');
      vi.restoreAllMocks();
      failProbe('openSync', 'EWEIRD');
      expect(check('data_dir').detail).toContain('failed with EWEIRD)');
      vi.restoreAllMocks();
      expect(check('data_dir').status).toBe('ok');
    });

    it('a probe that was made but could not be synced fails the check and is removed', () => {
      failProbe('fsyncSync', 'EIO');
      expect(check('data_dir')).toMatchObject({ status: 'fail', detail: expect.stringContaining('sync of a probe file failed with EIO: the disk reported an I/O error') });
      expect(probes()).toEqual([]);
    });

    it('a probe left by a process killed mid-check is removed by the start\'s stale-temp cleanup', () => {
      const left = path.join(env.dir, `${WRITE_PROBE_NAME}.999999999.0123456789ab.tmp`);
      fs.writeFileSync(left, 'memory-service write probe\n');
      expect(removeLeftTemps(env.dir)).toBe(1);
      expect(fs.existsSync(left)).toBe(false);
    });
  });

  it('a missing database file fails the database check', () => {
    fs.renameSync(path.join(env.dir, 'memory.db'), path.join(env.dir, 'moved.db'));
    expect(check('database')).toMatchObject({ status: 'fail', detail: expect.stringContaining('missing') });
  });

  it('reads the proposals of every scope: a backlog or an old pending proposal warns', () => {
    const add = (status: string, created: string) =>
      env.db.prepare("INSERT INTO proposals (layer, user_id, kind, payload, status, created) VALUES ('user', 'default', 'core_write', '{}', ?, ?)").run(status, created);
    add('pending', new Date(env.clock.t).toISOString());
    add('applied', new Date(env.clock.t - 2 * PROPOSAL_MAX_AGE_MS).toISOString());
    expect(check('proposals')).toEqual({ name: 'proposals', status: 'ok', detail: `1 pending proposal(s), oldest from ${new Date(env.clock.t).toISOString()}` });
    env.clock.advance(PROPOSAL_MAX_AGE_MS + 1);
    expect(check('proposals').status).toBe('warn');
    env.clock.advance(-PROPOSAL_MAX_AGE_MS - 1);
    for (let i = 1; i < PROPOSAL_BACKLOG_WARN; i++) add('pending', new Date(env.clock.t).toISOString());
    expect(check('proposals')).toMatchObject({ status: 'warn', detail: expect.stringContaining(`${PROPOSAL_BACKLOG_WARN} pending`) });
  });
});

describe('Health.heal', () => {
  it('remigrate re-applies what is pending and is idempotent; reset_breakers closes them; purge_invalid_l1 keeps a copy in backups/ first', async () => {
    env.stores.l1.push(U2, { text: 'hi bob' });
    env.stores.flush();
    const bad = env.stores.l1.fileFor(U2);
    fs.writeFileSync(bad, '{ not json');
    storage.db.prepare('DELETE FROM kernel_migrations WHERE owner = ? AND id = 13').run(STORES_OWNER);
    env.stores.breakers.get('deferred_writes').failure(new Error('x'));
    const out = await env.stores.health.heal(['remigrate', 'reset_breakers', 'purge_invalid_l1'], storage);
    expect(out[0]).toMatchObject({ action: 'remigrate', applied: { [STORES_OWNER]: [13] } });
    expect(out[1]).toMatchObject({ action: 'reset_breakers', reset: ['deferred_writes'] });
    expect(out[2]).toMatchObject({ action: 'purge_invalid_l1', removed: [path.join('l1', 'user', 'bob.json')] });
    const copy = path.join(env.dir, out[2]!.backed_up![0]!);
    expect(copy.startsWith(path.join(env.dir, 'backups', 'l1-invalid'))).toBe(true);
    expect(fs.readFileSync(copy, 'utf8')).toBe('{ not json');
    // The ring is canonical: its file is written again, valid.
    expect(JSON.parse(fs.readFileSync(bad, 'utf8')).items[0].text).toBe('hi bob');
    expect(env.stores.health.diagnose(storage).status).toBe('ok');
    const again = await env.stores.health.heal(['remigrate', 'reset_breakers', 'purge_invalid_l1'], storage);
    expect(again.map((r) => r.detail)).toEqual(['every migration was already applied', 'every breaker was already closed', 'every L1 file is valid']);
  });
});
