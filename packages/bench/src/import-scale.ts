/**
 * `npm run import-scale -w @memory-service/bench`: memory_data import of one large export file
 * (episodes, facts, timeline events, graph nodes and edges, wiki pages and links; about 48 MB at
 * the default 67,000 episodes) through the tool, in-process, into an empty data dir (`empty`) and
 * over the same records (`replace`, the file merged once first, untimed); `export` times an export
 * of those records to a file, and `export-held` the same while another connection holds the write
 * lock (BEGIN IMMEDIATE) all along. Each sample answers the call's time, how long another process
 * could not take the write lock meanwhile (lock-probe.ts, a child trying BEGIN IMMEDIATE every 2 ms:
 * the longest run of failed tries; not watched in `export-held`), the longest the server's event
 * loop answered nothing during the call (a 2 ms timer's longest lateness), and the longest a client
 * of another process waited for an answer over HTTP meanwhile (ping-probe.ts: GET /alive, one at a
 * time, the server serving HTTP as `--transport http` does); then the same two for `--after` ms
 * after the call returned (the work a commit leaves for later: page files, the index catch-up and
 * its idle rebuild a second after the last write).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { intFlag, readFlags } from './flags.js';
import { freshTempDir, removeDir } from './paths.js';
import { summarize } from './stats.js';
import { TextGenerator } from './textgen.js';

const SELF = fileURLToPath(import.meta.url);
// From dist/ or src/ (the tests): the built probe either way.
const PROBE = fileURLToPath(new URL('../dist/lock-probe.js', import.meta.url));
const PING = fileURLToPath(new URL('../dist/ping-probe.js', import.meta.url));
export const IMPORT_SCALE_MODES = ['empty', 'merge', 'replace', 'export', 'export-held'] as const;
export type ImportScaleMode = (typeof IMPORT_SCALE_MODES)[number];
export const IMPORT_SCALE_USAGE = `usage: node dist/import-scale.js [--episodes 67000] [--samples 3] [--modes ${IMPORT_SCALE_MODES.join(',')}] [--after 4000] [--json]`;

export interface ImportScaleOptions {
  /** Episodes of the exported scope; the other kinds follow (a fact and a timeline event per 3, a node and an edge per 4, a wiki page per 40, a link per 20). */
  episodes: number;
  samples: number;
  modes: ImportScaleMode[];
  /** How long the stalls and pings are watched after the call returned (ms). */
  after: number;
  json: boolean;
}

export interface ImportScaleRow {
  mode: ImportScaleMode;
  records: number;
  doc_bytes: number;
  /** Medians of the samples, each on a fresh data dir. */
  total_ms: number;
  lock_ms: number;
  /** The event loop's longest stall during the call. */
  stall_ms: number;
  /** The longest round trip of another process's HTTP pings during the call. */
  ping_ms: number;
  /** The same two in the `after` ms after the call returned. */
  after_stall_ms: number;
  after_ping_ms: number;
  /** Samples whose call failed (its error on stderr): an export waiting for a held lock, say. */
  failed: number;
}

export function parseImportScaleArgs(argv: readonly string[]): ImportScaleOptions {
  const opts: ImportScaleOptions = { episodes: 67_000, samples: 3, modes: ['empty', 'replace'], after: 4000, json: false };
  readFlags(argv, IMPORT_SCALE_USAGE, ['--json'], (flag, value) => {
    if (flag === '--json') opts.json = true;
    else if (flag === '--episodes') opts.episodes = intFlag(flag, value, 1);
    else if (flag === '--samples') opts.samples = intFlag(flag, value, 1);
    else if (flag === '--after') opts.after = intFlag(flag, value, 0);
    else if (flag === '--modes') {
      const modes = value.split(',');
      const bad = modes.find((m) => !(IMPORT_SCALE_MODES as readonly string[]).includes(m));
      if (bad !== undefined || modes.length === 0) throw new Error(`--modes takes a list of ${IMPORT_SCALE_MODES.join(', ')} (got ${JSON.stringify(bad ?? value)})\n${IMPORT_SCALE_USAGE}`);
      opts.modes = modes as ImportScaleMode[];
    } else throw new Error(`unknown option ${flag}\n${IMPORT_SCALE_USAGE}`);
  });
  return opts;
}

async function importLoose(specifier: string): Promise<Record<string, any>> {
  return (await import(specifier)) as Record<string, any>;
}

const SCOPE = { layer: 'user', user_id: 'default' } as const;
const WIKI_TYPES = ['diary', 'work_notes', 'retrospective'];

