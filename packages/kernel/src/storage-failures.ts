import path from 'node:path';
import { MemoryError } from './errors.js';
import { lockWaitOf } from './sql-transaction.js';

/**
 * The storage failures the kernel names: what the environment did to memory.db or to another file
 * of the data dir (a full disk, a file system turned read-only or failing, a file moved away, no
 * file descriptors left), as a KERNEL_ERR_STORAGE that names the file and what to do. SQLite's and
 * Node's own messages ("database or disk is full", "disk I/O error", "unable to open database
 * file", "ENOSPC: no space left on device, write") name neither.
 */

/** What to do about a database file this user cannot write. */
export function readOnlyAdvice(file: string): string {
  return `make it writable by this user (chmod u+w ${file}, or chown it to this user; its -wal and -shm files too), or point MCP_MEMORY_DATA_DIR at a writable directory`;
}

/** Whether a SQLite code is `base` or one of its extended codes (SQLITE_IOERR_WRITE is an SQLITE_IOERR). */
function isCode(code: string, base: string): boolean {
  return code === base || code.startsWith(`${base}_`);
}

/** SQLITE_IOERR_NOMEM is SQLite out of memory, not an I/O error of the disk. */
const isIoError = (code: string): boolean => isCode(code, 'SQLITE_IOERR') && code !== 'SQLITE_IOERR_NOMEM';

/**
 * The first of the error and its causes that is a KERNEL_ERR_STORAGE already made (by a store, for
 * a file it names), or that carries a SQLite code (SQLITE_*); undefined when none does.
 */
function sqliteFailure(err: unknown): MemoryError | { code: string; message: string } | undefined {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof MemoryError && (e.code === 'KERNEL_ERR_STORAGE' || e.code === 'KERNEL_ERR_BUSY')) return e;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('SQLITE_')) return { code, message: String((e as { message?: unknown }).message ?? code) };
  }
  return undefined;
}

export interface StorageFailureOptions {
  /**
   * The call's writes were all in one transaction, rolled back when the statement failed: a full
   * disk's error then says the database holds nothing of the call.
   */
  rolledBack?: boolean;
  /**
   * How long the call had run when it failed, in ms: how long a write that gave up on the write
   * lock waited, when the transaction did not measure it itself (lockWaitOf).
   */
  elapsedMs?: number;
}

/**
 * KERNEL_ERR_BUSY: a write that waited the whole busy timeout for the database's write lock, held by
 * another connection (another server process on the data dir, say one running a long memory_data
 * import, a backup or a restore), and gave up. Says so, how long it waited and that a later call
 * will work: SQLite's own "database is locked" said none of it. `what` is what waited (a call, a
 * restore; it starts a sentence), `written` what that means for its writes.
 */
export function lockWaitError(file: string, waitedMs: number | undefined, opts: { what?: string; written?: string; cause?: unknown } = {}): MemoryError {
  const waited = waitedMs === undefined ? '' : ` ${(Math.max(0, waitedMs) / 1000).toFixed(1)} s`;
  const what = opts.what ?? 'This call';
  const written = opts.written ?? 'the write that waited was not made';
  return new MemoryError(
    'KERNEL_ERR_BUSY',
    `the database ${file} is busy: another process holds its write lock (another server on this data dir, for instance one running a long memory_data import, a backup or a restore). ${what} waited${waited} for it and gave up; ${written}. Try again later: the call will work once that operation is done`,
    { cause: opts.cause, details: waitedMs === undefined ? undefined : { waited_ms: Math.round(waitedMs) } },
  );
}

/**
 * A KERNEL_ERR_STORAGE naming the database and what to do, for a statement SQLite refused (on the
 * error or one of its causes) because:
 * - the database is damaged (SQLITE_CORRUPT, SQLITE_NOTADB: "database disk image is malformed");
 * - it is read-only (SQLITE_READONLY and its extended codes), or was moved or deleted
 *   (SQLITE_READONLY_DBMOVED, which SQLite only checks with a rollback journal: in WAL mode Storage
 *   checks the file itself, checkFileInPlace);
 * - the disk is full (SQLITE_FULL);
 * - the file system failed a read or a write (SQLITE_IOERR and its extended codes: a file system
 *   remounted read-only after an error, unmounted, failing);
 * - a file of the database could not be opened (SQLITE_CANTOPEN: out of file descriptors, the data
 *   dir gone).
 * A write that gave up waiting for the write lock (SQLITE_BUSY and its extended codes) is a
 * KERNEL_ERR_BUSY instead (lockWaitError), which a later call gets past without anyone acting.
 * A KERNEL_ERR_STORAGE or KERNEL_ERR_BUSY already made on the way (a store's, naming its own file)
 * is answered as it is. Undefined for any other error.
 */
