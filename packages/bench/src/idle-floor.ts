/**
 * `npm run idle-floor -w @memory-service/bench`: where the time of one request goes, at one N. The
 * side-by-side benchmark alternates the two servers sample by sample, so each of our requests
 * follows the reference's turn. This times, back to back, after an idle gap, and right after one
 * of the reference's create_entities or search_nodes calls (as in the benchmark's rounds):
 *  - a bare pipe echo (a Node child writing back each line: no MCP, no server);
 *  - a call to the zero-work MCP server (floor-server.ts: no SDK, no store);
 *  - an MCP ping to our server;
 *  - our think and dream;
 *  - think's and dream's answers replayed by the benchmark's own tool (same answer, no store work).
 * The reference's own calls in those rounds are timed as well, and the ratio each request shows
 * right after them is printed (idle-floor-report.ts).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPLAY_DIR_ENV } from './floor-plugin.js';
import { FLOOR_TOOL } from './floor-server.js';
import { renderIdleFloor, type IdleFloorRow } from './idle-floor-report.js';
import { McpConnection } from './mcp-connection.js';
import { referenceEntity } from './bench-servers.js';
import { FLOOR_SERVER, freshTempDir, removeDir, SERVER_BIN } from './paths.js';
import { referenceWith } from './reference-file.js';
import { note } from './progress.js';
import { percentile } from './stats.js';
import { TextGenerator } from './textgen.js';

/** The benchmark's own plugin, with the replay tool. */
const FLOOR_PLUGIN = fileURLToPath(new URL('./floor-plugin.js', import.meta.url));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** p50 of op, each sample preceded by `before` (untimed). */
async function p50(samples: number, before: () => Promise<unknown>, op: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    await before();
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
  const dir = freshTempDir('memory-service-idle');
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
  let floor: McpConnection | undefined;
  let ref: McpConnection | undefined;
  try {
    echo = await pipeEcho();
    floor = await McpConnection.open({ label: 'floor', script: FLOOR_SERVER, env: {} });
    const zeroWork = floor;
    const gen = new TextGenerator(20240601);
    const texts = Array.from({ length: n }, () => gen.nextText());
    note(`preloading ${n} thoughts, and the reference with the same ${n} texts`);
    for (const text of texts) await conn.call('think', { text, layer: 'user' });
    const reference = (ref = await referenceWith(dir, texts));
    let refIndex = n;
    const record = async (name: string, args: Record<string, unknown>) => {
      const answer = (await conn.call(name, args)).structuredContent;
      if (!answer) throw new Error(`${name} answered without structuredContent`);
      fs.writeFileSync(path.join(replayDir, `${name}.json`), JSON.stringify(answer));
    };
    await record('think', { text: gen.nextText(), layer: 'user' });
    await record('dream', { query: gen.nextQuery(), limit: 10 });
    const refWrites: number[] = [];
    const refSearches: number[] = [];
    const timed = async (into: number[], call: () => Promise<unknown>) => {
      const start = performance.now();
      await call();
      into.push(performance.now() - start);
    };
    const before: (() => Promise<unknown>)[] = [
      async () => undefined,
      () => sleep(gap),
      () => timed(refWrites, () => reference.call('create_entities', { entities: [referenceEntity(refIndex++, gen.nextText())] })),
      () => timed(refSearches, () => reference.call('search_nodes', { query: gen.nextQuery() })),
    ];
    const ops: [string, () => Promise<unknown>][] = [
      ['pipe echo (no MCP)', echo.roundTrip],
      ['zero-work MCP server (no SDK, no store)', () => zeroWork.call(FLOOR_TOOL, {})],
      ['ping', () => conn.timedPing()],
      ['think', () => conn.call('think', { text: gen.nextText(), layer: 'user' })],
      ['dream (limit 10)', () => conn.call('dream', { query: gen.nextQuery(), limit: 10 })],
      ["think's answer replayed (no store work)", () => conn.call('bench_replay', { answer: 'think' })],
      ["dream's answer replayed (no store work)", () => conn.call('bench_replay', { answer: 'dream' })],
    ];
    const rows: IdleFloorRow[] = [];
    for (const [request, op] of ops) {
      note(`timing ${request}`);
      const p50s: number[] = [];
      for (const b of before) p50s.push(await p50(samples, b, op));
      rows.push({ request, p50: [p50s[0]!, p50s[1]!, p50s[2]!, p50s[3]!] });
    }
    process.stdout.write(renderIdleFloor(n, samples, gap, rows, percentile(refWrites, 50), percentile(refSearches, 50)));
  } finally {
    echo?.close();
    await floor?.close();
    await ref?.close();
    await conn.close();
    removeDir(dir);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`idle-floor: ${err instanceof Error && err.stack ? err.stack : String(err)}\n`);
  process.exit(1);
});
