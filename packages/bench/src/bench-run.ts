/** One benchmark size: fresh servers, preload N items, then alternating timed samples. */
import { performance } from 'node:perf_hooks';
import { openServer, type BenchServer, type ServerKind } from './bench-servers.js';
import type { RunFailure, ServerRun } from './bench-types.js';
import { runPool } from './concurrency.js';
import { freshTempDir, removeDir } from './paths.js';
import { directorySize } from './proc-stats.js';
import { note, Progress } from './progress.js';
import { percentile, summarize } from './stats.js';
import { TextGenerator } from './textgen.js';

interface Live {
  server: BenchServer;
  dir: string;
  spawnMs: number;
  preloadMsPerItem: number;
  writes: number[];
  searches: number[];
  pings: number[];
  sampleTexts: TextGenerator;
  queries: TextGenerator;
}

export interface SizeOutcome {
  runs: ServerRun[];
  failures: RunFailure[];
}

async function preload(server: BenchServer, n: number, seed: number): Promise<number> {
  const texts = new TextGenerator(seed);
  const progress = new Progress(`${server.kind} preload N=${n}`, n);
  const start = performance.now();
  await runPool(
    n,
    server.preloadConcurrency,
    (i) => server.write(texts.nextText(), i),
    (done) => progress.tick(done),
  );
  return n > 0 ? (performance.now() - start) / n : 0;
}

async function start(kind: ServerKind, n: number, seed: number, failures: RunFailure[]): Promise<Live | null> {
  const dir = freshTempDir(`bench-${kind}-${n}`);
  let server: BenchServer;
  try {
    server = await openServer(kind, dir);
  } catch (err) {
    failures.push({ server: kind, n, error: (err as Error).message });
    note(`[N=${n}] ${kind}: ${(err as Error).message}`);
    removeDir(dir);
    return null;
  }
  const spawnMs = server.connection.spawnToToolsMs;
  note(`[N=${n}] ${kind}: tools/list answered ${spawnMs.toFixed(1)} ms after spawn; preloading ${n} items`);
  try {
    const preloadMsPerItem = await preload(server, n, seed);
    return {
      server,
      dir,
      spawnMs,
      preloadMsPerItem,
      writes: [],
      searches: [],
      pings: [],
      sampleTexts: new TextGenerator(seed + 1),
      queries: new TextGenerator(seed + 2),
    };
  } catch (err) {
    failures.push({ server: kind, n, error: `preload: ${(err as Error).message}` });
    note(`[N=${n}] ${kind}: preload failed: ${(err as Error).message}\n${server.connection.stderr}`);
    await server.connection.close().catch(() => undefined);
    removeDir(dir);
    return null;
  }
}

/** Take `samples` rounds of one operation, alternating the servers within each round. */
async function alternate(
  live: Live[],
  samples: number,
  op: string,
  n: number,
  failures: RunFailure[],
  step: (l: Live, i: number) => Promise<void>,
): Promise<Live[]> {
  let current = live;
  for (let i = 0; i < samples; i++) {
    const still: Live[] = [];
    for (const l of current) {
      try {
        await step(l, i);
        still.push(l);
      } catch (err) {
        failures.push({ server: l.server.kind, n, error: `${op}: ${(err as Error).message}` });
        note(`[N=${n}] ${l.server.kind}: ${op} failed: ${(err as Error).message}`);
        await finish(l);
      }
    }
    current = still;
  }
  return current;
}

async function finish(l: Live): Promise<{ peak: number | null; bytes: number }> {
  const peak = l.server.connection.peakRssBytes();
  await l.server.connection.close().catch(() => undefined);
  const bytes = directorySize(l.dir);
  removeDir(l.dir);
  return { peak, bytes };
}

/** Measure the given servers at one N. */
export async function benchSize(kinds: readonly ServerKind[], n: number, samples: number, seed: number): Promise<SizeOutcome> {
  const failures: RunFailure[] = [];
  let live: Live[] = [];
  for (const kind of kinds) {
    const l = await start(kind, n, seed, failures);
    if (l) live.push(l);
  }
  note(`[N=${n}] measuring ${samples} writes, searches and pings (${live.map((l) => l.server.kind).join(', ') || 'no server'})`);
  live = await alternate(live, samples, 'write', n, failures, async (l, i) => {
    l.writes.push(await l.server.write(l.sampleTexts.nextText(), n + i));
  });
  live = await alternate(live, samples, 'search', n, failures, async (l) => {
    l.searches.push(await l.server.search(l.queries.nextQuery()));
  });
  live = await alternate(live, samples, 'ping', n, failures, async (l) => {
    l.pings.push(await l.server.connection.timedPing());
  });
  const runs: ServerRun[] = [];
  for (const l of live) {
    const { peak, bytes } = await finish(l);
    const run: ServerRun = {
      server: l.server.kind,
      n,
      write_tool: l.server.ops.write,
      search_tool: l.server.ops.search,
      write_ms: summarize(l.writes),
      search_ms: summarize(l.searches),
      ping_p50_ms: percentile(l.pings, 50),
      preload_ms_per_item: l.preloadMsPerItem,
      preload_concurrency: l.server.preloadConcurrency,
      spawn_to_tools_list_ms: l.spawnMs,
      peak_rss_bytes: peak,
      data_bytes: bytes,
    };
    note(
      `[N=${n}] ${run.server}: write p50 ${run.write_ms.p50.toFixed(3)} ms, search p50 ${run.search_ms.p50.toFixed(3)} ms, ping p50 ${run.ping_p50_ms.toFixed(3)} ms`,
    );
    runs.push(run);
  }
  return { runs, failures };
}