export function storageFailureError(file: string, err: unknown, opts: StorageFailureOptions = {}): MemoryError | undefined {
  const sqlite = sqliteFailure(err);
  if (!sqlite) return undefined;
  if (sqlite instanceof MemoryError) return sqlite;
  const { code, message } = sqlite;
  const dir = path.dirname(file);
  const failure = (text: string) => new MemoryError('KERNEL_ERR_STORAGE', text, { cause: err });
  if (isCode(code, 'SQLITE_BUSY')) {
    return lockWaitError(file, lockWaitOf(err) ?? opts.elapsedMs, {
      written: opts.rolledBack ? 'nothing of this call was written (its transaction was rolled back)' : undefined,
      cause: err,
    });
  }
  if (isCode(code, 'SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return failure(
      `the database ${file} is damaged (${message}): restore it from a backup (memory_backup list, then restore), or stop the server and move it away with its -wal and -shm files to start with an empty memory`,
    );
  }
  if (code === 'SQLITE_READONLY_DBMOVED') return movedError(file, message, err);
  if (isCode(code, 'SQLITE_READONLY')) return failure(`cannot write to the database ${file}: it is read-only (${message}); ${readOnlyAdvice(file)}`);
  if (isCode(code, 'SQLITE_FULL')) {
    const nothing = opts.rolledBack ? '; the database holds nothing of this call (its transaction was rolled back)' : '';
    return failure(
      `cannot write to the database ${file}: the disk holding the data dir ${dir} is full (${message})${nothing}. Free space on that disk (or point MCP_MEMORY_DATA_DIR at a disk with room), then call again`,
    );
  }
  if (isIoError(code)) {
    return failure(
      `the database ${file} could not be read or written: the file system reported an I/O error (${code}: ${message}). The file system holding the data dir ${dir} may have turned read-only after an error, been unmounted or be failing: check it (mount, dmesg), then restart the server`,
    );
  }
  if (isCode(code, 'SQLITE_CANTOPEN')) {
    return failure(
      `SQLite could not open a file of the database ${file} (${message}): the process may be out of file descriptors (its limit, ulimit -n, is reached), or the data dir ${dir} may no longer be reachable (removed, unmounted or not readable)`,
    );
  }
  return undefined;
}

/**
 * The KERNEL_ERR_STORAGE for a write to a database whose file is no longer at its path: moved,
 * deleted or replaced while the server runs. The connection still has the old file open, so the
 * write would succeed, and be lost at the next start, which opens whatever is at the path.
 */
export function movedError(file: string, what: string, cause?: unknown): MemoryError {
  return new MemoryError(
    'KERNEL_ERR_STORAGE',
    `cannot write to the database ${file}: it was moved, deleted or replaced while the server runs (${what}); the write is refused, since the next start would not see it. Restart the server to open ${file} again; to keep what this server holds, take a backup first (memory_backup now copies the database it has open) and restore it after the restart (memory_backup restore). A file moved away and put back is written again`,
    cause === undefined ? {} : { cause },
  );
}

/** What a failure of a file other than the live database comes to, by its code. */
export type FileFailureKind = 'full' | 'read-only' | 'descriptors' | 'cantopen' | 'io';

const ERRNO_KINDS: Record<string, FileFailureKind> = {
  ENOSPC: 'full',
  EDQUOT: 'full',
  EROFS: 'read-only',
  EACCES: 'read-only',
  EPERM: 'read-only',
  EMFILE: 'descriptors',
  ENFILE: 'descriptors',
  EIO: 'io',
};

function fileFailureKind(code: string): FileFailureKind | undefined {
  if (code.startsWith('SQLITE_')) {
    if (isCode(code, 'SQLITE_FULL')) return 'full';
    if (isCode(code, 'SQLITE_READONLY')) return 'read-only';
    if (isCode(code, 'SQLITE_CANTOPEN')) return 'cantopen';
    if (isIoError(code)) return 'io';
    return undefined;
  }
  return ERRNO_KINDS[code];
}

/**
 * A KERNEL_ERR_STORAGE for a file of the data dir other than the live database (a backup, the
 * replica, an export file) that could not be opened, created or written, for a reason of the
 * environment: the disk full (SQLITE_FULL, ENOSPC, EDQUOT), a read-only or forbidden place
 * (SQLITE_READONLY, EROFS, EACCES, EPERM), no file descriptors left (EMFILE, ENFILE), a file SQLite
 * could not open (SQLITE_CANTOPEN), an I/O error (SQLITE_IOERR, EIO); on the error or one of its
 * causes. The message says `${doing} ${file} failed`, why, and what to do. `kinds` narrows the
 * failures taken (a read has no use for "full"). A KERNEL_ERR_STORAGE already made is answered as
 * it is; undefined for any other error (a damaged backup, a bad name), which stays the caller's.
 */
export function fileFailureError(file: string, err: unknown, doing: string, kinds?: readonly FileFailureKind[]): MemoryError | undefined {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof MemoryError && e.code === 'KERNEL_ERR_STORAGE') return e;
    const code = (e as { code?: unknown }).code;
    const kind = typeof code === 'string' ? fileFailureKind(code) : undefined;
    if (!kind || (kinds && !kinds.includes(kind))) continue;
    const message = String((e as { message?: unknown }).message ?? code);
    const dir = path.dirname(file);
    const why: Record<FileFailureKind, string> = {
      full: `the disk holding ${dir} is full (${message}): free space on it, then try again`,
      'read-only': `${dir} is on a read-only file system or cannot be written by this user (${message}): make it writable, then try again`,
      descriptors: `the process is out of file descriptors (${message}): raise its limit (ulimit -n) and restart the server, or try again when fewer files are open`,
      cantopen: `SQLite could not open it (${message}): the process may be out of file descriptors (its limit, ulimit -n, is reached), or ${dir} may not be reachable (removed, unmounted or not accessible)`,
      io: `the file system reported an I/O error (${message}): the file system holding ${dir} may have turned read-only after an error, been unmounted or be failing; check it (mount, dmesg)`,
    };
    return new MemoryError('KERNEL_ERR_STORAGE', `${doing} ${file} failed: ${why[kind]}`, { cause: err });
  }
  return undefined;
}
