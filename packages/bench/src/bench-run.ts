/**
 * One benchmark size: fresh servers, preload N items, then alternating timed samples and, where both
 * servers run, the same calls back to back.
 */
import { performance } from 'node:perf_hooks';
import { openServer, type BenchServer, type ServerKind } from './bench-servers.js';
import type { CeilingRun, RunFailure, ServerRun } from './bench-types.js';
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
  /** The first search right after the preload (none for the zero-work server, which stores nothing). */
  firstSearchMs?: number;
  writes: number[];
  searches: number[];
  pings: number[];
  /** Samples of the back-to-back pass; absent where it did not run (only one server at this N). */
  backToBack?: { writes: number[]; searches: number[] };
  sampleTexts: TextGenerator;
  queries: TextGenerator;
}

export interface SizeOutcome {
  runs: ServerRun[];
  failures: RunFailure[];
  /** Present when the reference ran at this N and the zero-work server could be measured against it. */
  ceiling?: CeilingRun;
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

/** Spawn one server and preload it (the zero-work server stores nothing, so it is not preloaded). */
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
  const items = kind === 'floor' ? 0 : n;
  note(`[N=${n}] ${kind}: tools/list answered ${spawnMs.toFixed(1)} ms after spawn; preloading ${items} items`);
  try {
    const preloadMsPerItem = await preload(server, items, seed);
    // Its own query stream, so the timed samples ask what they asked before this figure existed.
    const firstSearchMs = items > 0 ? await server.search(new TextGenerator(seed + 3).nextQuery()) : undefined;
    return {
      server,
      dir,
      spawnMs,
      preloadMsPerItem,
      firstSearchMs,
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

/**
 * Take `samples` rounds of one operation, alternating the servers within each round. A server that
 * fails is recorded, dropped from the rounds and released (by default: closed, its data dir removed).
 */
async function alternate(
  live: Live[],
  samples: number,
  op: string,
  n: number,
  failures: RunFailure[],
  step: (l: Live, i: number) => Promise<void>,
  release: (l: Live) => Promise<unknown> = finish,
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
        await release(l);
      }
    }
    current = still;
  }
  return current;
}

/** Close a server and remove its data dir, after `beforeRemove` (if given) has used what the server left there. */
async function finish(l: Live, beforeRemove?: () => Promise<void>): Promise<{ peak: number | null; bytes: number }> {
  const peak = l.server.connection.peakRssBytes();
  await l.server.connection.close().catch(() => undefined);
  const bytes = directorySize(l.dir);
  await beforeRemove?.();
  removeDir(l.dir);
  return { peak, bytes };
}

/**
 * Our server started again on the data dir it has just closed, with its first search sent as soon
 * as tools/list answers. Undefined (and a failure recorded) when the restart does not work.
 */
async function restart(l: Live, n: number, failures: RunFailure[]): Promise<ServerRun['restart']> {
  let again: BenchServer | undefined;
  try {
    again = await openServer(l.server.kind, l.dir);
    const first_search_ms = await again.search(l.queries.nextQuery());
    note(`[N=${n}] ${l.server.kind} restarted: tools/list ${again.connection.spawnToToolsMs.toFixed(1)} ms after spawn, first search ${first_search_ms.toFixed(1)} ms`);
    return { spawn_to_tools_list_ms: again.connection.spawnToToolsMs, first_search_ms };
  } catch (err) {
    failures.push({ server: l.server.kind, n, error: `restart: ${(err as Error).message}` });
    note(`[N=${n}] ${l.server.kind}: restart failed: ${(err as Error).message}`);
    return undefined;
  } finally {
    await again?.connection.close().catch(() => undefined);
  }
}

/**
 * Each server's writes back to back (all of one server's samples in a row, then the next server's),
 * then its searches the same way, with the same calls and generators as the main rounds. An agent's
 * calls to one server come back to back; the alternating rounds put the reference's turn, and what it
 * leaves in the caches, before each of ours. Writes go on after the main rounds' indexes
 * (n + samples + i). A server that fails is recorded and released, as in the main rounds.
 */