/** The export file of a scope of `episodes` episodes and the kinds that follow them; answers its path, size and record count. */
export async function buildExport(episodes: number, dir: string): Promise<{ file: string; bytes: number; records: number }> {
  const { Stores, storesMigrations } = await importLoose('@memory-service/stores');
  const { Storage } = await importLoose('@memory-service/kernel');
  const storage = new Storage(dir);
  try {
    storage.migrate('@memory-service/stores', storesMigrations);
    const s = new Stores({ db: storage.db, dataDir: dir, clock: { now: () => Date.now() }, transactions: storage });
    const g = new TextGenerator(20240601);
    const nodes: string[] = [];
    const titles: string[] = [];
    storage.transaction(() => {
      for (let i = 0; i < episodes; i++) {
        s.episodes.add(SCOPE, { summary: g.nextText(), context: i % 3 ? g.nextText() : '', emotional_weight: (i % 10) / 10, importance: ((i * 7) % 100) / 100, tags: [`t${i % 50}`, 'bulk'], meta: { n: i } });
        if (i % 3 === 0) s.facts.upsert(SCOPE, { key: `fact:${i}`, value: g.nextText(), importance: 0.05 + ((i * 13) % 95) / 100, metadata: { i } });
        if (i % 3 === 1) s.timeline.add(SCOPE, { type: i % 2 ? 'thought' : 'note', summary: g.nextText(), metadata: { i } });
        if (i % 4 === 0) nodes.push(s.graph.addNode(SCOPE, { content: `${g.nextText()} #${i}`, node_type: 'note', tags: [`g${i % 20}`] }).node_id);
        if (i % 4 === 3) s.graph.addEdge(SCOPE, { from: nodes[(i * 31) % nodes.length]!, to: nodes[nodes.length - 1]!, relation: 'relates_to', strength: 0.5 });
        if (i % 40 === 0) {
          const content = Array.from({ length: 12 }, () => g.nextText()).join('\n\n');
          titles.push(s.wiki.save(SCOPE, { title: `Page ${i} ${g.nextText().slice(0, 40)}`, content, wiki_type: WIKI_TYPES[i % 3]!, tags: [`w${i % 10}`] }).title);
        }
        if (i % 20 === 10 && titles.length > 1) s.wiki.link(SCOPE, titles[titles.length - 1]!, titles[(i * 17) % (titles.length - 1)]!, 'follows');
      }
    });
    const doc = s.scopeData.exportScope(SCOPE);
    const records = Object.values(s.scopeData.constructor.counts(doc) as Record<string, number>).reduce((a, b) => a + b, 0);
    const { file, bytes } = s.scopeData.writeFile(doc);
    s.close?.();
    return { file: path.join(dir, 'exports', file), bytes, records };
  } finally {
    storage.close();
  }
}

