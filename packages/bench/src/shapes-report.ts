/** The table `npm run shapes` prints (shapes-run.ts measures; this only renders). */
import { fmtCount, markdownTable } from './format.js';

/** A shape's p50s at one size. */
export interface ShapePoint {
  n: number;
  items: number;
  think_p50_ms: number;
  dream_p50_ms: number;
}

export interface ShapeRow {
  shape: string;
  stores: string;
  points: ShapePoint[];
}

/** p50 at the largest size over p50 at the smallest, above which a row is flagged. */
export const GROWTH_FLAG = 2;

/** p50 at the last point over the first. */
export function growth(points: readonly ShapePoint[], key: 'think_p50_ms' | 'dream_p50_ms'): number {
  const first = points[0]?.[key];
  const last = points[points.length - 1]?.[key];
  return first !== undefined && last !== undefined && first > 0 ? last / first : Number.NaN;
}

function fmtGrowth(g: number): string {
  if (!Number.isFinite(g)) return '-';
  return `${g.toFixed(2)}x${g > GROWTH_FLAG ? ' (grows)' : ''}`;
}

export function renderShapes(rows: readonly ShapeRow[], samples: number, gapMs: number): string {
  const sizes = rows[0]?.points.map((p) => p.n) ?? [];
  const header = ['shape', 'stores', ...sizes.flatMap((n) => [`think p50 at ${fmtCount(n)} (ms)`, `dream p50 at ${fmtCount(n)} (ms)`]), 'think growth', 'dream growth'];
  const body = rows.map((r) => [
    r.shape,
    r.stores,
    ...r.points.flatMap((p) => [p.think_p50_ms.toFixed(3), p.dream_p50_ms.toFixed(3)]),
    fmtGrowth(growth(r.points, 'think_p50_ms')),
    fmtGrowth(growth(r.points, 'dream_p50_ms')),
  ]);
  const flagged = rows.filter((r) => growth(r.points, 'think_p50_ms') > GROWTH_FLAG || growth(r.points, 'dream_p50_ms') > GROWTH_FLAG);
  return [
    `${samples} think and ${samples} dream calls per shape and size, each after ${gapMs} ms idle; the page shapes store a tenth of N.`,
    '',
    markdownTable(header, body),
    '',
    flagged.length === 0
      ? `No shape's p50 grew more than ${GROWTH_FLAG}x from the smallest size to the largest.`
      : `Grew more than ${GROWTH_FLAG}x: ${flagged.map((r) => r.shape).join(', ')}. A cost that grows with what was stored before: profile it (node --cpu-prof).`,
    '',
  ].join('\n');
}
