import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeEnv, recordingLogger, U, type Env, type RecordingLogger } from '../test-helpers.js';

/**
 * Backups, the replica and export files are files of the data dir beside memory.db: a failure of
 * the environment while writing one (the disk full, a read-only file system, no file descriptors
 * left) is a KERNEL_ERR_STORAGE naming the file and what to do. The failures are made by stubs, as
 * SQLite and Node give them: a full disk or a read-only remount needs a mount of its own.
 */
let env: Env & { logger: RecordingLogger };
beforeEach(() => {
  const logger = recordingLogger();
  env = Object.assign(makeEnv({}, logger), { logger });
  env.stores.facts.upsert(U, { key: 'city', value: 'Lisbon' });
});
afterEach(() => {
  vi.restoreAllMocks();
  env.close();
});

const sqliteError = (code: string, message: string) => Object.assign(new Error(message), { name: 'SqliteError', code });
const fsError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('a backup the environment refuses', () => {
  // Regression guard, fixed: out of file descriptors, memory_backup now answered SQLite's bare "unable to open database file".
  it('names the backup file and says the process may be out of file descriptors when SQLite cannot open it, and leaves no partial file', async () => {
    vi.spyOn(Object.getPrototypeOf(env.db) as typeof env.db, 'backup').mockRejectedValue(sqliteError('SQLITE_CANTOPEN', 'unable to open database file'));
    const err = await env.stores.backups.create().catch((e: unknown) => e);
    const file = path.join(env.dir, 'backups', 'manual-20260101T000000000Z.db');
    expect(err).toMatchObject({ code: 'KERNEL_ERR_STORAGE', type: 'StorageError' });
    expect((err as Error).message).toBe(
      `taking a backup into ${file} failed: SQLite could not open it (unable to open database file): the process may be out of file descriptors (its limit, ulimit -n, is reached), or ${path.dirname(file)} may not be reachable (removed, unmounted or not accessible)`,
    );
    expect(fs.readdirSync(path.join(env.dir, 'backups'))).toEqual([]);
  });

  // Regression guard, fixed: memory_backup now on a full disk answered KERNEL_ERR_TOOL_FAILED "database or disk is full".
  it('names the backup file and says to free space when the disk is full', async () => {
    vi.spyOn(Object.getPrototypeOf(env.db) as typeof env.db, 'backup').mockRejectedValue(sqliteError('SQLITE_FULL', 'database or disk is full'));
    const err = await env.stores.backups.create().catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'KERNEL_ERR_STORAGE', message: expect.stringMatching(/^taking a backup into .*manual-\d{8}T\d{9}Z\.db failed: the disk holding .*backups is full \(database or disk is full\): free space on it/) });
  });

  // Regression guard, fixed: on a file system turned read-only, Node's recursive mkdirSync answered
  // "ENOENT: no such file or directory, mkdir '.../backups'" where the folder could not be made (EROFS).
  it('says the file system is read-only when the backups folder cannot be made, as mkdir answers it', async () => {
    const realMkdir = fs.mkdirSync;
    const dir = path.join(env.dir, 'backups');
    vi.spyOn(fs, 'mkdirSync').mockImplementation(((p: fs.PathLike, opts?: fs.MakeDirectoryOptions) => {
      if (p === dir) throw fsError('EROFS', `EROFS: read-only file system, mkdir '${dir}'`);
      return realMkdir(p, opts);
    }) as typeof fs.mkdirSync);
    const err = await env.stores.backups.create().catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'KERNEL_ERR_STORAGE',
      message: `creating the backups folder ${dir} failed: ${env.dir} is on a read-only file system or cannot be written by this user (EROFS: read-only file system, mkdir '${dir}'): make it writable, then try again`,
    });
  });

  it('is still taken when the queued bookkeeping cannot be written first (a memory.db moved away refuses it), saying so', async () => {
    const spy = vi.spyOn(env.stores, 'writeDeferred').mockImplementation(() => {
      throw new Error('the bookkeeping could not be written');
    });
    // Something queued: with nothing, no write is asked for.
    env.stores.defer(() => undefined);
    const taken = await env.stores.backups.create();
    expect(spy).toHaveBeenCalled();
    expect(fs.existsSync(path.join(env.dir, 'backups', taken.name))).toBe(true);
    expect(env.logger.lines).toContainEqual({ level: 'warn', message: expect.stringMatching(/^backup: the queued bookkeeping .* could not be written first, so the backup is taken without it: the bookkeeping could not be written$/) });
  });

  it('a restore whose backup cannot be read (an I/O error) names the backup and what failed, instead of calling the backup unusable', async () => {
    const taken = await env.stores.backups.create();
    // The first statement on the backup's own connection: verify's quick_check.
    vi.spyOn(env.db.constructor.prototype as { pragma: (...a: unknown[]) => unknown }, 'pragma').mockImplementationOnce(() => {
      throw sqliteError('SQLITE_IOERR_READ', 'disk I/O error');
    });
    const err = await env.stores.backups.restore(taken.name).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'KERNEL_ERR_STORAGE', message: expect.stringContaining(`reading the backup ${path.join(env.dir, 'backups', taken.name)} failed: the file system reported an I/O error (disk I/O error)`) });
    expect(env.stores.facts.get(U, 'city')?.value).toBe('Lisbon');
  });
});

describe('a replica sync the environment refuses', () => {
  // Regression guard, fixed: out of file descriptors, memory_sync_replica answered "unable to open database file".
  it('names replica.db and says the process may be out of file descriptors, leaving no temp file', async () => {
    vi.spyOn(Object.getPrototypeOf(env.db) as typeof env.db, 'backup').mockRejectedValue(sqliteError('SQLITE_CANTOPEN', 'unable to open database file'));
    const err = await env.stores.replica.sync(U).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'KERNEL_ERR_STORAGE', message: expect.stringContaining(`syncing the replica ${path.join(env.dir, 'replica.db')} failed: SQLite could not open it (unable to open database file): the process may be out of file descriptors`) });
    expect(fs.readdirSync(env.dir).filter((f) => f.startsWith('replica'))).toEqual([]);
  });
});

describe('an export file the environment refuses', () => {
  // Regression guard, fixed: an export to_file on a full disk answered "ENOSPC: no space left on device, write", naming no file.
  it('names the export file and says to free space when the disk is full', () => {
    const doc = env.stores.scopeData.exportScope(U);
    // The export file is written in pieces (scope-export.ts), through its temp file's descriptor.
    vi.spyOn(fs, 'writeSync').mockImplementation(() => {
      throw fsError('ENOSPC', 'ENOSPC: no space left on device, write');
    });
    let err: unknown;
    try {
      env.stores.scopeData.writeFile(doc);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({
      code: 'KERNEL_ERR_STORAGE',
      message: expect.stringMatching(/^writing the export file .*exports\/user-default-\d{8}T\d{9}Z\.json failed: the disk holding .*exports is full \(ENOSPC: no space left on device, write\): free space on it, then try again$/),
    });
    expect(fs.readdirSync(path.join(env.dir, 'exports'))).toEqual([]);
  });
});
