import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, tempDir, thinkDreamSession } from './helpers.js';

/**
 * The command under other Node versions than the one running the tests: each binary named in
 * MEMORY_TEST_NODES (paths, separated by the platform's path delimiter; CI installs Node 24 and
 * names it there, see .ci/run) runs a stdio session long enough for the garbage collector to free
 * statements: better-sqlite3 12 aborted Node 24 within its first few dozen calls, and V8 flags that
 * Node 22 and 24 no longer have were reported on stderr at every start.
 */
const RUNTIMES = (process.env.MEMORY_TEST_NODES ?? '').split(path.delimiter).filter(Boolean);

function run(node: string, calls: number, tmpDir: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; answers: { id: number; result?: any }[]; stderr: string; version: string }> {
  const { input, lastId } = thinkDreamSession(calls);
  return new Promise((resolve, reject) => {
    const child = spawn(node, [BIN], { env: { PATH: process.env.PATH ?? '', MCP_MEMORY_DATA_DIR: tempDir(), TMPDIR: tmpDir } });
    let out = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      // Every answer is in: end stdin, and the command stops as a client closing would make it.
      if (out.includes(`"id":${lastId},`)) child.stdin.end();
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      const answers = out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { id: number; result?: any });
      const version = answers.find((a) => a.id === 1)?.result?.serverInfo?.version ?? '';
      resolve({ code, signal, answers, stderr, version });
    });
    child.stdin.write(input);
  });
}

describe.runIf(RUNTIMES.length > 0)('memory-service under other Node versions (MEMORY_TEST_NODES)', () => {
  for (const node of RUNTIMES) {
    it(`${node}: answers 200 thinks and dreams, exits 0, reports nothing on stderr but its log`, async () => {
      // The child's OS temp dir, where Node keeps its compile cache by default.
      const tmpDir = tempDir();
      const res = await run(node, 100, tmpDir);
      expect(res.signal).toBeNull();
      expect(res.code).toBe(0);
      expect(res.answers).toHaveLength(202);
      expect(res.version).not.toBe('');
      for (const a of res.answers.filter((x) => x.id > 2)) expect(a.result?.isError).toBeFalsy();
      // The last dream (answers come in any order) finds the last thought.
      const last = res.answers.find((a) => a.id === 202);
      expect(last?.result.structuredContent.summary).toContain('violin number 99');
      const foreign = res.stderr.split('\n').filter((l) => l && !l.startsWith('[memory-service] '));
      expect(foreign).toEqual([]);
      // From Node 22.1 the command turns on the compile cache: V8's code of its modules is kept.
      const [major, minor] = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim().split('.').map(Number);
      if (major > 22 || (major === 22 && minor >= 1)) expect(fs.readdirSync(path.join(tmpDir, 'node-compile-cache'), { recursive: true }).length).toBeGreaterThan(0);
    }, 60_000);
  }
});
