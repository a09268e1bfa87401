import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Vitest global setup shared by every package: the run's temporary files go under one directory of
 * its own (TMPDIR, which os.tmpdir() reads and the test workers and the servers they spawn inherit),
 * removed when the run ends. Tests make data dirs by the hundred and many are never removed one by
 * one (a killed server's, a failed test's), so repeated runs used to fill the system's temp dir.
 */
export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memory-service-vitest-'));
  // Open to every user, sticky, as the system's temp dir is: some tests run the server as another
  // user (nobody) on a data dir made here.
  fs.chmodSync(dir, 0o1777);
  process.env.TMPDIR = dir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
