/** The table `npm run wake-costs` prints (wake-costs.ts measures; this only renders). */
import { markdownTable } from './format.js';

/** The conditions a wake-up is timed under, in the order of the table's rows. */
export const WAKE_CONDITIONS = ['back to back', 'after the machine idled', 'after a busy neighbour', 'after a busy neighbour, 1 ms into the wake-up'] as const;
export type WakeCondition = (typeof WAKE_CONDITIONS)[number];

/** The two kernels' p50s (µs) under one condition. */
export interface WakeRow {
  condition: WakeCondition;
  compute_us: number;
  memory_us: number;
}

export interface WakeCostsResult {
  gap_ms: number;
  samples: number;
  rows: WakeRow[];
}

/** value / base, as `1.57x`; n/a when the base is not a positive number. */
export function timesOf(value: number, base: number): string {
  return base > 0 && Number.isFinite(value) ? `${(value / base).toFixed(2)}x` : 'n/a';
}

export function renderWakeCosts(r: WakeCostsResult): string {
  const base = r.rows.find((row) => row.condition === 'back to back');
  const label = (c: WakeCondition) =>
    c === 'back to back' ? c : c === 'after the machine idled' ? `after the machine idled ${r.gap_ms} ms` : c.replace('a busy neighbour', `a core busy for ${r.gap_ms} ms`);
  const table = markdownTable(
    ['wake-up', 'compute p50 (µs)', 'vs back to back', 'memory p50 (µs)', 'vs back to back'],
    r.rows.map((row) => [
      label(row.condition),
      row.compute_us.toFixed(1),
      timesOf(row.compute_us, base?.compute_us ?? NaN),
      row.memory_us.toFixed(1),
      timesOf(row.memory_us, base?.memory_us ?? NaN),
    ]),
  );
  return [
    `What this machine charges a process for having waited (${r.samples} samples each; no MCP, no server):`,
    'compute is arithmetic over 32 KB, memory is 4,096 reads scattered over 8 MB, both timed inside the',
    'woken process, so the pipe and the wake-up itself are not in the figures.',
    '',
    table,
    '',
  ].join('\n');
}
