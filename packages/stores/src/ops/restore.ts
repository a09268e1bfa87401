import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { openSqlite, runTransaction, type Logger } from '@memory-service/kernel';
import type { Database } from '../types.js';
import type { WikiFilesMatched } from '../wiki-files.js';
import { API_KEYS_TABLE } from './api-keys.js';
import { BACKUP_FILES_TABLE, matchStandingFiles, type StandingFilesMatched } from './backup-files.js';

/**
 * The restore-pending marker: one row a restore writes into its staged copy of the backup, so the
 * copy into the live database carries it in, and that the restore drops once the file side is done.
 * A start that finds it finishes the restore (a process killed after the copy).
 */
export const RESTORE_PENDING_TABLE = 'restore_pending';

/**
 * Added to the change log's seq when a start finishes a restore: the marker's seq was read just
 * before the copy, and other processes on the database may have committed a few changes between
 * that read and the copy's write lock; restarting the log this far above makes every index of
 * theirs rebuild (one that stands exactly at the restart's seq is the only one that would not).
 */
export const RESTORE_RESTART_MARGIN = 1000;

/** What a restore still has to do after its copy, as its marker holds it. */
export interface PendingRestore {
  /** The backup restored, and the pre-restore copy taken first. */
  backup: string;
  safety: string;
  /** The change log's highest seq read just before the copy (RESTORE_RESTART_MARGIN). */
  top: number;
  /** The API keys to put back after the migrations; null when the staged copy already holds them. */
  keys: Record<string, unknown>[] | null;
  /** The standing query files of the backup (null: it held none, they are left as they are). */
  files: Map<string, string> | null;
}

/** The file side of a restore, once its copy is in the live database. */
export interface RestoreFinished {
  wiki_files: WikiFilesMatched;
  standing_files: StandingFilesMatched;
}

function hasTable(db: Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

/** Replace the API keys table's rows with `keys` (columns as read from the live table). */
function putKeys(db: Database, keys: readonly Record<string, unknown>[]): void {
  db.exec(`DELETE FROM ${API_KEYS_TABLE}`);
  for (const row of keys) {
    const cols = Object.keys(row);
    db.prepare(`INSERT INTO ${API_KEYS_TABLE} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`).run(...cols.map((c) => row[c]));
  }
}

/** Whether the API keys table of `db` takes every column of the live rows. */
function takesKeys(db: Database, liveColumns: readonly string[]): boolean {
  if (!hasTable(db, API_KEYS_TABLE)) return false;
  const cols = new Set((db.prepare(`PRAGMA table_info(${API_KEYS_TABLE})`).all() as { name: string }[]).map((c) => c.name));
  return liveColumns.every((c) => cols.has(c));
}

/**
 * Stage a restore: copy the backup file to `stage` (a temp name beside it, removed by the start
 * repair if the process dies now) and apply there what needs no migration, so that the copy into
 * the live database is the restore's one atomic step: the live API keys put back (when the
 * backup's table takes their columns; else they wait in the marker for the migrations), the files'
 * table dropped (the live database never holds it), a new restore token, and the marker written.
 * Answers the staged copy's connection, read-write, for the copy into the live database.
 */
export function stageRestore(
  backupFile: string,
  stage: string,
  p: { backup: string; safety: string; keys: Record<string, unknown>[]; liveKeyColumns: readonly string[]; files: Map<string, string> | null },
): Database {
  fs.copyFileSync(backupFile, stage);
  const db = openSqlite(stage, { readonly: false, fileMustExist: true });
  try {
    runTransaction(db, () => {
      const keysNow = takesKeys(db, p.liveKeyColumns);
      if (keysNow) putKeys(db, p.keys);
      db.exec(`DROP TABLE IF EXISTS ${BACKUP_FILES_TABLE}`);
      if (hasTable(db, 'restore_token')) db.prepare('UPDATE restore_token SET token = ? WHERE id = 1').run(randomUUID());
      db.exec(`DROP TABLE IF EXISTS ${RESTORE_PENDING_TABLE}`);
      db.exec(
        `CREATE TABLE ${RESTORE_PENDING_TABLE} (id INTEGER PRIMARY KEY CHECK (id = 1), backup TEXT NOT NULL, safety TEXT NOT NULL, top INTEGER NOT NULL, keys TEXT, files TEXT)`,
      );
      db.prepare(`INSERT INTO ${RESTORE_PENDING_TABLE} (id, backup, safety, top, keys, files) VALUES (1, ?, ?, 0, ?, ?)`).run(
        p.backup,
        p.safety,
        keysNow ? null : JSON.stringify(p.keys),
        p.files === null ? null : JSON.stringify([...p.files]),
      );
    });
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** Stamp the staged marker with the change log's seq read just before the copy. */
export function stampStagedTop(stage: Database, top: number): void {
  stage.prepare(`UPDATE ${RESTORE_PENDING_TABLE} SET top = ? WHERE id = 1`).run(top);
}

/**
 * Stamp the staged marker with the name of the safety backup, taken once the copy holds the live
 * database's write lock (the staged copy is the copy's source, and none of its pages is copied yet).
 */
export function stampStagedSafety(stage: Database, safety: string): void {
  stage.prepare(`UPDATE ${RESTORE_PENDING_TABLE} SET safety = ? WHERE id = 1`).run(safety);
}

/** The restore the live database holds as unfinished, or null. */
export function readPendingRestore(db: Database): PendingRestore | null {
  if (!hasTable(db, RESTORE_PENDING_TABLE)) return null;
  const row = db.prepare(`SELECT backup, safety, top, keys, files FROM ${RESTORE_PENDING_TABLE} WHERE id = 1`).get() as
    | { backup: string; safety: string; top: number; keys: string | null; files: string | null }
    | undefined;
  if (!row) return null;
  return {
    backup: row.backup,
    safety: row.safety,
    top: Number(row.top) || 0,
    keys: row.keys === null ? null : (JSON.parse(row.keys) as Record<string, unknown>[]),
    files: row.files === null ? null : new Map(JSON.parse(row.files) as [string, string][]),
  };
}

/**
 * The steps of a restore after its copy and the migrations, each safe to run again: the API keys
 * the marker still holds put back (and cleared from it in the same transaction, so a second run
 * never drops a key made since), a new restore token (the recall caches of every process drop their
 * answers), the wiki page files made to match the restored rows, the standing query files made
 * those of the backup, and the marker dropped last.
 */
export function finishRestore(
  live: { db: Database; dataDir: string; logger: Logger; tx<T>(fn: () => T): T },
  pending: PendingRestore,
  matchFiles: () => WikiFilesMatched,
): RestoreFinished {
  const { db, dataDir, logger } = live;
  live.tx(() => {
    if (pending.keys !== null) {
      putKeys(db, pending.keys);
      db.prepare(`UPDATE ${RESTORE_PENDING_TABLE} SET keys = NULL WHERE id = 1`).run();
    }
    db.prepare('UPDATE restore_token SET token = ? WHERE id = 1').run(randomUUID());
  });
  const wikiFiles = matchFiles();
  const standingFiles = matchStandingFiles(dataDir, pending.files, logger);
  db.exec(`DROP TABLE IF EXISTS ${RESTORE_PENDING_TABLE}`);
  return { wiki_files: wikiFiles, standing_files: standingFiles };
}
