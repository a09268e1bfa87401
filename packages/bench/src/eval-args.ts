/** Command-line options of the LoCoMo evaluation. */
import fs from 'node:fs';
import path from 'node:path';

export interface EvalCli {
  json: boolean;
  baseline: boolean;
  /** Keep the first N questions of each conversation. */
  limitQuestions?: number;
  files: string[];
}

export const EVAL_USAGE = `usage: node packages/bench/dist/eval-locomo.js [--json] [--baseline] [--limit-questions N] [files...]
  --json               end stdout with one JSON line of the summary
  --baseline           rank with in-process BM25 instead of the server
  --limit-questions N  keep the first N scored questions of each conversation
  files                LoCoMo files or directories of them (default: every *.json in the LoCoMo directory);
                       a file holds one conversation or, as the released locomo10.json, a list of them`;

/** Every .json file of a directory, sorted by name. */
export function defaultFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => path.join(dir, f));
}

/**
 * A path named on the command line, resolved against the working directory, or when nothing is
 * there, against the directory npm was run from (INIT_CWD): `npm run eval:locomo` runs in the
 * repository's root, wherever it was typed.
 */
function resolveNamed(arg: string, initCwd: string | undefined): string | null {
  const here = path.resolve(arg);
  if (fs.existsSync(here)) return here;
  const there = initCwd ? path.resolve(initCwd, arg) : null;
  return there !== null && fs.existsSync(there) ? there : null;
}

/** A file named on the command line, or every .json file of a directory; a path that is neither is refused. */
function namedFiles(arg: string, initCwd: string | undefined): string[] {
  const p = resolveNamed(arg, initCwd);
  if (p === null) throw new Error(`no such LoCoMo file or directory: ${arg} (from ${initCwd && initCwd !== process.cwd() ? `${process.cwd()} or ${initCwd}` : process.cwd()})`);
  const stat = fs.statSync(p);
  if (!stat.isDirectory()) return [p];
  const files = defaultFiles(p);
  if (files.length === 0) throw new Error(`no .json files in the directory ${p}`);
  return files;
}

export function parseEvalArgs(argv: readonly string[], defaultDir: string, initCwd: string | undefined = process.env.INIT_CWD): EvalCli {
  const cli: EvalCli = { json: false, baseline: false, files: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') cli.json = true;
    else if (a === '--baseline') cli.baseline = true;
    else if (a === '--limit-questions') {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 1) throw new Error(`--limit-questions needs a positive integer, got ${argv[i] ?? 'nothing'}`);
      cli.limitQuestions = n;
    } else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else cli.files.push(...namedFiles(a, initCwd));
  }
  if (cli.files.length === 0) cli.files = defaultFiles(defaultDir);
  if (cli.files.length === 0) throw new Error(`no LoCoMo files given and none found in ${defaultDir}`);
  return cli;
}
