/**
 * `npm run idle-floor -w @memory-service/bench`: what an idle gap before each request costs on this
 * machine. The side-by-side benchmark alternates the two servers sample by sample, so each of our
 * requests follows ~20-30 ms of idleness (the reference's turn); this measures a bare pipe echo
 * (a Node child writing back each line: no MCP, no server), an MCP ping, our think/dream, and
 * think's and dream's answers replayed by the benchmark's own tool (same answer, no store work),
 * back to back and after such a gap, at one N.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPLAY_DIR_ENV } from './floor-plugin.js';
import { McpConnection } from './mcp-connection.js';
import { SERVER_BIN } from './paths.js';
import { note } from './progress.js';
import { percentile } from './stats.js';
import { TextGenerator } from './textgen.js';

/** The benchmark's own plugin, with the replay tool. */
const FLOOR_PLUGIN = fileURLToPath(new URL('./floor-plugin.js', import.meta.url));

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
  const replayDir = path.join(dir, 'replay');
  fs.mkdirSync(replayDir);
  const conn = await McpConnection.open({
    label: 'ours',
    script: SERVER_BIN,
    env: {
      MCP_MEMORY_DATA_DIR: path.join(dir, 'data'),
      MEMORY_PLUGINS: FLOOR_PLUGIN,
      MEMORY_EXPOSE: 'primitives,bench',
      [REPLAY_DIR_ENV]: replayDir,
    },
  });
  let echo: Awaited<ReturnType<typeof pipeEcho>> | undefined;
  try {
    echo = await pipeEcho();
    const gen = new TextGenerator(20240601);
    note(`preloading ${n} thoughts`);
    for (let i = 0; i < n; i++) await conn.call('think', { text: gen.nextText(), layer: 'user' });
    const record = async (name: string, args: Record<string, unknown>) => {
      const answer = (await conn.call(name, args)).structuredContent;
      if (!answer) throw new Error(`${name} answered without structuredContent`);
      fs.writeFileSync(path.join(replayDir, `${name}.json`), JSON.stringify(answer));
    };
    await record('think', { text: gen.nextText(), layer: 'user' });
    await record('dream', { query: gen.nextQuery(), limit: 10 });
    const rows: string[] = ['| request | back to back p50 (ms) | after ' + gap + ' ms idle p50 (ms) |', '|---|---|---|'];
    const ops: [string, () => Promise<unknown>][] = [
      ['pipe echo (no MCP)', echo.roundTrip],
      ['ping', () => conn.timedPing()],
      ['think', () => conn.call('think', { text: gen.nextText(), layer: 'user' })],
      ['dream (limit 10)', () => conn.call('dream', { query: gen.nextQuery(), limit: 10 })],
      ["think's answer replayed (no store work)", () => conn.call('bench_replay', { answer: 'think' })],
      ["dream's answer replayed (no store work)", () => conn.call('bench_replay', { answer: 'dream' })],
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
