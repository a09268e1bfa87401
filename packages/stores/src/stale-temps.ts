import fs from 'node:fs';
import path from 'node:path';
import { BACKUP_DIR, STALE_TEMP_IDLE_MS } from './ops/backups.js';
import { removeStaleTemps, safeJoin } from './paths.js';
import { SNAPSHOT_DIR } from './retrieval/index-sync.js';
import { EXPORTS_DIR } from './scope-data.js';
import { STANDING_FOLDER } from './standing.js';
import { LAYERS } from './types.js';

/** The sub-folders of `dir` (none when it cannot be read); links are not followed. */
function subdirs(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => path.join(dir, e.name));
  } catch {
    return [];
  }
}

/**
 * The folders of the data dir where the service writes through a temp file then a rename
 * (writeFileAtomic, a backup's or the replica's copy): the data dir itself (replica.db), backups/,
 * exports/, the L1 files (and `l1/.clean`, L1CleanStop), the saved retrieval indexes, the standing query files
 * (`.meta/standing/<layer>/<user segment>/`) and the CONTEXT.md snapshots (`<layer>/`,
 * `<layer>/users/<user segment>/`). Wiki page folders are repaired by the wiki's own file checks.
 */
export function tempFolders(dataDir: string): string[] {
  const dirs = [dataDir, safeJoin(dataDir, BACKUP_DIR), safeJoin(dataDir, EXPORTS_DIR), safeJoin(dataDir, SNAPSHOT_DIR), safeJoin(dataDir, 'l1')];
  for (const layer of LAYERS) {
    dirs.push(safeJoin(dataDir, 'l1', layer), safeJoin(dataDir, layer), ...subdirs(safeJoin(dataDir, layer, 'users')));
    dirs.push(...subdirs(safeJoin(dataDir, ...STANDING_FOLDER, layer)));
  }
  return dirs;
}

/**
 * Remove the temp files killed processes left in the data dir's folders (tempFolders): those whose
 * writer's pid is gone, or that no one wrote for STALE_TEMP_IDLE_MS (a pid reused by a later
 * process); a file another running process is writing is kept. Answers how many were removed.
 */
export function removeLeftTemps(dataDir: string): number {
  let removed = 0;
  for (const dir of tempFolders(dataDir)) removed += removeStaleTemps(dir, { idleMs: STALE_TEMP_IDLE_MS });
  return removed;
}
