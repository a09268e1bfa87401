/** Command-line options of `npm run wake-costs` (wake-costs.ts). */
import { intFlag, readFlags } from './flags.js';

export const WAKE_COSTS_USAGE = 'usage: node dist/wake-costs.js [--gap <ms, 36>] [--samples <n, 200>] [--json]';

export interface WakeCostsOptions {
  /** How long the machine idles, or a core stays busy, before each timed wake-up. */
  gapMs: number;
  samples: number;
  json: boolean;
}

export function parseWakeCostsArgs(argv: readonly string[]): WakeCostsOptions {
  const opts: WakeCostsOptions = { gapMs: 36, samples: 200, json: false };
  readFlags(argv, WAKE_COSTS_USAGE, ['--json'], (flag, value) => {
    if (flag === '--json') opts.json = true;
    else if (flag === '--gap') opts.gapMs = intFlag(flag, value, 1, ' (ms)');
    else if (flag === '--samples') opts.samples = intFlag(flag, value, 1);
    else throw new Error(`unknown option ${flag}\n${WAKE_COSTS_USAGE}`);
  });
  return opts;
}
