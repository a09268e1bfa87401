import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryError } from './errors.js';
import { fileFailureError, storageFailureError } from './storage-failures.js';

/** What better-sqlite3 throws: an Error (a SqliteError) whose code is SQLite's extended code. */
const sqliteError = (code: string, message: string) => Object.assign(new Error(message), { name: 'SqliteError', code });
/** What Node's fs throws. */
const fsError = (code: string, message: string) => Object.assign(new Error(message), { code });

const dir = path.join(path.sep, 'data', 'memory');
const file = path.join(dir, 'memory.db');

describe('storageFailureError: what the environment did to memory.db, as a KERNEL_ERR_STORAGE naming it and what to do', () => {
  // Regression guard, fixed: a full disk answered KERNEL_ERR_TOOL_FAILED "database or disk is full", naming no file and no remedy.
  it('a full disk (SQLITE_FULL) names the database, the data dir and says to free space, and that nothing was written when the call was rolled back', () => {
    const err = storageFailureError(file, sqliteError('SQLITE_FULL', 'database or disk is full'), { rolledBack: true });
    expect(err).toBeInstanceOf(MemoryError);
    expect(err).toMatchObject({ code: 'KERNEL_ERR_STORAGE', type: 'StorageError' });
    expect(err!.message).toBe(
      `cannot write to the database ${file}: the disk holding the data dir ${dir} is full (database or disk is full); the database holds nothing of this call (its transaction was rolled back). Free space on that disk (or point MCP_MEMORY_DATA_DIR at a disk with room), then call again`,
    );
    // Where the call's writes were not all in one transaction, nothing is claimed about them.
    expect(storageFailureError(file, sqliteError('SQLITE_FULL', 'database or disk is full'))!.message).not.toMatch(/holds nothing/);
  });

  // Regression guard, fixed: a file system turned read-only while running answered "disk I/O error" as a tool failure.
  it('an I/O error (SQLITE_IOERR and its extended codes) names the database, the code, the data dir and what to check', () => {
    for (const code of ['SQLITE_IOERR', 'SQLITE_IOERR_WRITE', 'SQLITE_IOERR_FSYNC', 'SQLITE_IOERR_SHORT_READ', 'SQLITE_IOERR_SHMMAP']) {
      const err = storageFailureError(file, sqliteError(code, 'disk I/O error'));
      expect(err, code).toMatchObject({ code: 'KERNEL_ERR_STORAGE' });
      expect(err!.message, code).toBe(
        `the database ${file} could not be read or written: the file system reported an I/O error (${code}: disk I/O error). The file system holding the data dir ${dir} may have turned read-only after an error, been unmounted or be failing: check it (mount, dmesg), then restart the server`,
      );
    }
    // SQLite out of memory is no fault of the disk.
    expect(storageFailureError(file, sqliteError('SQLITE_IOERR_NOMEM', 'out of memory'))).toBeUndefined();
  });

  it('a file of the database SQLite cannot open (SQLITE_CANTOPEN) says the process may be out of file descriptors or the data dir unreachable', () => {
    const err = storageFailureError(file, sqliteError('SQLITE_CANTOPEN', 'unable to open database file'));
    expect(err!.code).toBe('KERNEL_ERR_STORAGE');
    expect(err!.message).toContain(`SQLite could not open a file of the database ${file} (unable to open database file)`);
    expect(err!.message).toMatch(/out of file descriptors .*ulimit -n/);
    expect(err!.message).toContain(`the data dir ${dir} may no longer be reachable`);
  });

  it('a database SQLite finds moved (SQLITE_READONLY_DBMOVED) says so, and how to restart without losing what the server holds', () => {
    const err = storageFailureError(file, sqliteError('SQLITE_READONLY_DBMOVED', 'attempt to write a readonly database'));
    expect(err!.code).toBe('KERNEL_ERR_STORAGE');
    expect(err!.message).toContain(`cannot write to the database ${file}: it was moved, deleted or replaced while the server runs (attempt to write a readonly database)`);
    expect(err!.message).toMatch(/Restart the server/);
    expect(err!.message).toMatch(/memory_backup now.*memory_backup restore/);
  });

  it('finds the SQLite code on a cause, and answers a KERNEL_ERR_STORAGE made on the way (a store naming its own file) as it is', () => {
    const wrapped = new Error('could not save', { cause: sqliteError('SQLITE_IOERR_WRITE', 'disk I/O error') });
    expect(storageFailureError(file, wrapped)!.message).toContain('SQLITE_IOERR_WRITE');
    const own = new MemoryError('KERNEL_ERR_STORAGE', 'taking a backup into /data/memory/backups/x.db failed', { cause: sqliteError('SQLITE_FULL', 'database or disk is full') });
    expect(storageFailureError(file, own)).toBe(own);
    expect(storageFailureError(file, new Error('the handler wrapped it', { cause: own }))).toBe(own);
  });

  it('leaves every other error to the caller: other SQLite codes, and file system errors that are not the database\'s', () => {
    for (const err of [
      sqliteError('SQLITE_ERROR', 'no such table: notes'),
      sqliteError('SQLITE_CONSTRAINT_UNIQUE', 'UNIQUE constraint failed'),
      fsError('ENOSPC', 'ENOSPC: no space left on device, write'),
      new Error('plain'),
      'a bare string',
      undefined,
    ]) {
      expect(storageFailureError(file, err)).toBeUndefined();
    }
  });
});

