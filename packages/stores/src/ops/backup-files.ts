import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '@memory-service/kernel';
import { isInside, removeStaleTemps, safeJoin, writeFileAtomic } from '../paths.js';
import {
  isLegacyStandingName,
  renamedStandingName,
  renamedStandingText,
  savedStandingName,
  STANDING_FOLDER,
  STANDING_NAME_MAX,
  STANDING_NAME_PATTERN,
  type StandingRename,
} from '../standing.js';
import { LAYERS, type Database } from '../types.js';

/**
 * The files of the data dir a backup holds besides the database: the standing query files
 * (`<data_dir>/.meta/standing/<layer>/<user_id segment>/<name>.yaml`), which live only as files.
 * They are written into a table of the backup copy (never of the live database), so a backup stays
 * one self-contained .db file; a restore reads the table from the backup file before anything
 * changes and makes the standing folder match it.
 */

/** The table of a backup copy that holds the files: each one's path relative to the data dir, with `/`, and its text. */
export const BACKUP_FILES_TABLE = 'backup_files';
/** A file larger than this (in bytes) is left out of a backup, and a row holding more is refused on restore. */
export const BACKUP_FILE_MAX_BYTES = 1_048_576;
/** The standing query folder relative to the data dir, as paths in the table start. */
export const STANDING_REL = STANDING_FOLDER.join('/');

/** A user_id segment as idSegment makes it: lower-case letters and digits, `-` inside. */
const SEGMENT = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const SEGMENT_MAX = 120;

export const BACKUP_FILE_PATH_ACCEPTED =
  `${STANDING_REL}/<layer>/<segment>/<name>.yaml: layer one of ${LAYERS.join(', ')}; segment lower-case letters, digits and inner "-" ` +
  `(at most ${SEGMENT_MAX}); name a standing query name (1 to ${STANDING_NAME_MAX} ASCII letters and digits; an older build's name that also ` +
  `holds "_" or "-", not first, is taken and renamed); ` +
  `text of at most ${BACKUP_FILE_MAX_BYTES} bytes`;

/** What a backup did with the standing query files: how many it holds, how many it left out (reported on the logger). */
export interface BackupFilesSaved {
  saved: number;
  left_out: number;
}

/** What a restore did to the standing query files. */
export interface StandingFilesMatched {
  /** False when the backup holds no standing query files (taken before backups did): they were left as they were. */
  restored: boolean;
  /** Files written from the backup (missing, or with other text). */
  written: number;
  /** Standing query files the backup does not hold, removed (each one in the pre-restore backup). */
  removed: number;
  /** Files that already held the backup's text. */
  kept_unchanged: number;
  /** `.yaml` files of the standing folder neither a backup nor a restore takes (not regular files, too large, not a query name): not touched. */
  left_alone: number;
  /** Files that could not be written or removed (reported on the logger). */
  failed: number;
  /** Queries the backup holds under an older build's name (with `_` or `-`), restored under their new name (reported on the logger). */
  renamed: StandingRename[];
  /** Why nothing was done, when restored is false; else null. */
  skipped_reason: string | null;
}

/**
 * Whether `rel` (relative to the data dir, `/`-separated) names a standing query file a backup may
 * hold; with `legacy`, also one named by an older build (`_` or `-` in the name), which a restore
 * renames (renameLegacyBackupFiles).
 */
export function isStandingFilePath(rel: string, opts: { legacy?: boolean } = {}): boolean {
  const parts = rel.split('/');
  if (parts.length !== STANDING_FOLDER.length + 3) return false;
  if (STANDING_FOLDER.some((p, i) => parts[i] !== p)) return false;
  const [layer, segment, file] = parts.slice(STANDING_FOLDER.length) as [string, string, string];
  if (!(LAYERS as readonly string[]).includes(layer)) return false;
  if (segment.length > SEGMENT_MAX || !SEGMENT.test(segment)) return false;
  if (!file.endsWith('.yaml')) return false;
  const name = file.slice(0, -'.yaml'.length);
  if (opts.legacy && isLegacyStandingName(name)) return true;
  return name.length > 0 && name.length <= STANDING_NAME_MAX && STANDING_NAME_PATTERN.test(name);
}

/**
 * A backup's files with those an older build named with `_` or `-` renamed as the start renames
 * them (renamedStandingName: taken are the other files of the same folder in the backup), their
 * saved name changed to match. The others are kept as they are.
 */