/** Start the lock probe on `db` (or the ping probe on an HTTP address); `stop()` answers its longest wait, `mark()` (ping probe) the longest so far, starting a new period. */
async function watchLock(db: string, probe = PROBE): Promise<{ stop(): Promise<number>; mark(): Promise<number> }> {
  const child = spawn(process.execPath, [probe, db], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the lock probe ended (${code}) before it watched`)));
    const wait = () => (out.includes('ready\n') ? resolve() : setTimeout(wait, 5));
    wait();
  });
  child.removeAllListeners('exit');
  const reports = () => out.split('\n').filter((l) => l.startsWith('{'));
  return {
    mark: async () => {
      const seen = reports().length;
      child.stdin.write('mark\n');
      while (reports().length === seen) await new Promise((r) => setTimeout(r, 1));
      return (JSON.parse(reports()[seen]!) as { longest_ms: number }).longest_ms;
    },
    stop: async () => {
      const ended = new Promise((r) => child.once('exit', r));
      child.stdin.write('stop\n');
      await ended;
      return (JSON.parse(reports().at(-1)!) as { longest_ms: number }).longest_ms;
    },
  };
}

/** Watch the event loop: `stop()` answers the longest a 2 ms timer fired late (ms). */
function watchStalls(): { stop(): number } {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const t = performance.now();
    longest = Math.max(longest, t - last - 2);
    last = t;
  }, 2);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(longest, performance.now() - last - 2, 0);
    },
  };
}

/** One timed import (or export) of `file` in `mode`, on a fresh data dir. */
async function once(file: string, mode: ImportScaleMode, afterMs: number): Promise<{ total: number; lock: number; stall: number; ping: number; afterStall: number; afterPing: number; failed: boolean }> {
  const { createService, serveHttp } = await importLoose('@memory-service/server');
  const { openSqlite } = await importLoose('@memory-service/kernel');
  const dir = freshTempDir('bench-import-scale');
  fs.mkdirSync(path.join(dir, 'exports'));
  fs.copyFileSync(file, path.join(dir, 'exports', 'doc.json'));
  const svc = await createService({ dataDir: dir, env: { ...process.env, MEMORY_LOG_QUIET: '1', MEMORY_EXPOSE: 'admin' } });
  const http = await serveHttp(svc, { port: 0 });
  try {
    const tool = svc.surface.get('memory_data');
    const call = async (args: Record<string, unknown>) => {
      const res = await tool.call({ action: 'import', file: 'doc.json', layer: 'user', ...args }, {});
      if (res.isError) throw new Error(`memory_data import failed: ${JSON.stringify(res.content)}`);
    };
    if (mode !== 'empty') await call({ mode: 'merge' });
    const db = path.join(dir, 'memory.db');
    const holder = mode === 'export-held' ? openSqlite(db) : null;
    holder?.exec('BEGIN IMMEDIATE');
    const probe = holder ? null : await watchLock(db);
    const pings = await watchLock(http.address, PING);
    const stalls = watchStalls();
    const start = performance.now();
    let failed = false;
    try {
      if (mode === 'export' || mode === 'export-held') {
        // A failure (a busy lock, say) is answered as an error result or thrown: either is counted.
        const res = await tool.call({ action: 'export', to_file: true, layer: 'user' }, {}).catch((err: Error) => ({ isError: true, content: err.message }));
        if (res.isError) {
          failed = true;
          process.stderr.write(`memory_data export failed: ${JSON.stringify(res.content).slice(0, 300)}\n`);
        }
      } else await call({ mode: mode === 'empty' ? 'merge' : mode });
    } finally {
      holder?.exec('ROLLBACK');
      holder?.close();
    }
    const total = performance.now() - start;
    const stall = stalls.stop();
    const ping = await pings.mark();
    const after = watchStalls();
    await new Promise((r) => setTimeout(r, afterMs));
    const afterStall = after.stop();
    return { total, lock: probe ? await probe.stop() : 0, stall, ping, afterStall, afterPing: await pings.stop(), failed };
  } finally {
    await http.close();
    await svc.close();
    removeDir(dir);
  }
}

export async function measureImportScale(opts: ImportScaleOptions): Promise<ImportScaleRow[]> {
  const src = freshTempDir('bench-import-scale-src');
  try {
    const doc = await buildExport(opts.episodes, src);
    process.stderr.write(`export: ${doc.records} records, ${(doc.bytes / 1e6).toFixed(1)} MB\n`);
    const rows: ImportScaleRow[] = [];
    for (const mode of opts.modes) {
      const total: number[] = [];
      const lock: number[] = [];
      const stall: number[] = [];
      const ping: number[] = [];
      const afterStall: number[] = [];
      const afterPing: number[] = [];
      let failed = 0;
      for (let k = 0; k < opts.samples; k++) {
        const r = await once(doc.file, mode, opts.after);
        total.push(r.total);
        lock.push(r.lock);
        stall.push(r.stall);
        ping.push(r.ping);
        afterStall.push(r.afterStall);
        afterPing.push(r.afterPing);
        if (r.failed) failed++;
        process.stderr.write(
          `${mode} sample ${k + 1}/${opts.samples}: ${r.total.toFixed(0)} ms, write lock held ${r.lock.toFixed(0)} ms, event loop stalled ${r.stall.toFixed(0)} ms, worst HTTP ping ${r.ping.toFixed(0)} ms; ${opts.after} ms after: stalled ${r.afterStall.toFixed(0)} ms, worst ping ${r.afterPing.toFixed(0)} ms${r.failed ? ', FAILED' : ''}\n`,
        );
      }
      rows.push({ mode, records: doc.records, doc_bytes: doc.bytes, total_ms: summarize(total).p50, lock_ms: summarize(lock).p50, stall_ms: summarize(stall).p50, ping_ms: summarize(ping).p50, after_stall_ms: summarize(afterStall).p50, after_ping_ms: summarize(afterPing).p50, failed });
    }
    return rows;
  } finally {
    removeDir(src);
  }
}

export function renderImportScale(rows: readonly ImportScaleRow[]): string {
  const lines = [
    '| mode | records | document (MB) | call p50 (ms) | write lock held p50 (ms) | event loop stall p50 (ms) | worst HTTP ping p50 (ms) | stall after p50 (ms) | worst ping after p50 (ms) | failed |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    lines.push(`| ${r.mode} | ${r.records.toLocaleString('en-US')} | ${(r.doc_bytes / 1e6).toFixed(1)} | ${r.total_ms.toFixed(0)} | ${r.lock_ms.toFixed(0)} | ${r.stall_ms.toFixed(0)} | ${r.ping_ms.toFixed(0)} | ${r.after_stall_ms.toFixed(0)} | ${r.after_ping_ms.toFixed(0)} | ${r.failed} |`);
  }
  return `${lines.join('\n')}\n`;
}

export async function main(argv: readonly string[]): Promise<void> {
  const opts = parseImportScaleArgs(argv);
  const rows = await measureImportScale(opts);
  process.stdout.write(renderImportScale(rows));
  if (opts.json) process.stdout.write(`${JSON.stringify(rows)}\n`);
}

if (process.argv[1] && SELF === path.resolve(process.argv[1])) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`import-scale: ${err instanceof Error ? err.message : String(err)}\n${IMPORT_SCALE_USAGE}\n`);
    process.exit(1);
  });
}
