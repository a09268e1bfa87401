/** docs/benchmarks.md and the chart series, rendered from one benchmark result. */
import type { BenchResult, ServerRun } from './bench-types.js';
import { fmtBytes, fmtCount, fmtMs, fmtRatio, markdownTable } from './format.js';
import type { ChartSeries } from './report-svg.js';
import { backToBackRatio, ceilingRatio, checkTargets, speedRatio } from './targets.js';
import { timesOf, type WakeCondition } from './wake-costs-report.js';

const SERVER_NAMES: Record<ServerRun['server'], string> = {
  ours: 'memory-service',
  reference: 'reference (@modelcontextprotocol/server-memory)',
  floor: 'zero-work server (benchmark only)',
};

/** One line per server and operation, plus the in-process stores when measured. */
export function chartSeries(result: BenchResult): ChartSeries[] {
  const pick = (server: ServerRun['server'], op: 'write' | 'search') =>
    result.runs
      .filter((r) => r.server === server)
      .map((r) => ({ n: r.n, ms: op === 'write' ? r.write_ms.p50 : r.search_ms.p50 }));
  const series: ChartSeries[] = [
    { label: 'ours: think (write)', color: '#1f77b4', points: pick('ours', 'write') },
    { label: 'ours: dream (search)', color: '#2ca02c', points: pick('ours', 'search') },
    { label: 'reference: create_entities', color: '#d62728', dash: '6 4', points: pick('reference', 'write') },
    { label: 'reference: search_nodes', color: '#ff7f0e', dash: '6 4', points: pick('reference', 'search') },
  ];
  if (result.in_process.status === 'ok') {
    const runs = result.in_process.runs;
    series.push(
      { label: 'stores in-process: add', color: '#9467bd', dash: '2 3', points: runs.map((r) => ({ n: r.n, ms: r.add_ms.p50 })) },
      { label: 'stores in-process: search', color: '#8c564b', dash: '2 3', points: runs.map((r) => ({ n: r.n, ms: r.search_ms.p50 })) },
    );
  }
  return series.filter((s) => s.points.length > 0);
}

function sizeTable(runs: readonly ServerRun[]): string {
  const header = [
    'server', 'write p50 (ms)', 'write p95 (ms)', 'search p50 (ms)', 'search p95 (ms)', 'ping p50 (ms)',
    'preload (ms/item)', 'first search after preload (ms)', 'spawn to tools/list (ms)', 'peak RSS', 'data on disk',
  ];
  const rows = runs.map((r) => [
    `${SERVER_NAMES[r.server]} (${r.write_tool} / ${r.search_tool})`,
    fmtMs(r.write_ms.p50), fmtMs(r.write_ms.p95), fmtMs(r.search_ms.p50), fmtMs(r.search_ms.p95), fmtMs(r.ping_p50_ms),
    `${fmtMs(r.preload_ms_per_item)}${r.preload_concurrency > 1 ? ` (${r.preload_concurrency} in flight)` : ' (sequential)'}`,
    r.first_search_after_preload_ms === undefined ? '-' : fmtMs(r.first_search_after_preload_ms),
    fmtMs(r.spawn_to_tools_list_ms), fmtBytes(r.peak_rss_bytes), fmtBytes(r.data_bytes),
  ]);
  return markdownTable(header, rows);
}

