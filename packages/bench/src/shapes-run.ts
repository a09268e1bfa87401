/**
 * `npm run shapes -w @memory-service/bench -- [--sizes 1000,10000] [--samples 100] [--shapes a,b] [--checkout <dir>] [--json]`:
 * our server (this checkout's, or another built one's) alone over stdio, for each data shape of shapes.ts and each size: a fresh data dir, the
 * shape's items stored with think (16 in flight), then think and dream timed in turn, each after an
 * idle gap. Prints p50s per size and how much they grew from the smallest size to the largest
 * (shapes-report.ts); with --json a last line holding the rows. Progress goes to stderr.
 */
import { performance } from 'node:perf_hooks';
import { runPool } from './concurrency.js';
import { McpConnection } from './mcp-connection.js';
import { serverBinOf } from './ab-args.js';
import { freshTempDir, removeDir } from './paths.js';
import { Prng } from './prng.js';
import { note, Progress } from './progress.js';
import { parseShapesArgs } from './shapes-args.js';
import { renderShapes, type ShapePoint, type ShapeRow } from './shapes-report.js';
import { shapeQuery, type Shape } from './shapes.js';
import { percentile } from './stats.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Pause after the preload, so the server's timers (index catch-up, checkpoint) have run. */
const SETTLE_MS = 300;

async function measure(bin: string, shape: Shape, n: number, samples: number, gapMs: number): Promise<ShapePoint> {
  const dir = freshTempDir(`shapes-${shape.name}-${n}`);
  const conn = await McpConnection.open({ label: 'memory-service', script: bin, env: { MCP_MEMORY_DATA_DIR: dir } });
  try {
    const items = shape.items(n);
    const texts = new Prng(n);
    const progress = new Progress(`${shape.name} N=${n} preload`, items);
    const think = (i: number) => conn.call('think', { ...shape.item(texts, i), layer: 'user' });
    await runPool(items, 16, think, (done) => progress.tick(done));
    await sleep(SETTLE_MS);
    const queries = new Prng(n + 1);
    const thinks: number[] = [];
    const dreams: number[] = [];
    for (let k = 0; k < samples; k++) {
      await sleep(gapMs);
      let start = performance.now();
      await think(items + k);
      thinks.push(performance.now() - start);
      await sleep(gapMs);
      start = performance.now();
      await conn.call('dream', { query: shapeQuery(queries), limit: 10, layer: 'user' });
      dreams.push(performance.now() - start);
    }
    const point = { n, items, think_p50_ms: percentile(thinks, 50), dream_p50_ms: percentile(dreams, 50) };
    note(`${shape.name} N=${n}: ${items} items, think p50 ${point.think_p50_ms.toFixed(3)} ms, dream p50 ${point.dream_p50_ms.toFixed(3)} ms`);
    return point;
  } finally {
    await conn.close().catch(() => undefined);
    removeDir(dir);
  }
}

export async function main(argv: readonly string[]): Promise<void> {
  const opts = parseShapesArgs(argv);
  const rows: ShapeRow[] = [];
  for (const shape of opts.shapes) {
    const points: ShapePoint[] = [];
    for (const n of opts.sizes) points.push(await measure(serverBinOf(opts.checkout), shape, n, opts.samples, opts.gapMs));
    rows.push({ shape: shape.name, stores: shape.stores, points });
  }
  process.stdout.write(`${opts.checkout}\n\n${renderShapes(rows, opts.samples, opts.gapMs)}`);
  if (opts.json) process.stdout.write(`${JSON.stringify({ samples: opts.samples, gap_ms: opts.gapMs, rows })}\n`);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`shapes: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
