/**
 * `npm run import-replace -w @memory-service/bench`: how long memory_data import with mode replace
 * takes against how much the target scope holds, in-process (the stores alone, inside one outer
 * transaction as a tool call runs it). The replace archives and deletes every record of the target
 * first: its time should grow with the records, not faster.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { intFlag, readFlags, sizesFlag } from './flags.js';
import { freshTempDir, removeDir } from './paths.js';
import { summarize } from './stats.js';
import { TextGenerator } from './textgen.js';

const SELF = fileURLToPath(import.meta.url);
export const IMPORT_REPLACE_USAGE = 'usage: node dist/import-replace.js [--sizes 2000,4000,8000] [--samples 3] [--json]';

export interface ImportReplaceOptions {
  /** Two or more sizes, ascending: episodes the target holds (plus a fact per 20 and a graph node per 50). */
  sizes: number[];
  samples: number;
  json: boolean;
}

export interface ImportReplaceRow {
  n: number;
  /** Median of the samples, each on a fresh data dir. */
  p50_ms: number;
  us_per_record: number;
}

export function parseImportReplaceArgs(argv: readonly string[]): ImportReplaceOptions {
  const opts: ImportReplaceOptions = { sizes: [2000, 4000, 8000], samples: 3, json: false };
  readFlags(argv, IMPORT_REPLACE_USAGE, ['--json'], (flag, value) => {
    if (flag === '--json') opts.json = true;
    else if (flag === '--sizes') opts.sizes = sizesFlag(flag, value);
    else if (flag === '--samples') opts.samples = intFlag(flag, value, 1);
    else throw new Error(`unknown option ${flag}\n${IMPORT_REPLACE_USAGE}`);
  });
  return opts;
}

async function importLoose(specifier: string): Promise<Record<string, any>> {
  return (await import(specifier)) as Record<string, any>;
}

/** One timed replace over a target of `n` episodes, on a fresh data dir; answers ms and the records cleared. */
async function once(n: number, seed: number): Promise<{ ms: number; records: number }> {
  const { Stores, storesMigrations } = await importLoose('@memory-service/stores');
  const { Storage } = await importLoose('@memory-service/kernel');
  const dir = freshTempDir(`bench-import-${n}`);
  const storage = new Storage(dir);
  try {
    storage.migrate('@memory-service/stores', storesMigrations);
    const s = new Stores({ db: storage.db, dataDir: dir, clock: { now: () => Date.now() }, transactions: storage });
    const target = { layer: 'user', user_id: 'default' };
    const source = { layer: 'user', user_id: 'source' };
    const texts = new TextGenerator(seed);
    storage.transaction(() => {
      for (let i = 0; i < n; i++) {
        s.episodes.add(target, { summary: texts.nextText(), emotional_weight: 0, tags: [], importance: 0.5 });
        if (i % 20 === 0) s.facts.upsert(target, { key: `fact-${i}`, value: texts.nextText() });
        if (i % 50 === 0) s.graph.addNode(target, { content: texts.nextText(), node_type: 'note' });
      }
      for (let i = 0; i < 50; i++) s.episodes.add(source, { summary: texts.nextText(), emotional_weight: 0, tags: [], importance: 0.5 });
    });
    const doc = s.scopeData.exportScope(source);
    const start = performance.now();
    const res = storage.transaction(() => s.scopeData.importScope(target, doc, 'replace'));
    const ms = performance.now() - start;
    const cleared = res.cleared as Record<string, number>;
    s.close?.();
    return { ms, records: cleared.episodes + cleared.facts + cleared.graph_nodes };
  } finally {
    storage.close();
    removeDir(dir);
  }
}

export async function measureImportReplace(opts: ImportReplaceOptions): Promise<ImportReplaceRow[]> {
  const rows: ImportReplaceRow[] = [];
  for (const n of opts.sizes) {
    const ms: number[] = [];
    let records = 0;
    for (let k = 0; k < opts.samples; k++) {
      const r = await once(n, 20240601 + k);
      ms.push(r.ms);
      records = r.records;
      process.stderr.write(`import replace N=${n} sample ${k + 1}/${opts.samples}: ${r.ms.toFixed(0)} ms\n`);
    }
    const p50 = summarize(ms).p50;
    rows.push({ n, p50_ms: p50, us_per_record: (p50 * 1000) / records });
  }
  return rows;
}

export function renderImportReplace(rows: readonly ImportReplaceRow[]): string {
  const lines = ['| target episodes | replace p50 (ms) | µs per record cleared | time / time at the first size |', '|---|---|---|---|'];
  for (const r of rows) lines.push(`| ${r.n.toLocaleString('en-US')} | ${r.p50_ms.toFixed(0)} | ${r.us_per_record.toFixed(1)} | ${(r.p50_ms / rows[0].p50_ms).toFixed(2)}x (size ${(r.n / rows[0].n).toFixed(0)}x) |`);
  return `${lines.join('\n')}\n`;
}

export async function main(argv: readonly string[]): Promise<void> {
  const opts = parseImportReplaceArgs(argv);
  const rows = await measureImportReplace(opts);
  process.stdout.write(renderImportReplace(rows));
  if (opts.json) process.stdout.write(`${JSON.stringify(rows)}\n`);
}

if (process.argv[1] && SELF === path.resolve(process.argv[1])) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`import-replace: ${err instanceof Error ? err.message : String(err)}\n${IMPORT_REPLACE_USAGE}\n`);
    process.exit(1);
  });
}