export function renameLegacyBackupFiles(files: Map<string, string>): { files: Map<string, string>; renamed: StandingRename[] } {
  const out = new Map<string, string>();
  const taken = new Map<string, Set<string>>();
  const legacy: [string, string, string, string][] = [];
  for (const [rel, content] of files) {
    const cut = rel.lastIndexOf('/');
    const folder = rel.slice(0, cut);
    const stem = rel.slice(cut + 1, -'.yaml'.length);
    if (!taken.has(folder)) taken.set(folder, new Set());
    if (isLegacyStandingName(stem)) legacy.push([rel, folder, stem, content]);
    else {
      out.set(rel, content);
      taken.get(folder)!.add(stem.toLowerCase());
    }
  }
  const renamed: StandingRename[] = [];
  for (const [, folder, stem, content] of legacy.sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const names = taken.get(folder)!;
    const from = savedStandingName(content, stem.toLowerCase());
    const to = renamedStandingName(from, (lower) => names.has(lower));
    names.add(to.toLowerCase());
    out.set(`${folder}/${to.toLowerCase()}.yaml`, renamedStandingText(content, to));
    renamed.push({ folder, from, to });
  }
  return { files: out, renamed };
}

/** A real directory (a symlink to one is not followed). */
function isRealDir(abs: string): boolean {
  try {
    return fs.lstatSync(abs).isDirectory();
  } catch {
    return false;
  }
}

interface Scanned {
  /** Files a backup takes: path relative to the data dir, absolute path. */
  taken: { rel: string; abs: string }[];
  /** `.yaml` entries of the segment folders a backup leaves out, with why. */
  leftOut: { rel: string; why: string }[];
  /** The segment folders walked (for the temp files of killed writes). */
  dirs: string[];
}

/**
 * The `.yaml` entries of `<data_dir>/.meta/standing/<layer>/<segment>/`, through real directories
 * only (a symlinked folder could lead out of the data dir): regular files of a standing query name
 * and at most BACKUP_FILE_MAX_BYTES are taken, the others left out. Other entries are no standing
 * query files and are not looked at.
 */
function scan(dataDir: string): Scanned {
  const out: Scanned = { taken: [], leftOut: [], dirs: [] };
  const root = safeJoin(dataDir, ...STANDING_FOLDER);
  if (!isRealDir(path.dirname(root)) || !isRealDir(root)) return out;
  for (const layer of LAYERS) {
    const layerDir = path.join(root, layer);
    if (!isRealDir(layerDir)) continue;
    for (const segment of fs.readdirSync(layerDir)) {
      const dir = path.join(layerDir, segment);
      if (!isRealDir(dir)) continue;
      out.dirs.push(dir);
      for (const file of fs.readdirSync(dir)) {
        if (!file.endsWith('.yaml')) continue;
        const rel = `${STANDING_REL}/${layer}/${segment}/${file}`;
        const abs = path.join(dir, file);
        const st = fs.lstatSync(abs, { throwIfNoEntry: false });
        if (!st) continue;
        if (!isStandingFilePath(rel)) out.leftOut.push({ rel, why: 'its folder or file name is not one of a standing query' });
        else if (!st.isFile()) out.leftOut.push({ rel, why: 'it is not a regular file' });
        else if (st.size > BACKUP_FILE_MAX_BYTES) out.leftOut.push({ rel, why: `it is larger than ${BACKUP_FILE_MAX_BYTES} bytes` });
        else out.taken.push({ rel, abs });
      }
    }
  }
  return out;
}

/** The file's text, or null when its bytes are not UTF-8 text (a TEXT column would not give them back as they are). */
function readText(abs: string): string | null {
  const bytes = fs.readFileSync(abs);
  const text = bytes.toString('utf8');
  return Buffer.byteLength(text, 'utf8') === bytes.length && Buffer.from(text, 'utf8').equals(bytes) ? text : null;
}

/** The standing query files a backup takes, with their text, and the `.yaml` entries it leaves out, with why. */
function collect(dataDir: string): { rows: { path: string; abs: string; content: string }[]; leftOut: { rel: string; why: string }[]; dirs: string[] } {
  const found = scan(dataDir);
  const rows: { path: string; abs: string; content: string }[] = [];
  const leftOut = [...found.leftOut];
  for (const f of found.taken) {
    let text: string | null;
    try {
      text = readText(f.abs);
    } catch (err) {
      leftOut.push({ rel: f.rel, why: `it could not be read: ${(err as Error).message}` });
      continue;
    }
    if (text === null) leftOut.push({ rel: f.rel, why: 'it is not UTF-8 text' });
    else rows.push({ path: f.rel, abs: f.abs, content: text });
  }
  return { rows, leftOut, dirs: found.dirs };
}

/**
 * Write the data dir's standing query files into `copy` (a backup copy's own connection, never the
 * live database): the table is made anew, so one a live database held by mistake is not carried on.
 * A file left out is reported on the logger and counted.
 */
export function saveBackupFiles(copy: Database, dataDir: string, logger: Logger): BackupFilesSaved {
  const { rows, leftOut } = collect(dataDir);
  for (const l of leftOut) logger.warn(`backup: standing query file ${l.rel} left out: ${l.why}`);
  copy.exec(`DROP TABLE IF EXISTS ${BACKUP_FILES_TABLE}; CREATE TABLE ${BACKUP_FILES_TABLE} (path TEXT PRIMARY KEY, content TEXT NOT NULL)`);
  const insert = copy.prepare(`INSERT INTO ${BACKUP_FILES_TABLE} (path, content) VALUES (?, ?)`);
  copy.transaction(() => rows.forEach((r) => insert.run(r.path, r.content)))();
  return { saved: rows.length, left_out: leftOut.length };
}

