import fs from 'node:fs';
import path from 'node:path';
import { makeDirs, tempNameFor } from '@memory-service/kernel';

/**
 * A page file larger than this is never read: reads and exports take the page's row instead (a
 * warning names the file once). Above any file the service writes (a page's text is at most
 * 10,000,000 characters, 30 MB in UTF-8): a 304 MB file put in a page's place was read whole on
 * the event loop, blocking every call for 10 to 17 s before its answer failed (a string too long).
 */
export const MAX_PAGE_FILE_BYTES = 64 * 1024 * 1024;

/**
 * What a page's file holds, as reads see it: its text; `empty` (0 bytes: a file emptied by hand, or
 * one the disk lost after a crash, whose row still holds the text); `too_large` (over
 * MAX_PAGE_FILE_BYTES, not read); `missing` (absent, no regular file, or unreadable).
 */
export type PageFile = { state: 'text'; text: string } | { state: 'empty' } | { state: 'too_large'; size: number } | { state: 'missing' };

/** Read a page file, its size checked first (see PageFile). Never throws. */
export function readPageFile(abs: string): PageFile {
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(abs, { throwIfNoEntry: false });
  } catch {
    return { state: 'missing' };
  }
  if (!st?.isFile()) return { state: 'missing' };
  if (st.size === 0) return { state: 'empty' };
  if (st.size > MAX_PAGE_FILE_BYTES) return { state: 'too_large', size: st.size };
  try {
    const text = fs.readFileSync(abs, 'utf8');
    // Emptied between the stat and the read.
    return text === '' ? { state: 'empty' } : { state: 'text', text };
  } catch {
    return { state: 'missing' };
  }
}

/**
 * Whether the file at `abs` must be written again from its row's `content` (updated at `updatedIso`)
 * after a stop: a missing file, one that is no regular file, an empty one while the row is not
 * (never taken over the row's text), or one not newer than its row whose bytes differ (a write the
 * stop cut off; its size is compared first, so a file over MAX_PAGE_FILE_BYTES is never read). A
 * file newer than its row (by whole milliseconds) is a hand edit and is kept, one over
 * MAX_PAGE_FILE_BYTES too (reads take the row). The service gives every page file it writes the
 * time of the row it wrote (writePageFile), so an earlier save's text another process wrote late
 * (it lost the race to the file, and was stopped before it wrote the last row again) is never
 * newer than the row, and is written over.
 */
export function pageFileStale(abs: string, content: string, updatedIso: string): boolean {
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(abs, { throwIfNoEntry: false });
  } catch {
    return true;
  }
  if (!st?.isFile()) return true;
  if (st.size === 0) return content !== '';
  if (Math.floor(st.mtimeMs) > Date.parse(updatedIso)) return false;
  // Not newer than its row: written again unless it holds the row's text.
  return !fileHolds(abs, content);
}

/**
 * Whether the file at `abs` holds exactly `content`: its size first, so a file of another size (one
 * over MAX_PAGE_FILE_BYTES among them) is never read. Never throws (an unreadable file holds nothing).
 */
export function fileHolds(abs: string, content: string): boolean {
  try {
    const st = fs.statSync(abs);
    return st.isFile() && st.size === Buffer.byteLength(content, 'utf8') && fs.readFileSync(abs, 'utf8') === content;
  } catch {
    return false;
  }
}

/**
 * Write a page file atomically (a temp file beside it, renamed over it) with its row's text, the
 * file's time set to the row's `updated` (`updatedIso`) before the rename: what the service wrote is
 * recorded in the file's time, so the repair at start tells an earlier save written late by a
 * racing process (not newer than the row) from a hand edit (newer: see pageFileStale).
 */
export function writePageFile(abs: string, content: string, updatedIso: string): void {
  makeDirs(path.dirname(abs));
  const tmp = tempNameFor(abs);
  const at = Date.parse(updatedIso);
  try {
    const fd = fs.openSync(tmp, 'w');
    try {
      fs.writeFileSync(fd, content, 'utf8');
      if (Number.isFinite(at)) fs.futimesSync(fd, Date.now() / 1000, at / 1000);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, abs);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}