/** Ours and the reference back to back, at each N where both have back-to-back figures; null when none has. */
function backToBackTable(result: BenchResult, sizes: readonly number[]): string | null {
  const rows: string[][] = [];
  for (const n of sizes) {
    const ours = result.runs.find((r) => r.server === 'ours' && r.n === n);
    const ref = result.runs.find((r) => r.server === 'reference' && r.n === n);
    if (!ours?.write_b2b_ms || !ours.search_b2b_ms || !ref?.write_b2b_ms || !ref.search_b2b_ms) continue;
    rows.push([
      fmtCount(n),
      fmtMs(ours.write_b2b_ms.p50), fmtMs(ref.write_b2b_ms.p50), fmtRatio(backToBackRatio(result, n, 'write')),
      fmtMs(ours.search_b2b_ms.p50), fmtMs(ref.search_b2b_ms.p50), fmtRatio(backToBackRatio(result, n, 'search')),
    ]);
  }
  if (rows.length === 0) return null;
  return [
    '### Back to back: reference p50 / ours p50\n',
    'The same calls timed after the pings, each server taking all its samples in a row: the writes of one server, then ' +
      'those of the other, then the searches the same way, so no call to the other server comes between two of ours.\n',
    markdownTable(
      ['N', 'think p50 (ms)', 'create_entities p50 (ms)', 'write (create_entities / think)', 'dream p50 (ms)', 'search_nodes p50 (ms)', 'search (search_nodes / dream)'],
      rows,
    ),
    '',
  ].join('\n');
}

/** The result tables (per N, ratios, in-process, failures, targets): shared by the docs page and the console. */
export function renderResultTables(result: BenchResult): string {
  const parts: string[] = [];
  const sizes = [...new Set([...result.options.sizes, ...result.runs.map((r) => r.n)])].sort((a, b) => a - b);
  for (const n of sizes) {
    const runs = result.runs.filter((r) => r.n === n);
    parts.push(`### N = ${fmtCount(n)}\n`);
    parts.push(runs.length > 0 ? sizeTable(runs) : '_No server was measured at this size._');
    parts.push('');
  }
  const ratioRows = sizes
    .map((n) => [fmtCount(n), speedRatio(result, n, 'write'), speedRatio(result, n, 'search')] as const)
    .filter(([, w, s]) => w !== null || s !== null)
    .map(([n, w, s]) => [n, fmtRatio(w), fmtRatio(s)]);
  parts.push('### Reference p50 / ours p50\n');
  parts.push(
    ratioRows.length > 0
      ? markdownTable(['N', 'write (create_entities / think)', 'search (search_nodes / dream)'], ratioRows)
      : '_No size where both servers were measured._',
  );
  parts.push('');
  const b2b = backToBackTable(result, sizes);
  if (b2b !== null) parts.push(b2b);
  const restarts = result.runs.filter((r) => r.server === 'ours' && r.restart).sort((a, b) => a.n - b.n);
  if (restarts.length > 0) {
    parts.push('### Restart on the same data (ours)\n');
    parts.push(
      markdownTable(
        ['N', 'spawn to tools/list (ms)', 'first dream (ms)'],
        restarts.map((r) => [fmtCount(r.n), fmtMs(r.restart!.spawn_to_tools_list_ms), fmtMs(r.restart!.first_search_ms)]),
      ),
    );
    parts.push('');
  }
  if (result.ceiling && result.ceiling.length > 0) {
    parts.push('### Ceiling: reference p50 / zero-work server p50\n');
    parts.push(
      'The zero-work server (no SDK, no store: one tool answering at once) alternated with the reference in the same rounds, ' +
        'after the main samples. No stdio MCP server can show a larger ratio in this run.\n',
    );
    parts.push(
      markdownTable(
        ['N', 'zero-work p50, write round (ms)', 'create_entities p50 (ms)', 'write ceiling', 'zero-work p50, search round (ms)', 'search_nodes p50 (ms)', 'search ceiling'],
        result.ceiling.map((c) => [
          fmtCount(c.n),
          fmtMs(c.floor_write_ms.p50), fmtMs(c.reference_write_ms.p50), fmtRatio(ceilingRatio(result, c.n, 'write')),
          fmtMs(c.floor_search_ms.p50), fmtMs(c.reference_search_ms.p50), fmtRatio(ceilingRatio(result, c.n, 'search')),
        ]),
      ),
    );
    parts.push('');
  }
  parts.push('### Stores in-process (no transport)\n');
  if (result.in_process.status === 'skipped') {
    parts.push(`_Skipped: ${result.in_process.reason}_`);
  } else {
    parts.push(
      markdownTable(
        ['N', 'episodes.add p50 (ms)', 'p95 (ms)', 'retrieval.search p50 (ms)', 'p95 (ms)', 'preload (ms/item)'],
        result.in_process.runs.map((r) => [
          fmtCount(r.n), fmtMs(r.add_ms.p50), fmtMs(r.add_ms.p95), fmtMs(r.search_ms.p50), fmtMs(r.search_ms.p95), fmtMs(r.preload_ms_per_item),
        ]),
      ),
    );
    if (result.in_process.error) parts.push(`\n_Stopped early: ${result.in_process.error}_`);
  }
  parts.push('');
  if (result.spawn) {
    const sp = result.spawn;
    parts.push('### Start-up (our server)\n');
    parts.push(
      markdownTable(
        ['fresh starts', 'spawn to tools/list p50 (ms)', 'p95 (ms)', 'fastest (ms)', 'slowest (ms)'],
        [[String(sp.runs), fmtMs(sp.ms.p50), fmtMs(sp.ms.p95), fmtMs(Math.min(...sp.samples_ms)), fmtMs(Math.max(...sp.samples_ms))]],
      ),
    );
    parts.push('');
  }
  if (result.failures.length > 0) {
    parts.push('### Failures\n');
    for (const f of result.failures) parts.push(`- ${f.server} at N = ${fmtCount(f.n)}: ${f.error.split('\n')[0]}`);
    parts.push('');
  }
  parts.push('### Targets\n');
  parts.push(markdownTable(['target', 'measured', 'status'], checkTargets(result).map((c) => [c.target, c.measured, c.status])));
  return parts.join('\n');
}

