import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runBin, tempDir } from './helpers.js';

/**
 * Permission bits do not stop root: as root, the server runs as nobody (uid 65534) on a data dir
 * given to nobody, so that chmod 444 makes memory.db read-only for it as it is for any user.
 */
const asRoot = process.getuid?.() === 0;
const user = asRoot ? { uid: 65534, gid: 65534 } : {};
/**
 * Whether that user can run the server at all: a checkout under a directory only root may enter
 * (/root, say) cannot be read by nobody, and then the test has no user to run it as.
 */
const runnable =
  !asRoot ||
  spawnSync(process.execPath, ['-e', `require('node:fs').accessSync(${JSON.stringify(BIN)}, require('node:fs').constants.R_OK)`], user).status === 0;

describe('a read-only memory.db', () => {
  it.skipIf(!process.getuid || !runnable)('stops the start with one line naming memory.db, that it is read-only and what to do (POSIX permissions only)', async () => {
    const dir = tempDir();
    if (asRoot) fs.chownSync(dir, 65534, 65534);
    const made = await runBin([], { MCP_MEMORY_DATA_DIR: dir }, '', user);
    expect(made.code, made.stderr).toBe(0);
    const file = path.join(dir, 'memory.db');
    fs.chmodSync(file, 0o444);
    const res = await runBin([], { MCP_MEMORY_DATA_DIR: dir }, '', user);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(
      `memory-service: cannot start: cannot open the database ${file}: ${file} is read-only for this user; make it writable by this user (chmod u+w ${file}`,
    );
    expect(res.stderr).not.toMatch(/\n\s+at /);
    expect(res.stdout).toBe('');
    // Made writable again, it starts.
    fs.chmodSync(file, 0o644);
    expect((await runBin([], { MCP_MEMORY_DATA_DIR: dir }, '', user)).code).toBe(0);
  });
});
