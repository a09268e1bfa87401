/**
 * `npm run forget-scale -w @memory-service/bench`: how long a fuzzy `forget` takes against how
 * much the scope holds, through the forget tool in-process (one tool call, its transaction and
 * all). Each size holds `n` episodes written as think writes them (a neighbouring context of the
 * thoughts before, and a timeline event naming the episode), and one in `every` holds the word
 * forgotten, so the records deleted grow with the store: the time should grow with the store
 * (linear), not with the store times the records deleted.
 * `--mode` times another admin call over the same store instead: `exact`, the forget exact of a
 * fact whose value no other record holds (its first word, "the", is in nearly every one);
 * `reflect`, a memory_reflect write over the last 24 hours (every record); `cleanup`, a dry-run
 * memory_cleanup of every task.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { intFlag, readFlags, sizesFlag } from './flags.js';
import { freshTempDir, removeDir } from './paths.js';
import { summarize } from './stats.js';
import { TextGenerator } from './textgen.js';

const SELF = fileURLToPath(import.meta.url);
export const FORGET_SCALE_USAGE = 'usage: node dist/forget-scale.js [--sizes 4000,8000,16000] [--every 8] [--samples 3] [--mode fuzzy|exact|reflect|cleanup] [--json]';

export const FORGET_SCALE_MODES = ['fuzzy', 'exact', 'reflect', 'cleanup'] as const;
export type ForgetScaleMode = (typeof FORGET_SCALE_MODES)[number];

/** The word forgotten: in no generated text, so only the episodes given it hold it. */
export const FORGOTTEN_WORD = 'quetzalcoatl';
/** Characters of the thoughts before that an episode's context keeps, as think keeps them. */
const CONTEXT_CHARS = 1000;

export interface ForgetScaleOptions {
  /** Two or more sizes, ascending: episodes the scope holds. */
  sizes: number[];
  /** One episode in this many holds the forgotten word. */
  every: number;
  samples: number;
  /** The call timed (default fuzzy). */
  mode: ForgetScaleMode;
  json: boolean;
}

export interface ForgetScaleRow {
  n: number;
  mode: ForgetScaleMode;
  /** Episodes the forget deleted. */
  deleted: number;
  /** Contexts it cleared (those holding a deleted thought). */
  scrubbed: number;
  /** Median of the samples, each on a fresh data dir. */
  p50_ms: number;
}

export function parseForgetScaleArgs(argv: readonly string[]): ForgetScaleOptions {
  const opts: ForgetScaleOptions = { sizes: [4000, 8000, 16000], every: 8, samples: 3, mode: 'fuzzy', json: false };
  readFlags(argv, FORGET_SCALE_USAGE, ['--json'], (flag, value) => {
    if (flag === '--json') opts.json = true;
    else if (flag === '--sizes') opts.sizes = sizesFlag(flag, value);
    else if (flag === '--every') opts.every = intFlag(flag, value, 1);
    else if (flag === '--samples') opts.samples = intFlag(flag, value, 1);
    else if (flag === '--mode') {
      if (!(FORGET_SCALE_MODES as readonly string[]).includes(value)) throw new Error(`--mode must be one of ${FORGET_SCALE_MODES.join(', ')} (got ${value})\n${FORGET_SCALE_USAGE}`);
      opts.mode = value as ForgetScaleMode;
    }
    else throw new Error(`unknown option ${flag}\n${FORGET_SCALE_USAGE}`);
  });
  return opts;
}

async function importLoose(specifier: string): Promise<Record<string, any>> {
  return (await import(specifier)) as Record<string, any>;
}

/** The key of the fact forgotten in mode exact, and its value: no generated text holds it, but its first word is in nearly all. */
const EXACT_KEY = 'bench-exact';
const EXACT_VALUE = 'The zanzibarite ledger of the bay';

/** The tool call each mode times. */
const CALLS: Record<ForgetScaleMode, { tool: string; args: Record<string, unknown> }> = {
  fuzzy: { tool: 'forget', args: { key: FORGOTTEN_WORD, scope: 'fuzzy', layer: 'user', shadow_bin: true } },
  exact: { tool: 'forget', args: { key: EXACT_KEY, scope: 'exact', layer: 'user', shadow_bin: true } },
  reflect: { tool: 'memory_reflect', args: { action: 'write', period_hours: 24, layer: 'user' } },
  cleanup: { tool: 'memory_cleanup', args: { dry_run: true, layer: 'user' } },
};

