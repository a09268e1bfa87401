/** Command-line options of the benchmark. */
import type { BenchOptions } from './bench-types.js';

export interface BenchCli extends BenchOptions {
  name: string;
  /** Regenerate docs/benchmarks.md and docs/bench-latency.svg. */
  writeDocs: boolean;
}

export const DEFAULT_SEED = 20240601;

export const USAGE = `usage: node dist/bench.js [--sizes 1000,10000,100000] [--ref-max 10000] [--samples 200]
                         [--name <result name>] [--seed <n>] [--smoke] [--no-docs]`;

function positiveInt(flag: string, value: string | undefined): number {
  const n = Number(value);
  if (value === undefined || !Number.isInteger(n) || n < 0) throw new Error(`${flag} needs a non-negative integer, got ${value ?? 'nothing'}`);
  return n;
}

/** A name safe to use as a file name: ISO date-time with ':' and '.' replaced. */
export function defaultResultName(now: Date): string {
  return now.toISOString().replace(/[:.]/g, '-');
}

export function parseBenchArgs(argv: readonly string[], now = new Date()): BenchCli {
  const opts: BenchCli = {
    sizes: [1000, 10_000, 100_000],
    refMax: 10_000,
    samples: 200,
    seed: DEFAULT_SEED,
    smoke: false,
    name: defaultResultName(now),
    writeDocs: true,
  };
  let sizesGiven = false;
  let samplesGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = (): string | undefined => argv[++i];
    switch (flag) {
      case '--sizes': {
        const raw = value() ?? '';
        opts.sizes = raw.split(',').filter((s) => s.trim() !== '').map((s) => positiveInt('--sizes', s.trim()));
        if (opts.sizes.length === 0) throw new Error('--sizes needs at least one size');
        sizesGiven = true;
        break;
      }
      case '--ref-max':
        opts.refMax = positiveInt(flag, value());
        break;
      case '--samples':
        opts.samples = positiveInt(flag, value());
        if (opts.samples === 0) throw new Error('--samples must be at least 1');
        samplesGiven = true;
        break;
      case '--name': {
        const name = value();
        if (!name || /[/\\]/.test(name)) throw new Error('--name needs a file name without slashes');
        opts.name = name;
        break;
      }
      case '--seed':
        opts.seed = positiveInt(flag, value());
        break;
      case '--smoke':
        opts.smoke = true;
        break;
      case '--no-docs':
        opts.writeDocs = false;
        break;
      default:
        throw new Error(`unknown argument ${flag}\n${USAGE}`);
    }
  }
  if (opts.smoke) {
    if (!sizesGiven) opts.sizes = [200];
    if (!samplesGiven) opts.samples = 50;
    opts.writeDocs = false;
  }
  opts.sizes = [...new Set(opts.sizes)].sort((a, b) => a - b);
  return opts;
}
