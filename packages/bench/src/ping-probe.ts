/**
 * A child process that pings a server over HTTP (import-scale.ts): one GET of `<address>/alive` at a
 * time, the next 5 ms after the answer, and on a line on stdin answers, as one JSON line, the longest
 * round trip in ms (what a concurrent client waited at worst) and how many pings were answered. It
 * says `ready` once its first ping was answered. A ping still unanswered when asked counts as long as it has waited.
 * A line `mark` answers the same for the time so far and starts a new period without stopping (a
 * ping under way counts its wait so far in the period that ends and the rest in the new one); any
 * other line answers and ends the probe.
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

let input = '';
process.stdin.setEncoding('utf8').on('data', (d: string) => {
  input += d;
  for (let nl = input.indexOf('\n'); nl >= 0; nl = input.indexOf('\n')) {
    const line = input.slice(0, nl).trim();
    input = input.slice(nl + 1);
    if (since !== null) longest = Math.max(longest, performance.now() - since);
    const report = `${JSON.stringify({ longest_ms: longest, answered })}\n`;
    if (line === 'mark') {
      process.stdout.write(report);
      longest = 0;
      answered = 0;
      if (since !== null) since = performance.now();
      continue;
    }
    stopping = true;
    process.stdout.write(report, () => process.exit(0));
    return;
  }
});
loop().catch((err: unknown) => {
  process.stderr.write(`ping-probe: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
