/** `npm run bench`: our server against the reference memory server over MCP stdio, plus the stores in-process. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseBenchArgs, USAGE } from './bench-args.js';
import { benchSize } from './bench-run.js';
import type { ServerKind } from './bench-servers.js';
import type { BenchResult } from './bench-types.js';
import { benchInProcess } from './in-process.js';
import { machineInfo } from './machine.js';
import { measureWakeCosts } from './wake-costs.js';
import { DOCS_DIR, RESULTS_DIR, SERVER_CLI } from './paths.js';
import { note } from './progress.js';
import { chartSeries, renderBenchmarksPage, renderResultTables } from './report-markdown.js';
import { renderLatencyChart } from './report-svg.js';
import { spawnSeries } from './spawn-series.js';
import { checkTargets, formatTargetLines } from './targets.js';

const CHART_FILE = 'bench-latency.svg';
/** Fresh starts measured for the start-up figure (its median is the one the target reads). */
const SPAWN_RUNS = 11;
/** The gap before each timed wake-up: about what the reference's search_nodes takes at N = 10,000. */
const WAKE_GAP_MS = 36;
const WAKE_SAMPLES = 100;

function writeFile(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

export async function main(argv: readonly string[]): Promise<number> {
  let cli;
  try {
    cli = parseBenchArgs(argv);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (!fs.existsSync(SERVER_CLI)) note(`note: ${SERVER_CLI} does not exist yet; our server will fail to start (build it first)`);
  const startedAt = new Date().toISOString();
  const result: BenchResult = {
    name: cli.name,
    started_at: startedAt,
    finished_at: startedAt,
    machine: machineInfo(),
    options: { sizes: cli.sizes, refMax: cli.refMax, samples: cli.samples, seed: cli.seed, smoke: cli.smoke },
    runs: [],
    failures: [],
    in_process: { status: 'skipped', reason: 'not run' },
  };
  // Start-up first, on a quiet machine: after the preloads, the disk was still writing back what
  // the removed 100,000-item data dirs left, and each fresh start's first fsync (its migrations)
  // waited behind it (a median of 301 ms at the end of a run, 231 ms alone, the same build).
  result.spawn = await spawnSeries(cli.smoke ? 3 : SPAWN_RUNS);
  note(`wake-up costs of this machine (${WAKE_GAP_MS} ms gaps)`);
  result.wake = await measureWakeCosts({ gapMs: WAKE_GAP_MS, samples: cli.smoke ? 5 : WAKE_SAMPLES });
  for (const n of cli.sizes) {
    const kinds: ServerKind[] = n <= cli.refMax ? ['ours', 'reference'] : ['ours'];
    const outcome = await benchSize(kinds, n, cli.samples, cli.seed);
    result.runs.push(...outcome.runs);
    result.failures.push(...outcome.failures);
    if (outcome.ceiling) (result.ceiling ??= []).push(outcome.ceiling);
  }
  result.in_process = await benchInProcess(cli.sizes, cli.samples, cli.seed);
  result.finished_at = new Date().toISOString();

  const resultFile = cli.smoke
    ? path.join(os.tmpdir(), `memory-service-bench-${cli.name}.json`)
    : path.join(RESULTS_DIR, `${cli.name}.json`);
  writeFile(resultFile, `${JSON.stringify(result, null, 2)}\n`);
  note(`results written to ${resultFile}`);
  const oursMeasured = result.runs.some((r) => r.server === 'ours');
  if (cli.writeDocs && !oursMeasured) note('docs left unchanged: our server was not measured at any size');
  if (cli.writeDocs && oursMeasured) {
    writeFile(path.join(DOCS_DIR, CHART_FILE), renderLatencyChart(chartSeries(result)));
    writeFile(path.join(DOCS_DIR, 'benchmarks.md'), renderBenchmarksPage(result, CHART_FILE));
    note(`docs/benchmarks.md and docs/${CHART_FILE} regenerated`);
  }
  process.stdout.write(`${renderResultTables(result)}\n\nTarget checks:\n${formatTargetLines(checkTargets(result)).join('\n')}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error && err.stack ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
