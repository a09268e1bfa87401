/**
 * `npm run wake-costs -w @memory-service/bench -- [--gap 36] [--samples 200] [--json]`: what the
 * machine charges a process for having waited, with no MCP and no server in it. In the benchmark's
 * alternating rounds each of our requests reaches a server that has slept while the reference
 * worked; this measures that cost alone, so the ratios can be read against it.
 *
 * A Node child runs two fixed kernels each time a line reaches it, and times them itself (the pipe
 * and the wake-up are not in the figures):
 *  - compute: arithmetic over 32 KB, which stays in the core's first-level cache once warm;
 *  - memory: 4,096 reads at scattered places of 8 MB, whose 256 KB of cache lines stay cached when warm.
 * It is asked back to back; after the whole machine idled `gap` ms; after this process kept a core
 * busy for `gap` ms (as the reference does while it searches); and after that busy gap again, with
 * the kernels started 1 ms into the wake-up (the child spins first, touching no memory), which shows
 * whether the cost fades with time or stays until the data is read again. The conditions take turns
 * sample by sample, so a drift of the machine reaches each alike.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WAKE_COSTS } from './paths.js';
import { note } from './progress.js';
import { percentile } from './stats.js';
import { parseWakeCostsArgs, WAKE_COSTS_USAGE, type WakeCostsOptions } from './wake-costs-args.js';
import { renderWakeCosts, WAKE_CONDITIONS, type WakeCondition, type WakeCostsResult, type WakeRow } from './wake-costs-report.js';

const SELF = fileURLToPath(import.meta.url);
/** Rounds run and thrown away first, so both kernels are compiled and their data is in memory. */
const WARM_UP = 20;
const COMPUTE_WORDS = 4096;
const COMPUTE_PASSES = 20;
const MEMORY_WORDS = 1 << 20;
const MEMORY_READS = 4096;

/** The child: answers each line (µs to spin first) with the two kernels' times in µs. */
function runChild(): void {
  const small = new Float64Array(COMPUTE_WORDS);
  const large = new Float64Array(MEMORY_WORDS);
  for (let i = 0; i < small.length; i++) small[i] = i;
  for (let i = 0; i < large.length; i++) large[i] = i;
  let sink = 0;
  const compute = () => {
    let s = 0;
    for (let p = 0; p < COMPUTE_PASSES; p++) for (let i = 0; i < COMPUTE_WORDS; i++) s += small[i]! * 1.0001;
    return s;
  };
  const mask = MEMORY_WORDS - 1;
  const memory = () => {
    let s = 0;
    for (let i = 0; i < MEMORY_READS; i++) s += large[Math.imul(i, 0x9e3779b1) & mask]!;
    return s;
  };
  let pending = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    pending += chunk;
    let end: number;
    while ((end = pending.indexOf('\n')) >= 0) {
      const spinUs = Number(pending.slice(0, end));
      pending = pending.slice(end + 1);
      const t0 = performance.now();
      while (performance.now() - t0 < spinUs / 1000);
      const t1 = performance.now();
      sink += compute();
      const t2 = performance.now();
      sink += memory();
      const t3 = performance.now();
      process.stdout.write(`${((t2 - t1) * 1000).toFixed(2)} ${((t3 - t2) * 1000).toFixed(2)} ${sink > 0 ? 1 : 0}\n`);
    }
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Keep this process's core busy for `ms` (the driver's own event loop is blocked meanwhile). */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

export async function measureWakeCosts(opts: Pick<WakeCostsOptions, 'gapMs' | 'samples'>): Promise<WakeCostsResult> {
  const child = spawn(process.execPath, [WAKE_COSTS, '--child'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let buffered = '';
  let waiting: ((line: string) => void) | null = null;
  let failed: Error | null = null;
  const fail = (err: Error) => {
    failed = err;
    const w = waiting;
    waiting = null;
    w?.('');
  };
  child.on('error', fail);
  child.on('exit', (code) => fail(new Error(`the measuring child exited (code ${code})`)));
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    const end = buffered.indexOf('\n');
    if (end < 0) return;
    const line = buffered.slice(0, end);
    buffered = buffered.slice(end + 1);
    const w = waiting;
    waiting = null;
    w?.(line);
  });
  const ask = async (spinUs: number): Promise<[number, number]> => {
    const line = await new Promise<string>((resolve) => {
      waiting = resolve;
      child.stdin.write(`${spinUs}\n`);
    });
    if (failed) throw failed;
    const [compute, memory] = line.split(' ').map(Number);
    if (!Number.isFinite(compute) || !Number.isFinite(memory)) throw new Error(`the measuring child answered "${line}"`);
    return [compute!, memory!];
  };
  const before: Record<WakeCondition, () => Promise<unknown> | void> = {
    'back to back': () => undefined,
    'after the machine idled': () => sleep(opts.gapMs),
    'after a busy neighbour': () => busy(opts.gapMs),
    'after a busy neighbour, 1 ms into the wake-up': () => busy(opts.gapMs),
  };
  const spinUs = (c: WakeCondition) => (c === 'after a busy neighbour, 1 ms into the wake-up' ? 1000 : 0);
  try {
    for (let i = 0; i < WARM_UP; i++) await ask(0);
    const times = new Map<WakeCondition, { compute: number[]; memory: number[] }>(WAKE_CONDITIONS.map((c) => [c, { compute: [], memory: [] }]));
    for (let i = 0; i < opts.samples; i++) {
      for (const c of WAKE_CONDITIONS) {
        await before[c]();
        const [compute, memory] = await ask(spinUs(c));
        times.get(c)!.compute.push(compute);
        times.get(c)!.memory.push(memory);
      }
      if ((i + 1) % 50 === 0) note(`wake-costs: ${i + 1}/${opts.samples} rounds`);
    }
    const rows: WakeRow[] = WAKE_CONDITIONS.map((c) => ({
      condition: c,
      compute_us: percentile(times.get(c)!.compute, 50),
      memory_us: percentile(times.get(c)!.memory, 50),
    }));
    return { gap_ms: opts.gapMs, samples: opts.samples, rows };
  } finally {
    child.removeAllListeners('exit');
    child.kill();
  }
}

export async function main(argv: readonly string[]): Promise<void> {
  if (argv[0] === '--child') return runChild();
  const opts = parseWakeCostsArgs(argv);
  const result = await measureWakeCosts(opts);
  process.stdout.write(renderWakeCosts(result));
  if (opts.json) process.stdout.write(`${JSON.stringify(result)}\n`);
}

if (process.argv[1] && SELF === path.resolve(process.argv[1])) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`wake-costs: ${err instanceof Error ? err.message : String(err)}\n${WAKE_COSTS_USAGE}\n`);
    process.exit(1);
  });
}