/**
 * The files a backup holds, checked: null when it has no table (a backup taken before backups held
 * files). A row whose path is not a standing query file's (`..`, an absolute path, another folder,
 * not `.yaml`) or whose text is not a text of at most BACKUP_FILE_MAX_BYTES throws, naming it.
 */
export function readBackupFiles(db: Database): Map<string, string> | null {
  if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(BACKUP_FILES_TABLE)) return null;
  const out = new Map<string, string>();
  const rows = db.prepare(`SELECT path, content FROM ${BACKUP_FILES_TABLE}`).iterate() as IterableIterator<{ path: unknown; content: unknown }>;
  for (const r of rows) {
    const shown = typeof r.path === 'string' ? JSON.stringify(r.path.slice(0, 200)) : String(r.path);
    if (typeof r.path !== 'string' || !isStandingFilePath(r.path, { legacy: true })) {
      throw new Error(`its ${BACKUP_FILES_TABLE} table holds the path ${shown}, which is not accepted (accepted: ${BACKUP_FILE_PATH_ACCEPTED})`);
    }
    if (typeof r.content !== 'string' || Buffer.byteLength(r.content, 'utf8') > BACKUP_FILE_MAX_BYTES) {
      throw new Error(`its ${BACKUP_FILES_TABLE} table holds for ${shown} no text of at most ${BACKUP_FILE_MAX_BYTES} bytes`);
    }
    out.set(r.path, r.content);
  }
  return out;
}

/** The first existing folder at or above `abs`, resolved through symlinks, lies inside the data dir (itself resolved). */
function landsInside(dataDir: string, abs: string): boolean {
  let dir = path.dirname(abs);
  while (!fs.existsSync(dir)) {
    const up = path.dirname(dir);
    if (up === dir) return false;
    dir = up;
  }
  return isInside(fs.realpathSync(dataDir), fs.realpathSync(dir));
}

export const SKIPPED_NO_FILES = 'the backup holds no standing query files (it was taken before backups held them): the standing query files were left as they are';

/**
 * Make the standing query folder match `files` (readBackupFiles of the backup restored): each file
 * written (atomically) unless it holds that text, and each standing query file the backup does not
 * hold removed, with the temp files of killed writes. Only files a backup would take are removed, so
 * the pre-restore backup holds each one; the other `.yaml` entries are left alone. `null` (a backup
 * without the table) changes nothing. Never throws on a file: a failure is counted and logged.
 */
export function matchStandingFiles(dataDir: string, files: Map<string, string> | null, logger: Logger): StandingFilesMatched {
  const out: StandingFilesMatched = { restored: files !== null, written: 0, removed: 0, kept_unchanged: 0, left_alone: 0, failed: 0, renamed: [], skipped_reason: null };
  if (files === null) return { ...out, skipped_reason: SKIPPED_NO_FILES };
  // A backup an older build took may name queries with `_` or `-`: restored under their new names.
  const renaming = renameLegacyBackupFiles(files);
  files = renaming.files;
  out.renamed = renaming.renamed;
  for (const r of out.renamed) {
    logger.warn(`restore: standing query renamed ${JSON.stringify(r.from)} -> ${JSON.stringify(r.to)} (${r.folder}): names are ASCII letters and digits only now (the spec: alphanumeric)`);
  }
  // What is there now, as a backup would take it: the pre-restore backup holds each of these.
  const before = collect(dataDir);
  out.left_alone = before.leftOut.length;
  for (const [rel, content] of files) {
    try {
      // Checked again here (readBackupFiles did): no path is written that could leave the data dir.
      if (!isStandingFilePath(rel)) throw new Error('not a standing query file path');
      const abs = safeJoin(dataDir, ...rel.split('/'));
      if (!landsInside(dataDir, abs)) throw new Error('its folder leads out of the data dir');
      const st = fs.lstatSync(abs, { throwIfNoEntry: false });
      if (st?.isFile() && st.size === Buffer.byteLength(content, 'utf8') && fs.readFileSync(abs, 'utf8') === content) {
        out.kept_unchanged++;
        continue;
      }
      writeFileAtomic(abs, content);
      out.written++;
    } catch (err) {
      out.failed++;
      logger.error(`restore: standing query file ${rel} not written: ${(err as Error).message}`);
    }
  }
  for (const f of before.rows) {
    if (files.has(f.path)) continue;
    try {
      fs.rmSync(f.abs, { force: true });
      out.removed++;
    } catch (err) {
      out.failed++;
      logger.error(`restore: standing query file ${f.path} not removed: ${(err as Error).message}`);
    }
  }
  for (const dir of before.dirs) removeStaleTemps(dir);
  return out;
}
