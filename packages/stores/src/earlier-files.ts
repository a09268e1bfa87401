import fs from 'node:fs';
import path from 'node:path';
import { makeDirs, MemoryError, safeJoin } from '@memory-service/kernel';
import { SNAPSHOT_DIR } from './retrieval/index-sync.js';

/** The folders of files the stores write beside the database from its rows: L1 files, wiki page files, saved indexes. */
export const EARLIER_FILE_DIRS: readonly string[] = ['l1', 'wiki', SNAPSHOT_DIR];
/** Where setAsideEarlierFiles moves them, under the data dir. */
export const EARLIER_FILES_DIR = 'earlier-files';

/** Whether a folder holds a file at any depth. */
function holdsFile(dir: string): boolean {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  return entries.some((e) => (e.isDirectory() ? holdsFile(path.join(dir, e.name)) : true));
}

/**
 * For a database made anew (Storage.fresh) in a data dir that already holds files written from an
 * earlier one: move those folders (EARLIER_FILE_DIRS, each only if it holds a file) into
 * `<data_dir>/earlier-files/<time>/`, so the new, empty tables do not overwrite them (the start-up
 * L1 repair rewrote each L1 file from its now empty ring, the only copy left of those turns).
 * Nothing is deleted. Returns the folders moved and where, or null when there was none. A folder
 * that cannot be moved refuses the start, naming it: going on would overwrite it.
 */
export function setAsideEarlierFiles(dataDir: string, now: number): { moved: string[]; to: string } | null {
  const found = EARLIER_FILE_DIRS.filter((d) => holdsFile(safeJoin(dataDir, d)));
  if (found.length === 0) return null;
  const to = safeJoin(dataDir, EARLIER_FILES_DIR, new Date(now).toISOString().replace(/[:.]/g, '-'));
  for (const d of found) {
    try {
      makeDirs(to);
      fs.renameSync(safeJoin(dataDir, d), path.join(to, d));
    } catch (err) {
      throw new MemoryError(
        'KERNEL_ERR_STORAGE',
        `the database was made anew, but ${safeJoin(dataDir, d)} holds files written from an earlier one and could not be moved to ${to} (${(err as Error).message}): move it away yourself, or put the earlier memory.db back, before starting`,
      );
    }
  }
  return { moved: found, to };
}