/** The bullet describing the back-to-back pass, when the result has one (older result files do not). */
function backToBackNote(result: BenchResult): string {
  const { samples, sizes } = result.options;
  if (backToBackTable(result, sizes) === null) return '';
  return `- Back to back: after the pings, at each N where both servers run, ${samples} more writes of each server in a row (all of
  one server's, then the other's), then ${samples} searches of each the same way. An agent's calls to one server come back
  to back, while the alternating rounds put the reference's turn, and what it leaves in the caches, before each of ours;
  the back-to-back table gives the two ratios without those turns.
`;
}

/** The bullet describing the zero-work ceiling, when the result has one. */
function ceilingNote(result: BenchResult): string {
  if (!result.ceiling || result.ceiling.length === 0) return '';
  return `- Ceiling: after the back-to-back pass, a zero-work MCP server (no SDK, no store) takes the place of ours for ${result.options.samples} more
  rounds of writes and then searches against the reference, which keeps its data and goes on writing new names.
`;
}

/**
 * The machine table's wake-up rows (wake-costs.ts): how much slower the two kernels ran after the
 * machine idled, and after a core was busy, than back to back. Empty for older result files.
 */
function wakeRows(result: BenchResult): string {
  const w = result.wake;
  const base = w?.rows.find((r) => r.condition === 'back to back');
  if (!w || !base) return '';
  const row = (condition: WakeCondition, label: string) => {
    const r = w.rows.find((x) => x.condition === condition);
    if (!r) return '';
    return `| ${label} | memory reads ${timesOf(r.memory_us, base.memory_us)}, arithmetic ${timesOf(r.compute_us, base.compute_us)} their back-to-back time |\n`;
  };
  return (
    row('after the machine idled', `a wake-up after ${w.gap_ms} ms idle`) +
    row('after a busy neighbour', `a wake-up after a core was busy ${w.gap_ms} ms`)
  );
}

