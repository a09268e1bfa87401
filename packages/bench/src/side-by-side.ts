/**
 * `npm run side-by-side -w @memory-service/bench -- [--n 10000] [--samples 300] [--workload ...] [--json]`:
 * the benchmark's two 10,000-item ratios on a workload of one's choice, as an outside check would
 * take them: both servers over stdio, called with the SDK's Client.callTool (which checks each
 * structured answer against the tool's output schema), the same N texts stored in each (ours
 * through think, 16 in flight; the reference through its memory file, as reference-file.ts
 * writes it), then `samples` rounds of the reference's create_entities and our think, then of
 * its search_nodes and our dream (limit 10) on the same query, the reference first in each round.
 * Prints the p50s, the ratios and how many entities search_nodes returned (p50): the reference
 * reads its whole file and returns every match, so its search time, and the ratio, grow with how
 * many items a query matches (workloads.ts). Progress goes to stderr; with --json the last line
 * is one JSON object.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runPool } from './concurrency.js';
import { McpConnection } from './mcp-connection.js';
import { referenceEntity } from './bench-servers.js';
import { SERVER_BIN, freshTempDir, removeDir } from './paths.js';
import { note, Progress } from './progress.js';
import { referenceWith } from './reference-file.js';
import { parseSideBySideArgs, SIDE_BY_SIDE_USAGE } from './side-by-side-args.js';
import { percentile } from './stats.js';
import { workload } from './workloads.js';

export interface SideBySideResult {
  workload: string;
  n: number;
  samples: number;
  write: { reference_p50_ms: number; ours_p50_ms: number; ratio: number };
  search: { reference_p50_ms: number; ours_p50_ms: number; ratio: number; reference_matches_p50: number };
}

/** How many entities a search_nodes answer holds (its text is the JSON of the matching graph). */
export function matchedEntities(text: string | undefined): number {
  try {
    const graph = JSON.parse(text ?? '') as { entities?: unknown[] };
    return Array.isArray(graph.entities) ? graph.entities.length : 0;
  } catch {
    return 0;
  }
}

export function renderSideBySide(r: SideBySideResult): string {
  const f = (ms: number) => (ms < 10 ? ms.toFixed(3) : ms.toFixed(1));
  return [
    `Side by side over stdio with Client.callTool: workload ${r.workload}, N = ${r.n}, ${r.samples} rounds`,
    '',
    '| operation | reference p50 (ms) | ours p50 (ms) | reference / ours |',
    '|---|---|---|---|',
    `| write (create_entities / think) | ${f(r.write.reference_p50_ms)} | ${f(r.write.ours_p50_ms)} | ${r.write.ratio.toFixed(1)}x |`,
    `| search (search_nodes / dream, limit 10) | ${f(r.search.reference_p50_ms)} | ${f(r.search.ours_p50_ms)} | ${r.search.ratio.toFixed(1)}x |`,
    '',
    `search_nodes returned ${r.search.reference_matches_p50} entities (p50) of ${r.n}.`,
    '',
  ].join('\n');
}

export async function main(argv: readonly string[]): Promise<void> {
  const opts = parseSideBySideArgs(argv);
  const root = freshTempDir('memory-service-side-by-side');
  const open: McpConnection[] = [];
  try {
    const load = workload(opts.workload, opts.seed);
    const texts = Array.from({ length: opts.n }, () => load.nextText());
    note(`workload ${opts.workload}: preloading ${opts.n} thoughts, and the reference with the same texts`);
    const ours = await McpConnection.open({ label: 'ours', script: SERVER_BIN, env: { MCP_MEMORY_DATA_DIR: `${root}/ours` } });
    open.push(ours);
    const preload = new Progress(`ours preload N=${opts.n}`, opts.n);
    await runPool(opts.n, 16, (i) => ours.call('think', { text: texts[i]!, layer: 'user' }), (done) => preload.tick(done));
    const reference = await referenceWith(root, texts);
    open.push(reference);
    const t = { refWrite: [] as number[], ourWrite: [] as number[], refSearch: [] as number[], ourSearch: [] as number[], matches: [] as number[] };
    const writes = new Progress('write rounds', opts.samples);
    for (let i = 0; i < opts.samples; i++) {
      const text = load.nextText();
      t.refWrite.push((await reference.timedClientCall('create_entities', { entities: [referenceEntity(opts.n + i, text)] })).ms);
      t.ourWrite.push((await ours.timedClientCall('think', { text, layer: 'user' })).ms);
      writes.tick(i + 1);
    }
    const searches = new Progress('search rounds', opts.samples);
    for (let i = 0; i < opts.samples; i++) {
      const query = load.nextQuery();
      const ref = await reference.timedClientCall('search_nodes', { query });
      t.refSearch.push(ref.ms);
      const first = ref.result.content[0];
      t.matches.push(matchedEntities(first?.type === 'text' ? first.text : undefined));
      t.ourSearch.push((await ours.timedClientCall('dream', { query, limit: 10, layer: 'user' })).ms);
      searches.tick(i + 1);
    }
    const p50 = (v: number[]) => percentile(v, 50);
    const result: SideBySideResult = {
      workload: opts.workload,
      n: opts.n,
      samples: opts.samples,
      write: { reference_p50_ms: p50(t.refWrite), ours_p50_ms: p50(t.ourWrite), ratio: p50(t.refWrite) / p50(t.ourWrite) },
      search: {
        reference_p50_ms: p50(t.refSearch),
        ours_p50_ms: p50(t.ourSearch),
        ratio: p50(t.refSearch) / p50(t.ourSearch),
        reference_matches_p50: p50(t.matches),
      },
    };
    process.stdout.write(renderSideBySide(result));
    if (opts.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    for (const c of open) await c.close().catch(() => undefined);
    removeDir(root);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`side-by-side: ${err instanceof Error ? err.message : String(err)}\n${SIDE_BY_SIDE_USAGE}\n`);
    process.exit(1);
  });
}
