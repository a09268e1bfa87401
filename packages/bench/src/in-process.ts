/** The stores alone, called in-process (no MCP, no transport): the floor under our server's figures. */
import { performance } from 'node:perf_hooks';
import type { InProcessRun, InProcessSection } from './bench-types.js';
import { freshTempDir, removeDir } from './paths.js';
import { note, Progress } from './progress.js';
import { summarize } from './stats.js';
import { TextGenerator } from './textgen.js';

const SCOPE = { layer: 'user', user_id: 'default' } as const;

interface StoresHandle {
  add(text: string): unknown;
  search(query: string): unknown;
  close(): void;
}

type Opener = (dataDir: string) => StoresHandle;

/** Import a module by a name TypeScript does not resolve, so its typings (possibly still empty) do not matter. */
async function importLoose(specifier: string): Promise<Record<string, any>> {
  return (await import(specifier)) as Record<string, any>;
}

/** Resolve the stores and kernel packages, or say why they cannot be used. */
export async function loadStores(): Promise<{ ok: true; open: Opener } | { ok: false; reason: string }> {
  let stores: Record<string, any>;
  let kernel: Record<string, any>;
  try {
    stores = await importLoose('@memory-service/stores');
    kernel = await importLoose('@memory-service/kernel');
  } catch (err) {
    return { ok: false, reason: `import failed: ${(err as Error).message}` };
  }
  const { Stores, storesMigrations } = stores;
  const { Storage } = kernel;
  if (typeof Stores !== 'function') return { ok: false, reason: '@memory-service/stores does not export Stores' };
  if (!Array.isArray(storesMigrations)) return { ok: false, reason: '@memory-service/stores does not export storesMigrations' };
  if (typeof Storage !== 'function') return { ok: false, reason: '@memory-service/kernel does not export Storage' };
  const open: Opener = (dataDir) => {
    const storage = new Storage(dataDir);
    storage.migrate('@memory-service/stores', storesMigrations);
    const s = new Stores({ db: storage.db, dataDir, clock: { now: () => Date.now() } });
    return {
      add: (text) => s.episodes.add(SCOPE, { summary: text, emotional_weight: 0, tags: [], importance: 0.5 }),
      search: (query) => s.retrieval.search(SCOPE, query, { limit: 10, intent: 'balanced' }),
      close: () => {
        if (typeof s.close === 'function') s.close();
        storage.close();
      },
    };
  };
  return { ok: true, open };
}

/** Time one call, awaiting it only when it returns a promise. */
async function timed(fn: () => unknown): Promise<number> {
  const start = performance.now();
  const r = fn();
  if (r !== null && typeof r === 'object' && typeof (r as Promise<unknown>).then === 'function') await r;
  return performance.now() - start;
}

async function runOne(open: Opener, n: number, samples: number, seed: number): Promise<InProcessRun> {
  const dir = freshTempDir(`bench-stores-${n}`);
  const handle = open(dir);
  try {
    const texts = new TextGenerator(seed);
    const progress = new Progress(`stores in-process preload N=${n}`, n);
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      await timed(() => handle.add(texts.nextText()));
      if ((i + 1) % 1000 === 0 || i + 1 === n) progress.tick(i + 1);
    }
    const preloadMs = performance.now() - t0;
    const sampleTexts = new TextGenerator(seed + 1);
    const queries = new TextGenerator(seed + 2);
    const adds: number[] = [];
    const searches: number[] = [];
    for (let i = 0; i < samples; i++) adds.push(await timed(() => handle.add(sampleTexts.nextText())));
    for (let i = 0; i < samples; i++) searches.push(await timed(() => handle.search(queries.nextQuery())));
    return { n, add_ms: summarize(adds), search_ms: summarize(searches), preload_ms_per_item: n > 0 ? preloadMs / n : 0 };
  } finally {
    handle.close();
    removeDir(dir);
  }
}

/** Measure the stores at every N, or report the section skipped with the reason. */
export async function benchInProcess(sizes: readonly number[], samples: number, seed: number): Promise<InProcessSection> {
  const loaded = await loadStores();
  if (!loaded.ok) {
    note(`stores in-process: skipped (${loaded.reason})`);
    return { status: 'skipped', reason: loaded.reason };
  }
  const runs: InProcessRun[] = [];
  for (const n of sizes) {
    try {
      runs.push(await runOne(loaded.open, n, samples, seed));
    } catch (err) {
      const reason = `N=${n}: ${(err as Error).message}`;
      note(`stores in-process: failed (${reason})`);
      return runs.length > 0 ? { status: 'ok', runs, error: reason } : { status: 'skipped', reason };
    }
  }
  return { status: 'ok', runs };
}
