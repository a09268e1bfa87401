/** Command-line options of `npm run side-by-side` (side-by-side.ts). */
import { DEFAULT_SEED } from './bench-args.js';
import { workload } from './workloads.js';

export const SIDE_BY_SIDE_USAGE =
  'usage: node dist/side-by-side.js [--n 10000] [--samples 300] [--workload bench|uniform:<V>|zipf:<V>] [--seed <n>] [--json]';

export interface SideBySideOptions {
  n: number;
  samples: number;
  workload: string;
  seed: number;
  json: boolean;
}

export function parseSideBySideArgs(argv: readonly string[]): SideBySideOptions {
  const opts: SideBySideOptions = { n: 10_000, samples: 300, workload: 'bench', seed: DEFAULT_SEED, json: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--json') {
      opts.json = true;
      continue;
    }
    const value = argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value\n${SIDE_BY_SIDE_USAGE}`);
    if (flag === '--workload') {
      workload(value, 0);
      opts.workload = value;
    } else if (flag === '--n' || flag === '--samples' || flag === '--seed') {
      const v = Number(value);
      const min = flag === '--seed' ? 0 : 1;
      if (!Number.isInteger(v) || v < min) throw new Error(`${flag} needs an integer of at least ${min}, got ${value}`);
      opts[flag.slice(2) as 'n' | 'samples' | 'seed'] = v;
    } else throw new Error(`unknown option ${flag}\n${SIDE_BY_SIDE_USAGE}`);
  }
  return opts;
}
