/** The table `npm run ab` prints (ab.ts measures; this only renders). */
import { fmtMs, fmtRatio, markdownTable } from './format.js';
import { percentile } from './stats.js';

/** One timed operation of both builds, sample i of each taken in the same round. */
export interface AbRow {
  op: string;
  a: readonly number[];
  b: readonly number[];
  /** The reference's call just before each sample, when the operation follows one. */
  reference?: readonly number[];
}

/** In how many rounds B took less time than A (ties count for neither), over the rounds both have. */
export function pairedWins(a: readonly number[], b: readonly number[]): { bFaster: number; rounds: number } {
  const rounds = Math.min(a.length, b.length);
  let bFaster = 0;
  for (let i = 0; i < rounds; i++) if (b[i]! < a[i]!) bFaster++;
  return { bFaster, rounds };
}

/**
 * p50 of each build, B's p50 over A's (below 1: B is faster), and in how many rounds B was the
 * faster of the pair. On a noisy machine the paired count is the steadier reading: both builds
 * met the same conditions in each round, where two p50s of separate runs may not have. A row
 * timed after the reference's calls also gives the reference's p50 and its ratio to each build
 * (the benchmark's target, reference p50 / ours, as this run measured it).
 */
export function renderAb(labels: { a: string; b: string }, n: number, rows: readonly AbRow[]): string {
  const table = markdownTable(
    ['operation', `A p50 (ms)`, `B p50 (ms)`, 'B / A', 'rounds B was faster', 'reference p50 (ms)', 'reference / A', 'reference / B'],
    rows.map((r) => {
      const pa = percentile(r.a, 50);
      const pb = percentile(r.b, 50);
      const { bFaster, rounds } = pairedWins(r.a, r.b);
      const ref = r.reference?.length ? percentile(r.reference, 50) : null;
      const vsRef = ref === null ? ['-', '-', '-'] : [fmtMs(ref), fmtRatio(ref / pa), fmtRatio(ref / pb)];
      return [r.op, fmtMs(pa), fmtMs(pb), (pb / pa).toFixed(3), `${bFaster} of ${rounds}`, ...vsRef];
    }),
  );
  return [`A: ${labels.a}`, `B: ${labels.b}`, `N = ${n}`, '', table, ''].join('\n');
}
