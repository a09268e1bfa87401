/** `npm run eval:locomo`: retrieval recall of our server (or the BM25 baseline) on LoCoMo conversations. */
import fs from 'node:fs';
import path from 'node:path';
import { bm25Retriever } from './bm25-retriever.js';
import { EVAL_USAGE, parseEvalArgs, type EvalCli } from './eval-args.js';
import { evalJsonLine, renderEvalTable } from './eval-report.js';
import { evaluate } from './eval-run.js';
import { parseLocomoFile } from './locomo.js';
import { LOCOMO_DIR } from './paths.js';
import { note } from './progress.js';
import { serverRetriever } from './server-retriever.js';

/** A file's JSON; one that cannot be read or parsed is named in the error. */
function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message}`);
  }
}

export async function main(argv: readonly string[]): Promise<number> {
  let cli: EvalCli;
  try {
    cli = parseEvalArgs(argv, LOCOMO_DIR);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${EVAL_USAGE}\n`);
    return 2;
  }
  const conversations = cli.files.flatMap((f) => parseLocomoFile(readJson(f), path.basename(f, '.json')));
  const mode = cli.baseline ? 'BM25 baseline (in-process)' : 'memory-service think/dream over MCP stdio';
  note(`LoCoMo: ${conversations.map((c) => c.name).join(', ')}; ${mode}`);
  const outcome = await evaluate(conversations, cli.baseline ? bm25Retriever : serverRetriever, cli.limitQuestions);
  if (outcome.skippedQuestions > 0) note(`${outcome.skippedQuestions} questions of category 1-4 skipped in total: no evidence id names a turn`);
  const title = `LoCoMo recall (${mode}; ${conversations.map((c) => c.name).join(', ')}; ${outcome.turns} turns)`;
  process.stdout.write(`${renderEvalTable(outcome.summary, title)}\n`);
  if (cli.json) process.stdout.write(`${evalJsonLine(outcome.summary)}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`eval-locomo: ${err instanceof Error && err.stack ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
