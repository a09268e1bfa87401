/** Command-line options of `npm run shapes` (shapes-run.ts). */
import path from 'node:path';
import { checkBuiltCheckout, invocationDir } from './ab-args.js';
import { intFlag, readFlags, sizesFlag } from './flags.js';
import { REPO_ROOT } from './paths.js';
import { pickShapes, type Shape } from './shapes.js';

export const SHAPES_USAGE = 'usage: node dist/shapes-run.js [--sizes 1000,10000] [--samples 100] [--gap 5] [--shapes a,b] [--checkout <dir>] [--json]';

export interface ShapesOptions {
  /** Two or more sizes, ascending: the growth column compares the last with the first. */
  sizes: number[];
  samples: number;
  /** Idle ms before each timed call (an agent's pace; lets the server's timers run). */
  gapMs: number;
  shapes: Shape[];
  /** The built checkout whose server is timed (this one by default). */
  checkout: string;
  json: boolean;
}

export function parseShapesArgs(argv: readonly string[], cwd = invocationDir()): ShapesOptions {
  const opts: ShapesOptions = { sizes: [1000, 10_000], samples: 100, gapMs: 5, shapes: pickShapes([]), checkout: path.resolve(REPO_ROOT), json: false };
  readFlags(argv, SHAPES_USAGE, ['--json'], (flag, value) => {
    if (flag === '--json') opts.json = true;
    else if (flag === '--sizes') opts.sizes = sizesFlag(flag, value);
    else if (flag === '--samples') opts.samples = intFlag(flag, value, 1);
    else if (flag === '--gap') opts.gapMs = intFlag(flag, value, 0, ' (ms)');
    else if (flag === '--shapes') opts.shapes = pickShapes(value.split(',').map((s) => s.trim()).filter(Boolean));
    else if (flag === '--checkout') opts.checkout = path.resolve(cwd, value);
    else throw new Error(`unknown option ${flag}\n${SHAPES_USAGE}`);
  });
  checkBuiltCheckout(opts.checkout, '--checkout');
  return opts;
}
