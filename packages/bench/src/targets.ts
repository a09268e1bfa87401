/** The team's performance targets, checked against one benchmark result. */
import type { BenchResult, ServerRun } from './bench-types.js';
import { fmtBytes, fmtMs, fmtRatio } from './format.js';

export type TargetStatus = 'PASS' | 'MISS' | 'n/a';

export interface TargetCheck {
  target: string;
  status: TargetStatus;
  measured: string;
}

/** The "150 MB", read as 150,000,000 bytes (143.1 MiB): the stricter of its two readings. */
export const PEAK_RSS_LIMIT_BYTES = 150_000_000;

function run(result: BenchResult, server: ServerRun['server'], n: number): ServerRun | undefined {
  return result.runs.find((r) => r.server === server && r.n === n);
}

/** Reference p50 over ours p50 at N, for writes or searches; null when either is missing. */
export function speedRatio(result: BenchResult, n: number, op: 'write' | 'search'): number | null {
  const ours = run(result, 'ours', n);
  const ref = run(result, 'reference', n);
  if (!ours || !ref) return null;
  const o = op === 'write' ? ours.write_ms.p50 : ours.search_ms.p50;
  const r = op === 'write' ? ref.write_ms.p50 : ref.search_ms.p50;
  return o > 0 ? r / o : null;
}

/**
 * Reference p50 over ours p50 at N from the back-to-back pass (each server's calls in a row); null
 * where either has no back-to-back figures (only one server ran, or an older result file).
 */
export function backToBackRatio(result: BenchResult, n: number, op: 'write' | 'search'): number | null {
  const ours = run(result, 'ours', n);
  const ref = run(result, 'reference', n);
  const o = op === 'write' ? ours?.write_b2b_ms : ours?.search_b2b_ms;
  const r = op === 'write' ? ref?.write_b2b_ms : ref?.search_b2b_ms;
  if (!o || !r) return null;
  return o.p50 > 0 ? r.p50 / o.p50 : null;
}

/**
 * Reference p50 over the zero-work server's p50 at N, in the write or search round: the best ratio
 * any stdio server could show in this run. Null where the ceiling was not measured.
 */
export function ceilingRatio(result: BenchResult, n: number, op: 'write' | 'search'): number | null {
  const c = result.ceiling?.find((x) => x.n === n);
  if (!c) return null;
  const floor = op === 'write' ? c.floor_write_ms.p50 : c.floor_search_ms.p50;
  const ref = op === 'write' ? c.reference_write_ms.p50 : c.reference_search_ms.p50;
  return floor > 0 ? ref / floor : null;
}

/** A ratio, followed by the back-to-back ratio and the run's ceiling where they were measured. */
function showRatio(result: BenchResult, n: number, op: 'write' | 'search'): (v: number) => string {
  const notes: string[] = [];
  const b2b = backToBackRatio(result, n, op);
  if (b2b !== null) notes.push(`back to back: ${fmtRatio(b2b)}`);
  const ceiling = ceilingRatio(result, n, op);
  if (ceiling !== null) notes.push(`zero-work server: ${fmtRatio(ceiling)}`);
  return (v) => (notes.length === 0 ? fmtRatio(v) : `${fmtRatio(v)} (${notes.join('; ')})`);
}

function check(target: string, value: number | null | undefined, ok: (v: number) => boolean, show: (v: number) => string): TargetCheck {
  if (value === null || value === undefined || !Number.isFinite(value)) return { target, status: 'n/a', measured: 'not measured' };
  return { target, status: ok(value) ? 'PASS' : 'MISS', measured: show(value) };
}

export function checkTargets(result: BenchResult): TargetCheck[] {
  const at1k = run(result, 'ours', 1000);
  const at100k = run(result, 'ours', 100_000);
  const ours = result.runs.filter((r) => r.server === 'ours');
  // The median of the dedicated series of fresh starts; older result files only have one start per N.
  const spawnMedian = result.spawn
    ? result.spawn.ms.p50
    : ours.length > 0
      ? [...ours.map((r) => r.spawn_to_tools_list_ms)].sort((a, b) => a - b)[Math.floor((ours.length - 1) / 2)]
      : null;
  const growth = at1k && at100k && at1k.search_ms.p50 > 0 ? at100k.search_ms.p50 / at1k.search_ms.p50 : null;
  return [
    check('N=10,000: reference/ours write p50 >= 30', speedRatio(result, 10_000, 'write'), (v) => v >= 30, showRatio(result, 10_000, 'write')),
    check('N=10,000: reference/ours search p50 >= 30', speedRatio(result, 10_000, 'search'), (v) => v >= 30, showRatio(result, 10_000, 'search')),
    check('N=100,000: think p50 <= 2 ms', at100k?.write_ms.p50, (v) => v <= 2, (v) => `${fmtMs(v)} ms`),
    check('N=100,000: dream p50 <= 10 ms', at100k?.search_ms.p50, (v) => v <= 10, (v) => `${fmtMs(v)} ms`),
    check('dream p50 at 100,000 <= 2x its p50 at 1,000', growth, (v) => v <= 2, (v) => `${v.toFixed(2)}x`),
    check('spawn to answered tools/list <= 300 ms (median of fresh starts)', spawnMedian, (v) => v <= 300, (v) => `${fmtMs(v)} ms`),
    check('N=100,000: peak RSS <= 150 MB (143.1 MiB)', at100k?.peak_rss_bytes, (v) => v <= PEAK_RSS_LIMIT_BYTES, fmtBytes),
  ];
}

/** Target checks as console lines. */
export function formatTargetLines(checks: readonly TargetCheck[]): string[] {
  return checks.map((c) => `${c.status.padEnd(4)}  ${c.target}: ${c.measured}`);
}