async function backToBackPass(live: Live[], n: number, samples: number, failures: RunFailure[]): Promise<Live[]> {
  note(`[N=${n}] back to back: ${samples} writes of each server in a row, then ${samples} searches of each`);
  for (const l of live) l.backToBack = { writes: [], searches: [] };
  const writers: Live[] = [];
  for (const l of live) {
    writers.push(...(await alternate([l], samples, 'back-to-back write', n, failures, async (x, i) => {
      x.backToBack?.writes.push(await x.server.write(x.sampleTexts.nextText(), n + samples + i));
    })));
  }
  const searchers: Live[] = [];
  for (const l of writers) {
    searchers.push(...(await alternate([l], samples, 'back-to-back search', n, failures, async (x) => {
      x.backToBack?.searches.push(await x.server.search(x.queries.nextQuery()));
    })));
  }
  return searchers;
}

/**
 * The zero-work server alternated with the reference, after the main samples: the same rounds
 * (writes, then searches) under the same conditions as ours, so reference p50 over its p50 bounds
 * the ratio any stdio server could show. The reference keeps its data dir and writes new names.
 */
async function ceilingPass(ref: Live, n: number, samples: number, seed: number, failures: RunFailure[]): Promise<CeilingRun | undefined> {
  const floor = await start('floor', n, seed, failures);
  if (!floor) return undefined;
  // The reference's own figures were taken already: its failure here only voids the ceiling, and its
  // main run closes it as usual.
  const paired: Live = { ...ref, writes: [], searches: [], pings: [], backToBack: undefined };
  const release = (l: Live) => (l === paired ? Promise.resolve() : finish(l));
  note(`[N=${n}] ceiling: ${samples} zero-work calls alternated with the reference's writes, then its searches`);
  // Indexes after those of the main rounds (n + i) and of the back-to-back pass (n + samples + i).
  let live = await alternate([floor, paired], samples, 'ceiling write', n, failures, async (l, i) => {
    l.writes.push(await l.server.write(l.sampleTexts.nextText(), n + 2 * samples + i));
  }, release);
  live = await alternate(live, samples, 'ceiling search', n, failures, async (l) => {
    l.searches.push(await l.server.search(l.queries.nextQuery()));
  }, release);
  if (live.includes(floor)) await finish(floor);
  if (live.length < 2) return undefined;
  const ceiling: CeilingRun = {
    n,
    floor_write_ms: summarize(floor.writes),
    floor_search_ms: summarize(floor.searches),
    reference_write_ms: summarize(paired.writes),
    reference_search_ms: summarize(paired.searches),
  };
  note(`[N=${n}] ceiling: zero-work p50 ${ceiling.floor_write_ms.p50.toFixed(3)} / ${ceiling.floor_search_ms.p50.toFixed(3)} ms in the write / search rounds`);
  return ceiling;
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
  if (live.length > 1) live = await backToBackPass(live, n, samples, failures);
  const ref = live.find((l) => l.server.kind === 'reference');
  const ceiling = ref ? await ceilingPass(ref, n, samples, seed, failures) : undefined;
  const runs: ServerRun[] = [];
  for (const l of live) {
    // Ours is started once more on the data it closed, before the dir goes.
    let again: ServerRun['restart'];
    const { peak, bytes } = await finish(
      l,
      l.server.kind === 'ours'
        ? async () => {
            again = await restart(l, n, failures);
          }
        : undefined,
    );
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
      ...(l.firstSearchMs !== undefined ? { first_search_after_preload_ms: l.firstSearchMs } : {}),
      spawn_to_tools_list_ms: l.spawnMs,
      peak_rss_bytes: peak,
      data_bytes: bytes,
      ...(again ? { restart: again } : {}),
    };
    if (l.backToBack) {
      run.write_b2b_ms = summarize(l.backToBack.writes);
      run.search_b2b_ms = summarize(l.backToBack.searches);
    }
    note(
      `[N=${n}] ${run.server}: write p50 ${run.write_ms.p50.toFixed(3)} ms, search p50 ${run.search_ms.p50.toFixed(3)} ms, ping p50 ${run.ping_p50_ms.toFixed(3)} ms` +
        (run.write_b2b_ms && run.search_b2b_ms
          ? `; back to back: write p50 ${run.write_b2b_ms.p50.toFixed(3)} ms, search p50 ${run.search_b2b_ms.p50.toFixed(3)} ms`
          : ''),
    );
    runs.push(run);
  }
  return ceiling ? { runs, failures, ceiling } : { runs, failures };
}
