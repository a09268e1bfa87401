import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { MemoryError } from './errors.js';

const requireHere = createRequire(import.meta.url);
let cryptoModule: typeof import('node:crypto') | undefined;
/** node:crypto, loaded on first use: imported as an ES module it would cost every start a few ms. */
function crypto(): typeof import('node:crypto') {
  return (cryptoModule ??= requireHere('node:crypto') as typeof import('node:crypto'));
}

const MAX_SLUG = 80;

/**
 * Names Windows keeps for devices whatever the extension (`nul.json` is the null device there):
 * a file given one would never be written.
 */
const WINDOWS_DEVICE = /^(?:con|prn|aux|nul|com[1-9]|lpt[1-9])$/;

/**
 * A file-name-safe slug: diacritics stripped, lower-case, runs of anything but [a-z0-9] become
 * one '-', trimmed, at most 80 characters; an empty result becomes 'untitled', and a Windows
 * device name gets '-x' after it. '..' and path separators can never survive.
 */
export function slugify(input: string): string {
  const s = String(input)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SLUG)
    .replace(/-+$/g, '');
  if (s.length === 0) return 'untitled';
  return WINDOWS_DEVICE.test(s) ? `${s}-x` : s;
}

/** The length, in hex digits, of the hash idSegment appends. */
const ID_HASH_DIGITS = 10;

/** A segment ending so is one idSegment hashed: '-' and ID_HASH_DIGITS lower-case hex digits. */
const HASHED_TAIL = new RegExp(`-[0-9a-f]{${ID_HASH_DIGITS}}$`);

/**
 * A one-to-one path segment for an identifier such as a user_id: the identifier itself when it
 * is already a lower-case slug that does not end as a hashed segment does, otherwise its slug
 * plus '-' and the first 10 hex digits of the original's SHA-256. So two ids that slug alike
 * ('Alice' and 'alice') never share a file, even on a case-insensitive disk, and neither does an
 * id spelled like another's hashed segment ('alice-3bc5106297', the segment of 'Alice'): a bare
 * segment never ends with a hash and a hashed one always does, and two hashed segments are equal
 * only when the ids' hashes are (a 40-bit SHA-256 prefix).
 */
export function idSegment(id: string): string {
  const slug = slugify(id);
  if (slug === id && !HASHED_TAIL.test(id)) return slug;
  const hash = crypto().createHash('sha256').update(id, 'utf8').digest('hex').slice(0, ID_HASH_DIGITS);
  return `${slug}-${hash}`;
}

/** True when `target` is `root` or lies inside it. */
export function isInside(root: string, target: string): boolean {
  const rel = path.relative(path.resolve(root), path.resolve(target));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Join parts under root and throw when the result would leave root. */
export function safeJoin(root: string, ...parts: string[]): string {
  const base = path.resolve(root);
  const target = path.resolve(base, ...parts);
  if (!isInside(base, target)) {
    throw new MemoryError('KERNEL_ERR_PATH', `Path escapes the data directory: ${parts.join('/')}`, { field: 'path' });
  }
  return target;
}

/**
 * Create a directory and any missing parents, one level at a time. Node's own
 * `mkdirSync(dir, { recursive: true })` never returns under a parent whose file system answers
 * ENOENT for a new entry (procfs: MCP_MEMORY_DATA_DIR=/proc/x spun a core forever, on Node 20
 * and 24); here that mkdir's error is thrown. An entry made meanwhile by another process is fine.
 */
export function makeDirs(dir: string, mode?: number): void {
  const missing: string[] = [];
  for (let d = path.resolve(dir); !fs.existsSync(d); ) {
    missing.push(d);
    const up = path.dirname(d);
    if (up === d) break;
    d = up;
  }
  for (const d of missing.reverse()) {
    try {
      fs.mkdirSync(d, mode === undefined ? undefined : { mode });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/**
 * Write a file atomically: a unique temp file beside it, then rename over the target. Binary data
 * may come as a list of chunks, written one after another (no joined copy of them is made).
 */
export function writeFileAtomic(file: string, data: string | Uint8Array | readonly Uint8Array[]): void {
  makeDirs(path.dirname(file));
  const tmp = tempNameFor(file);
  try {
    if (typeof data === 'string') fs.writeFileSync(tmp, data, 'utf8');
    else if (data instanceof Uint8Array) fs.writeFileSync(tmp, data);
    else writeChunks(tmp, data);
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/**
 * The name writeFileAtomic (and the stores' other temp copies, a backup's or the replica's) gives its
 * temp file ends so: the writer's pid, then 12 hex digits; a SQLite temp copy may have its
 * `-journal`, `-wal` or `-shm` file beside it.
 */
const TEMP_NAME = /\.(\d+)\.[0-9a-f]{12}\.tmp(?:-journal|-wal|-shm)?$/;

/** A temp name for `file` in its folder, as writeFileAtomic makes it (`<file>.<pid>.<12 hex>.tmp`): removeStaleTemps knows it. */
export function tempNameFor(file: string): string {
  return `${file}.${process.pid}.${crypto().randomBytes(6).toString('hex')}.tmp`;
}

/** Whether a process with this id runs on this host (a signal-0 probe; EPERM: it exists, under another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface StaleTempOptions {
  /**
   * Also remove a temp whose pid is running when the file was last written at least this many
   * milliseconds ago (by the file's time): a pid is reused (a container's server is pid 1 at every
   * start), and a writer still at work keeps its file's time fresh.
   */
  idleMs?: number;
}

/**
 * Remove the temp files writeFileAtomic left in `dir` (not below it) when its process was killed
 * mid-write: those whose writer's pid is no longer running (a running writer's are kept, unless
 * `idleMs` says they are idle that long), with a SQLite copy's `-journal`, `-wal` and `-shm`.
 * Returns how many were removed; a missing directory has none.
 */
export function removeStaleTemps(dir: string, opts: StaleTempOptions = {}): number {
  let removed = 0;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return 0;
  }
  const now = Date.now();
  for (const name of names) {
    const m = TEMP_NAME.exec(name);
    if (!m) continue;
    const file = path.join(dir, name);
    if (processAlive(Number(m[1]))) {
      if (opts.idleMs === undefined) continue;
      const st = fs.lstatSync(file, { throwIfNoEntry: false });
      if (!st || now - st.mtimeMs < opts.idleMs) continue;
    }
    try {
      fs.rmSync(file, { force: true });
      removed++;
    } catch {
      // A folder of that name, or no right to remove it: left as it is.
    }
  }
  return removed;
}

function writeChunks(file: string, chunks: readonly Uint8Array[]): void {
  const fd = fs.openSync(file, 'w');
  try {
    for (const chunk of chunks) {
      for (let at = 0; at < chunk.byteLength; ) at += fs.writeSync(fd, chunk, at, chunk.byteLength - at);
    }
  } finally {
    fs.closeSync(fd);
  }
}
