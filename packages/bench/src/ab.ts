/**
 * `npm run ab -w @memory-service/bench -- --a <checkout> [--b <checkout>] [--n 10000] [--samples 150]`:
 * two builds of our server timed in the same rounds, to tell whether a change made think or dream
 * faster on a machine too noisy for two separate benchmark runs to say. Each checkout must be
 * built (`npm run build`); B defaults to this one. Both servers get the same N thoughts, the
 * reference server the same N texts, then each round times, for A and B in turn (the order
 * alternates from round to round): think right after one of the reference's create_entities,
 * dream right after one of its search_nodes (as the benchmark alternates), and then each build's
 * dreams back to back. Both builds answer the same query in a round. Prints p50s, B / A, in how
 * many rounds B was the faster, and the reference's p50 with its ratio to each build (ab-report.ts);
 * progress goes to stderr.
 */
import path from 'node:path';
import { renderAb, type AbRow } from './ab-report.js';
import { parseAbArgs, serverBinOf } from './ab-args.js';
import { referenceEntity } from './bench-servers.js';
import { runPool } from './concurrency.js';
import { McpConnection } from './mcp-connection.js';
import { freshTempDir, removeDir } from './paths.js';
import { note, Progress } from './progress.js';
import { referenceWith } from './reference-file.js';
import { TextGenerator } from './textgen.js';

async function ours(label: string, checkout: string, dir: string, texts: readonly string[]): Promise<McpConnection> {
  const conn = await McpConnection.open({ label, script: serverBinOf(checkout), env: { MCP_MEMORY_DATA_DIR: dir } });
  const progress = new Progress(`${label} preload N=${texts.length}`, texts.length);
  await runPool(texts.length, 16, (i) => conn.call('think', { text: texts[i]!, layer: 'user' }), (done) => progress.tick(done));
  return conn;
}

export async function main(argv: readonly string[]): Promise<void> {
  const opts = parseAbArgs(argv);
  const root = freshTempDir('memory-service-ab');
  const open: McpConnection[] = [];
  try {
    const gen = new TextGenerator(opts.seed);
    const texts = Array.from({ length: opts.n }, () => gen.nextText());
    note(`preloading ${opts.n} thoughts into A and B, and the reference with the same texts`);
    const a = await ours('A', opts.a, path.join(root, 'a'), texts);
    open.push(a);
    const b = await ours('B', opts.b, path.join(root, 'b'), texts);
    open.push(b);
    const reference = await referenceWith(root, texts);
    open.push(reference);
    const servers = { a, b };
    const times = { think: { a: [] as number[], b: [] as number[] }, dream: { a: [] as number[], b: [] as number[] }, b2b: { a: [] as number[], b: [] as number[] } };
    const referenceTimes = { think: [] as number[], dream: [] as number[] };
    const refGen = new TextGenerator(opts.seed + 1);
    const ourGen = new TextGenerator(opts.seed + 2);
    let refIndex = opts.n;
    const progress = new Progress('rounds', opts.samples);
    for (let i = 0; i < opts.samples; i++) {
      const order = i % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
      const text = ourGen.nextText();
      const query = ourGen.nextQuery();
      for (const k of order) {
        referenceTimes.think.push((await reference.timedCall('create_entities', { entities: [referenceEntity(refIndex++, refGen.nextText())] })).ms);
        times.think[k].push((await servers[k].timedCall('think', { text, layer: 'user' })).ms);
        referenceTimes.dream.push((await reference.timedCall('search_nodes', { query: refGen.nextQuery() })).ms);
        times.dream[k].push((await servers[k].timedCall('dream', { query, limit: 10, layer: 'user' })).ms);
      }
      const inRow = [ourGen.nextQuery(), ourGen.nextQuery(), ourGen.nextQuery()];
      for (const k of order) for (const q of inRow) times.b2b[k].push((await servers[k].timedCall('dream', { query: q, limit: 10, layer: 'user' })).ms);
      progress.tick(i + 1);
    }
    const rows: AbRow[] = [
      { op: "think, after the reference's create_entities", ...times.think, reference: referenceTimes.think },
      { op: "dream, after the reference's search_nodes", ...times.dream, reference: referenceTimes.dream },
      { op: 'dream, back to back', ...times.b2b },
    ];
    process.stdout.write(renderAb({ a: opts.a, b: opts.b }, opts.n, rows));
  } finally {
    for (const c of open) await c.close().catch(() => undefined);
    removeDir(root);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`ab: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
