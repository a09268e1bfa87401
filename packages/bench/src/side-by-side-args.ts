/** Command-line options of `npm run side-by-side` (side-by-side.ts). */
import { DEFAULT_SEED } from './bench-args.js';
import { intFlag, readFlags } from './flags.js';
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
  readFlags(argv, SIDE_BY_SIDE_USAGE, ['--json'], (flag, value) => {
    if (flag === '--json') opts.json = true;
    else if (flag === '--workload') {
      workload(value, 0);
      opts.workload = value;
    } else if (flag === '--n' || flag === '--samples') opts[flag === '--n' ? 'n' : 'samples'] = intFlag(flag, value, 1);
    else if (flag === '--seed') opts.seed = intFlag(flag, value, 0);
    else throw new Error(`unknown option ${flag}\n${SIDE_BY_SIDE_USAGE}`);
  });
  return opts;
}
