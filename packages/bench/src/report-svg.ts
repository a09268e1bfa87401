/** A hand-written SVG line chart: latency p50 against N, both axes on a log scale. */

export interface ChartPoint {
  n: number;
  ms: number;
}

export interface ChartSeries {
  label: string;
  color: string;
  /** An SVG stroke-dasharray, e.g. "6 4"; solid when absent. */
  dash?: string;
  points: ChartPoint[];
}

export interface ChartOptions {
  width?: number;
  height?: number;
  title?: string;
  xLabel?: string;
  yLabel?: string;
}

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

function num(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(1);
}

/** Decades [10^lo, 10^hi] that contain every value (at least one decade wide). */
export function logBounds(values: readonly number[]): { lo: number; hi: number } {
  const positive = values.filter((v) => v > 0 && Number.isFinite(v));
  if (positive.length === 0) return { lo: 0, hi: 1 };
  const lo = Math.floor(Math.log10(Math.min(...positive)));
  let hi = Math.ceil(Math.log10(Math.max(...positive)));
  if (hi <= lo) hi = lo + 1;
  return { lo, hi };
}

function tickLabel(exp: number, unit: string): string {
  const v = 10 ** exp;
  const text = v >= 1 ? v.toLocaleString('en-US') : v.toFixed(-exp);
  return unit ? `${text} ${unit}` : text;
}

function countLabel(n: number): string {
  if (n >= 1_000_000 && n % 1_000_000 === 0) return `${n / 1_000_000}M`;
  if (n >= 1000 && n % 1000 === 0) return `${n / 1000}k`;
  return String(n);
}

/** Render the chart. Points with a non-positive value are left out (a log scale cannot show them). */
export function renderLatencyChart(series: readonly ChartSeries[], opts: ChartOptions = {}): string {
  const width = opts.width ?? 720;
  const height = opts.height ?? 420;
  const title = opts.title ?? 'Latency p50 against N';
  const xLabel = opts.xLabel ?? 'items preloaded (N, log scale)';
  const yLabel = opts.yLabel ?? 'p50 latency (ms, log scale)';
  const m = { left: 80, right: 230, top: 40, bottom: 60 };
  const plotW = width - m.left - m.right;
  const plotH = height - m.top - m.bottom;
  const clean = series.map((s) => ({ ...s, points: s.points.filter((p) => p.n > 0 && p.ms > 0).sort((a, b) => a.n - b.n) }));
  const ns = [...new Set(clean.flatMap((s) => s.points.map((p) => p.n)))].sort((a, b) => a - b);
  const y = logBounds(clean.flatMap((s) => s.points.map((p) => p.ms)));
  const xLo = ns.length > 0 ? Math.log10(ns[0]) : 0;
  const xHi = ns.length > 0 ? Math.log10(ns[ns.length - 1]) : 1;
  const pad = 24;
  const xOf = (n: number) =>
    xHi === xLo ? m.left + plotW / 2 : m.left + pad + ((Math.log10(n) - xLo) / (xHi - xLo)) * (plotW - 2 * pad);
  const yOf = (ms: number) => m.top + plotH - ((Math.log10(ms) - y.lo) / (y.hi - y.lo)) * plotH;

  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
  );
  out.push(`<title>${escapeXml(title)}</title>`);
  out.push(`<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`);
  out.push(`<text x="${num(m.left + plotW / 2)}" y="24" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(title)}</text>`);
  for (let e = y.lo; e <= y.hi; e++) {
    const py = num(yOf(10 ** e));
    out.push(`<line x1="${m.left}" y1="${py}" x2="${m.left + plotW}" y2="${py}" stroke="#dddddd"/>`);
    out.push(`<text x="${m.left - 8}" y="${py}" text-anchor="end" dominant-baseline="middle">${escapeXml(tickLabel(e, ''))}</text>`);
  }
  for (const n of ns) {
    const px = num(xOf(n));
    out.push(`<line x1="${px}" y1="${m.top}" x2="${px}" y2="${m.top + plotH}" stroke="#eeeeee"/>`);
    out.push(`<text x="${px}" y="${m.top + plotH + 18}" text-anchor="middle">${escapeXml(countLabel(n))}</text>`);
  }
  out.push(`<rect x="${m.left}" y="${m.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#333333"/>`);
  out.push(`<text x="${num(m.left + plotW / 2)}" y="${height - 16}" text-anchor="middle">${escapeXml(xLabel)}</text>`);
  out.push(
    `<text x="20" y="${num(m.top + plotH / 2)}" text-anchor="middle" transform="rotate(-90 20 ${num(m.top + plotH / 2)})">${escapeXml(yLabel)}</text>`,
  );
  if (ns.length === 0) {
    out.push(`<text x="${num(m.left + plotW / 2)}" y="${num(m.top + plotH / 2)}" text-anchor="middle">no data</text>`);
  }
  for (const s of clean) {
    if (s.points.length === 0) continue;
    const dash = s.dash ? ` stroke-dasharray="${escapeXml(s.dash)}"` : '';
    const pts = s.points.map((p) => `${num(xOf(p.n))},${num(yOf(p.ms))}`).join(' ');
    out.push(`<polyline points="${pts}" fill="none" stroke="${escapeXml(s.color)}" stroke-width="2"${dash}/>`);
    for (const p of s.points) {
      out.push(`<circle cx="${num(xOf(p.n))}" cy="${num(yOf(p.ms))}" r="3.5" fill="${escapeXml(s.color)}"/>`);
    }
  }
  const lx = m.left + plotW + 20;
  out.push(`<text x="${lx}" y="${m.top + 4}" font-weight="bold">Legend</text>`);
  clean.forEach((s, i) => {
    const ly = m.top + 24 + i * 22;
    const dash = s.dash ? ` stroke-dasharray="${escapeXml(s.dash)}"` : '';
    out.push(`<line x1="${lx}" y1="${ly}" x2="${lx + 28}" y2="${ly}" stroke="${escapeXml(s.color)}" stroke-width="2"${dash}/>`);
    out.push(`<text x="${lx + 36}" y="${ly}" dominant-baseline="middle">${escapeXml(s.label)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