describe('storageFailureError and a write that gave up on the write lock', () => {
  // Regression guard, fixed (audit-o finding 4): SQLITE_BUSY was left to the caller, and reached clients as "database is locked".
  it('is a KERNEL_ERR_BUSY naming memory.db, how long it waited (the call\'s time when the transaction did not measure it) and to try again', () => {
    for (const code of ['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT']) {
      const e = storageFailureError(file, new Error('could not save', { cause: sqliteError(code, 'database is locked') }), { elapsedMs: 10_250, rolledBack: true });
      expect(e, code).toMatchObject({ code: 'KERNEL_ERR_BUSY', type: 'BusyError', details: { waited_ms: 10_250 } });
      expect(e!.message).toBe(
        `the database ${file} is busy: another process holds its write lock (another server on this data dir, for instance one running a long memory_data import, a backup or a restore). This call waited 10.3 s for it and gave up; nothing of this call was written (its transaction was rolled back). Try again later: the call will work once that operation is done`,
      );
    }
  });
});

describe('fileFailureError: a file other than memory.db that could not be opened or written, named with what to do', () => {
  const backup = path.join(dir, 'backups', 'manual-20260101T000000000Z.db');

  // Regression guard, fixed: an export to_file on a full disk answered "ENOSPC: no space left on device, write", naming no file.
  it('a full disk (ENOSPC, EDQUOT, SQLITE_FULL) names the file and its folder and says to free space', () => {
    for (const err of [fsError('ENOSPC', 'ENOSPC: no space left on device, write'), fsError('EDQUOT', 'EDQUOT: disk quota exceeded, write'), sqliteError('SQLITE_FULL', 'database or disk is full')]) {
      const e = fileFailureError(backup, err, 'taking a backup into');
      expect(e).toMatchObject({ code: 'KERNEL_ERR_STORAGE', type: 'StorageError' });
      expect(e!.message).toBe(`taking a backup into ${backup} failed: the disk holding ${path.dirname(backup)} is full (${err.message}): free space on it, then try again`);
      expect(e!.cause).toBe(err);
    }
  });

  // Regression guard, fixed: backup and sync_replica out of file descriptors answered SQLite's bare "unable to open database file".
  it('a file SQLite cannot open (SQLITE_CANTOPEN) and no file descriptors left (EMFILE, ENFILE) say the process may be out of them', () => {
    const cantOpen = fileFailureError(backup, sqliteError('SQLITE_CANTOPEN', 'unable to open database file'), 'taking a backup into');
    expect(cantOpen!.message).toBe(
      `taking a backup into ${backup} failed: SQLite could not open it (unable to open database file): the process may be out of file descriptors (its limit, ulimit -n, is reached), or ${path.dirname(backup)} may not be reachable (removed, unmounted or not accessible)`,
    );
    for (const code of ['EMFILE', 'ENFILE']) {
      const e = fileFailureError(backup, fsError(code, `${code}: too many open files, open '${backup}'`), 'taking a backup into');
      expect(e!.message, code).toMatch(/failed: the process is out of file descriptors .*ulimit -n/);
    }
  });

  it('a read-only place (EROFS, EACCES, SQLITE_READONLY) and an I/O error (EIO, SQLITE_IOERR_*) are named too', () => {
    expect(fileFailureError(backup, fsError('EROFS', 'EROFS: read-only file system, mkdir'), 'creating the backups folder')!.message).toContain(
      `creating the backups folder ${backup} failed: ${path.dirname(backup)} is on a read-only file system or cannot be written by this user (EROFS: read-only file system, mkdir)`,
    );
    expect(fileFailureError(backup, sqliteError('SQLITE_IOERR_WRITE', 'disk I/O error'), 'syncing the replica')!.message).toMatch(/I\/O error \(disk I\/O error\).*mount, dmesg/);
    expect(fileFailureError(backup, fsError('EIO', 'EIO: i/o error, write'), 'writing the export file')!.code).toBe('KERNEL_ERR_STORAGE');
  });

  it('takes only the kinds asked for, finds a code on a cause, and leaves anything else (a damaged backup, a missing file) to the caller', () => {
    const full = sqliteError('SQLITE_FULL', 'database or disk is full');
    expect(fileFailureError(backup, full, 'reading the backup', ['descriptors', 'cantopen', 'io'])).toBeUndefined();
    expect(fileFailureError(backup, new Error('wrapped', { cause: full }), 'taking a backup into')!.message).toMatch(/is full/);
    for (const err of [sqliteError('SQLITE_NOTADB', 'file is not a database'), sqliteError('SQLITE_CORRUPT', 'database disk image is malformed'), fsError('ENOENT', 'ENOENT: no such file or directory'), new Error('plain')]) {
      expect(fileFailureError(backup, err, 'reading the backup')).toBeUndefined();
    }
    const own = new MemoryError('KERNEL_ERR_STORAGE', 'already said');
    expect(fileFailureError(backup, own, 'reading the backup')).toBe(own);
  });
});
