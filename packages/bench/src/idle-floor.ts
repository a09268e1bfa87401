/**
 * `npm run idle-floor -w @memory-service/bench`: what an idle gap before each request costs on this
 * machine. The side-by-side benchmark alternates the two servers sample by sample, so each of our
 * requests follows ~20-30 ms of idleness (the reference's turn); this measures a bare pipe echo
 * (a Node child writing back each line: no MCP, no server), an MCP ping and our think/dream back
 * to back and after such a gap, at one N.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { McpConnection } from './mcp-connection.js';
import { SERVER_BIN } from './paths.js';
import { note } from './progress.js';
import { percentile } from './stats.js';
import { TextGenerator } from './textgen.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function p50(samples: number, gapMs: number, op: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    if (gapMs > 0) await sleep(gapMs);
    const start = performance.now();
    await op();
    times.push(performance.now() - start);
  }
  return percentile(times, 50);
}

/** A Node child that writes back every chunk it reads: the round trip no stdio server can beat. */
async function pipeEcho(): Promise<{ roundTrip: () => Promise<void>; close: () => void }> {
  const child = spawn(process.execPath, ['-e', 'process.stdin.on("data", (d) => process.stdout.write(d))'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let waiting: (() => void) | null = null;
  child.stdout.on('data', () => {
    const w = waiting;
    waiting = null;
    w?.();
  });
  const roundTrip = () =>
    new Promise<void>((resolve) => {
      waiting = resolve;
      child.stdin.write('x\n');
    });
  await roundTrip();
  return { roundTrip, close: () => child.kill() };
}

export async function main(argv: readonly string[]): Promise<void> {
  const n = Number(argv[0] ?? 10_000);
  const gap = Number(argv[1] ?? 28);
  const samples = Number(argv[2] ?? 200);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memory-service-idle-'));
  const conn = await McpConnection.open({ label: 'ours', script: SERVER_BIN, env: { MCP_MEMORY_DATA_DIR: dir } });
  let echo: Awaited<ReturnType<typeof pipeEcho>> | undefined;
  try {
    echo = await pipeEcho();
    const gen = new TextGenerator(20240601);
    note(`preloading ${n} thoughts`);
    for (let i = 0; i < n; i++) await conn.call('think', { text: gen.nextText(), layer: 'user' });
    const rows: string[] = ['| request | back to back p50 (ms) | after ' + gap + ' ms idle p50 (ms) |', '|---|---|---|'];
    const ops: [string, () => Promise<unknown>][] = [
      ['pipe echo (no MCP)', echo.roundTrip],
      ['ping', () => conn.timedPing()],
      ['think', () => conn.call('think', { text: gen.nextText(), layer: 'user' })],
      ['dream (limit 10)', () => conn.call('dream', { query: gen.nextQuery(), limit: 10 })],
    ];
    for (const [name, op] of ops) {
      const hot = await p50(samples, 0, op);
      const idle = await p50(samples, gap, op);
      rows.push(`| ${name} | ${hot.toFixed(3)} | ${idle.toFixed(3)} |`);
    }
    process.stdout.write(`N = ${n}, ${samples} samples each\n\n${rows.join('\n')}\n`);
  } finally {
    echo?.close();
    await conn.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`idle-floor: ${err instanceof Error && err.stack ? err.stack : String(err)}\n`);
  process.exit(1);
});
