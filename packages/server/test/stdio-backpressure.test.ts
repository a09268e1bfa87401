import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, tempDir } from './helpers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

/** The bin over stdio with every tool exposed (tools/list answers about 200 kB), and its stdout's lines as they are read. */
function spawnBin() {
  const child = spawn(process.execPath, [BIN], {
    env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), MCP_MEMORY_DATA_DIR: tempDir(), MEMORY_EXPOSE: 'all', MEMORY_LOG_QUIET: '1' },
  });
  children.push(child);
  const lines: string[] = [];
  let rest = '';
  child.stdout.on('data', (d: Buffer) => {
    const parts = (rest + d.toString('utf8')).split('\n');
    rest = parts.pop()!;
    lines.push(...parts);
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  const until = async (count: number, ms: number) => {
    for (const end = Date.now() + ms; lines.length < count && Date.now() < end; ) await sleep(20);
    return lines.map((l) => JSON.parse(l) as { id: unknown; result?: { tools?: unknown[] } });
  };
  return { child, lines, exited, send, until };
}

const INITIALIZE = { id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'backpressure', version: '1' } } };

describe('stdio flow control (real bin)', () => {
  // Regression guard, fixed: the server read every request while the client read none of its
  // answers, which queued in its memory without bound (90 MB -> 309 MB over 2,000 dream calls).
  it('stops reading requests while its answers are not read, and answers every one in order once they are', async () => {
    const bin = spawnBin();
    bin.send(INITIALIZE);
    expect(await bin.until(1, 20_000)).toMatchObject([{ id: 0 }]);
    bin.send({ method: 'notifications/initialized' });
    // The client stops reading: about 8 MB of answers to tools/list, then 2 MB of pings.
    bin.child.stdout.pause();
    for (let id = 1; id <= 40; id++) bin.send({ id, method: 'tools/list' });
    const pad = 'p'.repeat(1_000);
    for (let id = 41; id <= 2_040; id++) bin.send({ id: `${id}-${pad}`, method: 'ping' });
    await sleep(2_000);
    // The server stopped reading: most of the pings are still with the client.
    expect(bin.child.stdin.writableLength).toBeGreaterThan(500_000);
    bin.child.stdout.resume();
    const answers = await bin.until(2_041, 30_000);
    expect(answers.map((a) => (typeof a.id === 'string' ? Number.parseInt(a.id, 10) : a.id))).toEqual(Array.from({ length: 2_041 }, (_, i) => i));
    expect(answers.slice(1, 41).every((a) => (a.result?.tools?.length ?? 0) > 50)).toBe(true);
    bin.child.stdin.end();
    expect(await bin.exited).toBe(0);
  }, 60_000);

  it('writes every answer before it exits when stdin closes, to a client that reads them slowly', async () => {
    const bin = spawnBin();
    bin.child.stdout.pause();
    bin.send(INITIALIZE);
    bin.send({ method: 'notifications/initialized' });
    for (let id = 1; id <= 30; id++) bin.send({ id, method: 'tools/list' });
    bin.child.stdin.end();
    await sleep(1_500);
    bin.child.stdout.resume();
    const answers = await bin.until(31, 20_000);
    expect(answers.map((a) => a.id)).toEqual(Array.from({ length: 31 }, (_, i) => i));
    expect(answers.slice(1).every((a) => (a.result?.tools?.length ?? 0) > 50)).toBe(true);
    expect(await bin.exited).toBe(0);
  }, 60_000);
});