/** The whole docs/benchmarks.md page. */
export function renderBenchmarksPage(result: BenchResult, chartFile: string): string {
  const m = result.machine;
  const { samples, refMax, sizes, seed } = result.options;
  return `# Benchmarks

Generated by \`npm run bench\` from \`bench/results/${result.name}.json\` (${result.finished_at}).
Do not edit by hand: rerun the benchmark instead.

## What is measured

Both servers run as child processes and are driven over MCP stdio by the SDK client, as an agent would.
For each N a fresh data dir is created, the server is spawned and N items are preloaded; then
${samples} writes, ${samples} searches and ${samples} pings are timed, alternating the two servers sample by
sample when both run at that N. The reference server runs up to N = ${fmtCount(refMax)}.

- Write: our \`think\` (one text, layer \`user\`) against the reference \`create_entities\` (one entity, one observation, unique name).
- Search: our \`dream\` (limit 10, layer \`user\`) against the reference \`search_nodes\`, with the same query.
- Items are sentences of 60-200 characters generated from a seeded PRNG (seed ${seed}) over a fixed vocabulary;
  queries are one to three words of the same vocabulary. Both servers receive the same texts and queries.
- Ping: p50 of an MCP \`ping\` on the same connection.
${backToBackNote(result)}${ceilingNote(result)}- Spawn: from spawning the process to the answer of \`tools/list\` (the initialize handshake included); once per N, and in a
  series of fresh starts on empty data dirs, run first while the machine is quiet, whose median is the start-up figure.
- Peak RSS: VmHWM of the server process; data on disk: bytes under the data dir after the server closed.
- Restart (ours): after it closed, our server is started again on the same data dir and its first \`dream\` is sent as soon
  as \`tools/list\` answers: what a new session on that memory waits for (the retrieval index is read from the data dir, or built).
- Preload: ours keeps 16 requests in flight; the reference rewrites its whole file on every write, so its preload is sequential.
- First search after preload: one search (a query of its own stream) sent as soon as the preload's last write answered, before
  the timed samples: what an agent waits for right after a bulk load, work a server left for later included.
- Stores in-process: \`@memory-service/stores\` called directly (no MCP, no transport) on the same workload.

## Machine

| | |
|---|---|
| CPU | ${m.cpu_model} |
| cores | ${m.cores} |
| memory | ${fmtBytes(m.total_memory_bytes)} |
| Node | ${m.node} |
| platform | ${m.platform} |
| sizes | ${sizes.map(fmtCount).join(', ')} |
${wakeRows(result)}
## Latency p50 against N

![Latency p50 against N, log scale](${chartFile})

## Results

${renderResultTables(result)}

## Reading the ratios

The side-by-side runs alternate the servers sample by sample, so each of our requests follows the
reference's turn, and runs with caches the reference's work has displaced. The back-to-back table
times the same calls with each server's samples in a row, as an agent calling one server sends them.
The ceiling table times a zero-work MCP server (JSON-RPC written by hand, no SDK, no store:
\`packages/bench/src/floor-server.ts\`) in the same rounds, after the main samples: its p50 is what the
client, the pipes and the machine take, and the reference's p50 over it is the largest ratio any
stdio server could show in the run. Everything above it is ours.

\`npm run idle-floor -w @memory-service/bench\` splits that time at one N: each request is timed back
to back, after an idle gap, and right after one of the reference's create_entities or search_nodes
calls, for a bare pipe echo, the zero-work server, an MCP ping to our server, think, dream, and
think's and dream's recorded answers replayed by the benchmark's own tool through our whole stack
(transport, SDK, kernel, serialisation) with no store work. It also times the reference's own calls
in those rounds and prints the ratio each request shows right after them: the replayed answers' rows
are the most our stack could show with a store that took no time. Its figures depend on the machine and
are not quoted here: for this run, read the ceiling table (the most any server could show against the
reference in the alternating rounds) and the back-to-back table (the ratios with no turn of the reference between our calls),
and run \`npm run idle-floor\` on the machine at hand for the split.
Above N = ${fmtCount(refMax)} only our server runs, so its requests come back to back: its write and
search figures there are what the same requests cost without the reference's turns.

The machine table's wake-up rows (\`npm run wake-costs -w @memory-service/bench\`, no MCP and no server
in it) say what waiting costs any process on the machine: a Node child times a fixed run of arithmetic
and a fixed run of scattered memory reads itself, back to back and after a gap like the reference's
search. Where memory reads come back several times slower after the gap, every request in the
alternating rounds pays that on what it reads, its code included, and the more a request reads the
more it pays: the back-to-back ratios are the same code without it.

The search ratio also depends on the workload. The reference reads its whole memory file on every
call and returns every entity that matches, so its search_nodes takes longer the more items a query
matches, while dream answers with its limit of best hits at about the same cost. \`npm run side-by-side -w @memory-service/bench\`
takes both ratios at one N on a workload of one's choice (the benchmark's sentences, \`uniform:<V>\` or
\`zipf:<V>\` made-up vocabularies), calling both servers with the SDK's \`Client.callTool\` as an outside
check would, and prints how many entities search_nodes returned.

## How to reproduce

\`\`\`sh
npm ci
npm run bench
# the same run with explicit options (after npm run build):
node packages/bench/dist/bench.js --sizes ${sizes.join(',')} --ref-max ${refMax} --samples ${samples}
# the CI smoke run (N = 200, 50 samples, docs left untouched; then idle-floor, wake-costs, side-by-side, shapes and 20 LoCoMo questions):
npm run smoke -w @memory-service/bench
# where the time of one request goes here (N, idle gap in ms, samples):
npm run idle-floor -w @memory-service/bench -- 10000 28 200
# what waiting costs a process on this machine (the machine table's wake-up rows):
npm run wake-costs -w @memory-service/bench -- --gap 36 --samples 200
# whether a change is faster: two built checkouts (A, and B = this one) timed in the same rounds
npm run ab -w @memory-service/bench -- --a ../main-before --n 10000 --samples 150
# both 10,000-item ratios on another workload, through Client.callTool (--json adds a JSON line):
npm run side-by-side -w @memory-service/bench -- --n 10000 --samples 300 --workload zipf:2000
# whether think or dream grows with what is stored, for other data shapes (our server alone):
npm run shapes -w @memory-service/bench -- --sizes 1000,10000 --samples 100
# whether memory_data import replace grows with what the target holds, not faster (the stores in-process):
npm run import-replace -w @memory-service/bench -- --sizes 2000,4000,8000 --samples 3
# whether a fuzzy forget grows with the store, not with the store times what it deletes (one tool call in-process):
npm run forget-scale -w @memory-service/bench -- --sizes 4000,8000,16000 --every 8 --samples 3
# retrieval quality on LoCoMo (the development pair, or the files and directories you name; a file may be
# the released locomo10.json, whose samples count as one conversation each):
npm run eval:locomo -- --json
\`\`\`

Two runs of \`npm run bench\` on a shared machine can differ by more than a change does. \`npm run ab\`
times two builds of our server (each checkout built with \`npm run build\`) in the same rounds, in
alternating order, each call right after one of the reference's as here, with both builds answering the
same queries; in a round each build writes and then searches, so its dream follows its own think. It
prints both p50s, B / A, in how many rounds B was the faster of the pair, and the reference's p50 with
its ratio to each build (\`--a .\` times this checkout against itself: two readings of the ratios in one run).

The benchmark stores plain sentences. \`npm run shapes\` times our server alone on other kinds of memory
that take other paths through think: core facts whose keys share their first six words, relation
phrases that also make graph nodes, long thoughts that become wiki pages in one second (their
automatic titles number up), and pages whose titles all slug to one file name. For each shape and
size it stores the items, then times think and dream after an idle gap, and prints how much each
p50 grew from the smallest size to the largest, flagging more than 2x: a cost that grows with what
was stored before (\`packages/bench/src/shapes.ts\`).

The raw figures are in \`bench/results/\`; \`npm run bench\` rewrites this page and \`docs/${chartFile}\`.
`;
}
