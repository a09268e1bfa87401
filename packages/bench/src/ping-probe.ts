/**
 * A child process that pings a server over HTTP (import-scale.ts): one GET of `<address>/alive` at a
 * time, the next 5 ms after the answer, and on a line on stdin answers, as one JSON line, the longest
 * round trip in ms (what a concurrent client waited at worst) and how many pings were answered. It
 * says `ready` once its first ping was answered. A ping still unanswered when asked counts as long as it has waited.
 */
const address = process.argv[2]!;
let longest = 0;
let answered = 0;
let since: number | null = null;
let stopping = false;

async function loop(): Promise<void> {
  while (!stopping) {
    since = performance.now();
    const res = await fetch(`${address}/alive`);
    await res.arrayBuffer();
    longest = Math.max(longest, performance.now() - since);
    since = null;
    if (answered++ === 0) process.stdout.write('ready\n');
    await new Promise((r) => setTimeout(r, 5));
  }
}

process.stdin.once('data', () => {
  stopping = true;
  if (since !== null) longest = Math.max(longest, performance.now() - since);
  process.stdout.write(`${JSON.stringify({ longest_ms: longest, answered })}\n`, () => process.exit(0));
});
loop().catch((err: unknown) => {
  process.stderr.write(`ping-probe: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
