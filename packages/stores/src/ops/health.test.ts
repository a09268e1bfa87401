import fs from 'node:fs';
import path from 'node:path';
import { silentLogger, Storage } from '@memory-service/kernel';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { STORES_OWNER } from '../kernel-binding.js';
import { storesMigrations } from '../migrations/index.js';
import { makeEnv, U, U2, type Env } from '../test-helpers.js';
import { BREAKER_THRESHOLD } from './breakers.js';
import { LOW_DISK_BYTES, PROPOSAL_BACKLOG_WARN, PROPOSAL_MAX_AGE_MS } from './health.js';

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
    expect(d.checks.map((c) => c.name)).toEqual(['database', 'migrations', 'l1_files', 'proposals', 'breakers', 'nightly', 'sagas']);
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
  it('remigrate re-applies what is pending and is idempotent; reset_breakers closes them; purge_invalid_l1 keeps a copy in backups/ first', () => {
    env.stores.l1.push(U2, { text: 'hi bob' });
    env.stores.flush();
    const bad = env.stores.l1.fileFor(U2);
    fs.writeFileSync(bad, '{ not json');
    storage.db.prepare('DELETE FROM kernel_migrations WHERE owner = ? AND id = 13').run(STORES_OWNER);
    env.stores.breakers.get('deferred_writes').failure(new Error('x'));
    const out = env.stores.health.heal(['remigrate', 'reset_breakers', 'purge_invalid_l1'], storage);
    expect(out[0]).toMatchObject({ action: 'remigrate', applied: { [STORES_OWNER]: [13] } });
    expect(out[1]).toMatchObject({ action: 'reset_breakers', reset: ['deferred_writes'] });
    expect(out[2]).toMatchObject({ action: 'purge_invalid_l1', removed: [path.join('l1', 'user', 'bob.json')] });
    const copy = path.join(env.dir, out[2]!.backed_up![0]!);
    expect(copy.startsWith(path.join(env.dir, 'backups', 'l1-invalid'))).toBe(true);
    expect(fs.readFileSync(copy, 'utf8')).toBe('{ not json');
    // The ring is canonical: its file is written again, valid.
    expect(JSON.parse(fs.readFileSync(bad, 'utf8')).items[0].text).toBe('hi bob');
    expect(env.stores.health.diagnose(storage).status).toBe('ok');
    const again = env.stores.health.heal(['remigrate', 'reset_breakers', 'purge_invalid_l1'], storage);
    expect(again.map((r) => r.detail)).toEqual(['every migration was already applied', 'every breaker was already closed', 'every L1 file is valid']);
  });
});
