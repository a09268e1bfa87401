import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { makeDirs, processAlive, type Logger } from '@memory-service/kernel';
import { safeJoin, writeFileAtomic } from './paths.js';

/**
 * What the L1 files are written as (their names, fileFor, and their body): a clean stop records it,
 * and a start whose build writes them otherwise compares every file with its ring. Raise it when
 * either changes, so the first start of that build renames or rewrites the files of the last one.
 */
export const L1_FILES_FORMAT = 1;

/** `<data_dir>/l1/.clean`: written by a process that stopped with every L1 file written, removed at each start. */
export const L1_CLEAN_FILE = '.clean';
/** `<data_dir>/l1/.running/<pid>.<hex>`: one per process serving the data dir, removed at its clean stop. */
export const L1_RUNNING_DIR = '.running';

/**
 * Whether the L1 files can be behind their rings at start, so that the start must compare each of
 * them with its ring (L1Ring.reconcileFiles: a read of every file, seconds at 10,000 scopes). They
 * can be unless every process that served the data dir since the files were last compared stopped
 * cleanly with its files written: a process killed between a change and its flush leaves a file
 * behind. So each process notes itself in `l1/.running/` when it starts and removes its note when
 * it stops cleanly, after writing `l1/.clean` (with L1_FILES_FORMAT); a start compares the files
 * unless `.clean` holds this format and no other process's note is there. A note left by a process
 * that is gone (its pid runs no more on this host, or is this process's own pid: a container's
 * server has pid 1 at every start) is removed by the start that finds it, which then compares the
 * files itself before it may write `.clean`. A live process's note keeps every start comparing.
 */
export class L1CleanStop {
  private note: string | null = null;
  private pending = true;

  constructor(
    private readonly dataDir: string,
    private readonly logger: Logger,
  ) {}

  /** Whether the files must still be compared with their rings (true until begin() finds a clean stop, or the comparison is done). */
  get mustReconcile(): boolean {
    return this.pending;
  }

  /**
   * At start, before anything is served: note this process and find out whether the last stop left
   * the files as their rings. Never throws (a folder that cannot be read or written: the files are compared).
   */
  begin(): boolean {
    const l1 = safeJoin(this.dataDir, 'l1');
    const running = path.join(l1, L1_RUNNING_DIR);
    const clean = path.join(l1, L1_CLEAN_FILE);
    let wasClean = false;
    try {
      wasClean = readFormat(clean) === L1_FILES_FORMAT;
      for (const name of listNotes(running)) {
        const pid = Number(name.split('.')[0]);
        if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && processAlive(pid)) {
          wasClean = false;
          continue;
        }
        // Its process is gone: it may have been killed with files behind.
        wasClean = false;
        fs.rmSync(path.join(running, name), { force: true });
      }
      makeDirs(running);
      const note = path.join(running, `${process.pid}.${crypto.randomBytes(6).toString('hex')}`);
      fs.writeFileSync(note, '');
      this.note = note;
      fs.rmSync(clean, { force: true });
    } catch (err) {
      wasClean = false;
      this.logger.warn(`noting this process in ${running} failed (the L1 files are compared with their rings at each start): ${(err as Error).message}`);
    }
    this.pending = !wasClean;
    return this.pending;
  }

  /** The files have been compared with their rings (and the stale ones marked for rewriting). */
  reconciled(): void {
    this.pending = false;
  }

  /**
   * At a clean stop, after the last flush: `filesWritten` is whether every L1 file was written.
   * Records the clean stop unless files are behind or were never compared since a stop that was not
   * clean; then removes this process's note. Never throws.
   */
  end(filesWritten: boolean): void {
    const note = this.note;
    if (note === null) return;
    this.note = null;
    const clean = safeJoin(this.dataDir, 'l1', L1_CLEAN_FILE);
    try {
      if (filesWritten && !this.pending) writeFileAtomic(clean, `${JSON.stringify({ format: L1_FILES_FORMAT })}\n`);
      fs.rmSync(note, { force: true });
    } catch (err) {
      this.logger.warn(`recording the clean stop in ${clean} failed (the next start compares the L1 files with their rings): ${(err as Error).message}`);
    }
  }
}

function readFormat(file: string): number | null {
  try {
    const body = JSON.parse(fs.readFileSync(file, 'utf8')) as { format?: unknown } | null;
    return typeof body?.format === 'number' ? body.format : null;
  } catch {
    return null;
  }
}

function listNotes(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}