/** One timed call of the mode over `n` episodes, on a fresh data dir. */
async function once(n: number, every: number, seed: number, mode: ForgetScaleMode): Promise<{ ms: number; deleted: number; scrubbed: number }> {
  const { createService } = await importLoose('@memory-service/server');
  const dir = freshTempDir(`bench-forget-${n}`);
  const svc = await createService({ dataDir: dir, env: { ...process.env, MEMORY_LOG_QUIET: '1', MEMORY_EXPOSE: 'full' } });
  try {
    const stores = svc.kernel.container.resolve('stores');
    const scope = { layer: 'user', user_id: 'default' };
    const texts = new TextGenerator(seed);
    stores.transaction(() => {
      let before = '';
      for (let i = 0; i < n; i++) {
        const summary = i % every === 0 ? `${texts.nextText()} ${FORGOTTEN_WORD}` : texts.nextText();
        const ep = stores.episodes.add(scope, { summary, context: before, emotional_weight: 0, tags: [], importance: 0.5 });
        stores.timeline.add(scope, { type: 'thought_stored', summary: summary.slice(0, 200), metadata: { refs: [`l3:${ep.id}`] } });
        before = `${summary} ${before}`.slice(0, CONTEXT_CHARS);
      }
    });
    if (mode === 'exact') stores.facts.upsert(scope, { key: EXACT_KEY, value: EXACT_VALUE });
    const { tool, args } = CALLS[mode];
    const start = performance.now();
    const res = await svc.surface.get(tool).call(args, {});
    const ms = performance.now() - start;
    const out = (res.structuredContent ?? res) as { deleted_l3?: number; scrubbed_context?: number };
    return { ms, deleted: out.deleted_l3 ?? 0, scrubbed: out.scrubbed_context ?? 0 };
  } finally {
    await svc.close();
    removeDir(dir);
  }
}

export async function measureForgetScale(opts: ForgetScaleOptions): Promise<ForgetScaleRow[]> {
  const rows: ForgetScaleRow[] = [];
  for (const n of opts.sizes) {
    const ms: number[] = [];
    let last = { deleted: 0, scrubbed: 0 };
    for (let k = 0; k < opts.samples; k++) {
      const r = await once(n, opts.every, 20240601 + k, opts.mode);
      ms.push(r.ms);
      last = r;
      process.stderr.write(`${opts.mode} N=${n} sample ${k + 1}/${opts.samples}: ${r.ms.toFixed(0)} ms, ${r.deleted} deleted\n`);
    }
    rows.push({ n, mode: opts.mode, deleted: last.deleted, scrubbed: last.scrubbed, p50_ms: summarize(ms).p50 });
  }
  return rows;
}

export function renderForgetScale(rows: readonly ForgetScaleRow[]): string {
  const label = { fuzzy: 'forget fuzzy', exact: 'forget exact', reflect: 'memory_reflect', cleanup: 'memory_cleanup' }[rows[0]?.mode ?? 'fuzzy'];
  const lines = [`| episodes | deleted | contexts cleared | ${label} p50 (ms) | time / time at the first size |`, '|---|---|---|---|---|'];
  for (const r of rows) {
    lines.push(`| ${r.n.toLocaleString('en-US')} | ${r.deleted.toLocaleString('en-US')} | ${r.scrubbed.toLocaleString('en-US')} | ${r.p50_ms.toFixed(0)} | ${(r.p50_ms / rows[0].p50_ms).toFixed(2)}x (size ${(r.n / rows[0].n).toFixed(0)}x) |`);
  }
  return `${lines.join('\n')}\n`;
}

export async function main(argv: readonly string[]): Promise<void> {
  const opts = parseForgetScaleArgs(argv);
  const rows = await measureForgetScale(opts);
  process.stdout.write(renderForgetScale(rows));
  if (opts.json) process.stdout.write(`${JSON.stringify(rows)}\n`);
}

if (process.argv[1] && SELF === path.resolve(process.argv[1])) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`forget-scale: ${err instanceof Error ? err.message : String(err)}\n${FORGET_SCALE_USAGE}\n`);
    process.exit(1);
  });
}
