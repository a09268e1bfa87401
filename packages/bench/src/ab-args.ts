/** Command-line options of `npm run ab` (ab.ts). */
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_SEED } from './bench-args.js';
import { intFlag, readFlags } from './flags.js';
import { REPO_ROOT } from './paths.js';

export const AB_USAGE = 'usage: node dist/ab.js --a <checkout> [--b <checkout>] [--n 10000] [--samples 150] [--seed <n>]';

export interface AbOptions {
  a: string;
  b: string;
  n: number;
  samples: number;
  seed: number;
}

/** The server launcher of a checkout. */
export const serverBinOf = (checkout: string): string => path.join(checkout, 'packages', 'server', 'bin', 'memory-service.js');

/**
 * The directory the command was typed in: npm runs a workspace's script from the workspace's own
 * directory and passes the caller's as INIT_CWD, so `--a ../main-before` means what it says.
 */
export function invocationDir(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  return env.INIT_CWD || cwd;
}

export function parseAbArgs(argv: readonly string[], cwd = invocationDir()): AbOptions {
  const opts: Partial<AbOptions> = { b: path.resolve(REPO_ROOT), n: 10_000, samples: 150, seed: DEFAULT_SEED };
  readFlags(argv, AB_USAGE, [], (flag, value) => {
    if (flag === '--a' || flag === '--b') opts[flag === '--a' ? 'a' : 'b'] = path.resolve(cwd, value);
    else if (flag === '--n' || flag === '--samples') opts[flag === '--n' ? 'n' : 'samples'] = intFlag(flag, value, 1);
    else if (flag === '--seed') opts.seed = intFlag(flag, value, 0);
    else throw new Error(`unknown option ${flag}\n${AB_USAGE}`);
  });
  if (!opts.a) throw new Error(`--a is required\n${AB_USAGE}`);
  for (const checkout of [opts.a, opts.b!]) checkBuiltCheckout(checkout);
  return opts as AbOptions;
}

/** Throw unless `checkout` is a checkout of this repository with its server built (ab, shapes). */
export function checkBuiltCheckout(checkout: string, option = ''): void {
  const lead = option ? `${option}: ` : '';
  if (!fs.existsSync(serverBinOf(checkout))) throw new Error(`${lead}${checkout} has no ${path.join('packages', 'server', 'bin', 'memory-service.js')}: name a checkout of this repository`);
  if (!fs.existsSync(path.join(checkout, 'packages', 'server', 'dist'))) throw new Error(`${lead}${checkout} is not built: run npm run build there first`);
}

