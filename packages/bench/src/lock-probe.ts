/**
 * A child process that watches a database's write lock (import-scale.ts): every 2 ms it tries
 * BEGIN IMMEDIATE without waiting, and on a line on stdin answers, as one JSON line, the longest run
 * of failed tries in ms (how long another process would have waited for the lock). It says `ready`
 * once it watches.
 */
import { openSqlite } from '@memory-service/kernel';

const db = openSqlite(process.argv[2]!);
db.pragma('busy_timeout = 0');
let failingSince: number | null = null;
let longest = 0;
const tick = () => {
  const t = performance.now();
  try {
    db.exec('BEGIN IMMEDIATE');
    db.exec('ROLLBACK');
    if (failingSince !== null) longest = Math.max(longest, t - failingSince);
    failingSince = null;
  } catch {
    failingSince ??= t;
  }
};
const timer = setInterval(tick, 2);
process.stdin.once('data', () => {
  clearInterval(timer);
  tick();
  process.stdout.write(`${JSON.stringify({ longest_ms: longest })}\n`, () => process.exit(0));
});
process.stdout.write('ready\n');
