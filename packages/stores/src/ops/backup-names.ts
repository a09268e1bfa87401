import fs from 'node:fs';
import path from 'node:path';
import { StoreError } from '../errors.js';
import { isoOf } from '../util.js';

/** Backup file names: what they say (kind, clock time, `-n` at the same time) and how a finished copy takes a free one. */

/** A backup file name as list answers it and restore takes it. */
export const BACKUP_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}\.db$/;
/** The kinds of backup, each its own name prefix: `now`/the saga (manual), the scheduler, the copy taken before a restore. */
export const BACKUP_KINDS = ['manual', 'scheduled', 'pre-restore', 'saga'] as const;
export type BackupKind = (typeof BACKUP_KINDS)[number];

/** The most names a backup tries at one clock time (`-2`, `-3`, ...) before giving up. */
const MAX_SAME_TIME = 1000;

/** What link() answers on a file system without hard links (FAT, some network shares). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/** `20261126T152659123Z`: the clock's time, for a file name that sorts in time order. */
export function stamp(ms: number): string {
  return isoOf(ms).replace(/[-:.]/g, '');
}

/** The time a backup name holds (`<kind>-<stamp>[-n].db`), or null. */
export function timeOfName(name: string): string | null {
  const m = /-(\d{8})T(\d{2})(\d{2})(\d{2})(\d{3})Z(?:-\d+)?\.db$/.exec(name);
  if (!m) return null;
  const [, d, h, mi, s, ms] = m;
  return `${d!.slice(0, 4)}-${d!.slice(4, 6)}-${d!.slice(6, 8)}T${h}:${mi}:${s}.${ms}Z`;
}

/** The `-n` suffix of a name taken at the same clock time as another (1 without one). */
export function seqOf(name: string): number {
  const m = /Z-(\d+)\.db$/.exec(name);
  return m ? Number(m[1]) : 1;
}

/** The kind a backup name begins with, or `other` (a file put there by hand). */
export function kindOf(name: string): BackupKind | 'other' {
  return BACKUP_KINDS.find((k) => name.startsWith(`${k}-`)) ?? 'other';
}

/**
 * Give the finished copy `tmp` the first free name `<base>.db`, `<base>-2.db`, ... in `dir`, and
 * answer it: a hard link, which fails with EEXIST on a taken name, then the temp removed, so no
 * backup ever replaces another (a rename chosen after an existsSync let two processes backing up in
 * the same millisecond both take one name). On a file system without hard links the name is taken
 * by creating it exclusively and the copy renamed over it.
 */
export function linkToFreeName(tmp: string, dir: string, base: string): string {
  for (let n = 1; n <= MAX_SAME_TIME; n++) {
    const name = n === 1 ? `${base}.db` : `${base}-${n}.db`;
    const file = path.join(dir, name);
    try {
      fs.linkSync(tmp, file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (code === 'EEXIST') continue;
      if (!NO_HARD_LINKS.has(code)) throw err;
      try {
        fs.closeSync(fs.openSync(file, 'wx'));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') continue;
        throw e;
      }
      fs.renameSync(tmp, file);
      return name;
    }
    try {
      fs.unlinkSync(tmp);
    } catch {
      // The backup is in place under its name; the temp's other name goes with the start repair.
    }
    return name;
  }
  throw new StoreError('STORES_ERR_CONFLICT', `no free backup name for ${base} (${MAX_SAME_TIME} taken at that clock time); try again`);
}
