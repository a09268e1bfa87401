/** The LoCoMo evaluation's console table and its one-line JSON summary. */
import type { EvalSummary } from './eval-run.js';
import { fmtMs } from './format.js';
import { CATEGORY_NAMES } from './locomo.js';
import type { RecallSummary } from './recall.js';

function fixed(v: number): string {
  return Number.isFinite(v) ? v.toFixed(3) : 'n/a';
}

function row(label: string, s: RecallSummary): string {
  return `${label.padEnd(16)} ${String(s.questions).padStart(9)} ${fixed(s['recall@5']).padStart(9)} ${fixed(s['recall@10']).padStart(9)} ${fixed(
    s['recall@20'],
  ).padStart(9)}`;
}

/** A plain-text table: overall and per category, then ingest and retrieval latency. */
export function renderEvalTable(summary: EvalSummary, title: string): string {
  const lines = [
    title,
    `${'set'.padEnd(16)} ${'questions'.padStart(9)} ${'recall@5'.padStart(9)} ${'recall@10'.padStart(9)} ${'recall@20'.padStart(9)}`,
    row('all', summary),
  ];
  for (const [cat, s] of Object.entries(summary.per_category)) {
    lines.push(row(`${cat} ${CATEGORY_NAMES[Number(cat)] ?? ''}`.trim(), s));
  }
  lines.push(`ingest: ${fmtMs(summary.ingest_ms_per_turn)} ms per turn`);
  lines.push(`retrieval: p50 ${fmtMs(summary.dream_p50_ms)} ms, p95 ${fmtMs(summary.dream_p95_ms)} ms`);
  return lines.join('\n');
}

/** NaN (nothing measured) becomes null, so the line stays valid JSON. */
function finiteOrNull(v: number): number | null {
  return Number.isFinite(v) ? v : null;
}

function recallJson(s: RecallSummary): Record<string, number | null> {
  return {
    'recall@5': finiteOrNull(s['recall@5']),
    'recall@10': finiteOrNull(s['recall@10']),
    'recall@20': finiteOrNull(s['recall@20']),
    questions: s.questions,
  };
}

/** The summary as one JSON line with the keys the CI gate reads. */
export function evalJsonLine(summary: EvalSummary): string {
  const perCategory: Record<string, Record<string, number | null>> = {};
  for (const [cat, s] of Object.entries(summary.per_category)) perCategory[cat] = recallJson(s);
  return JSON.stringify({
    ...recallJson(summary),
    per_category: perCategory,
    ingest_ms_per_turn: finiteOrNull(summary.ingest_ms_per_turn),
    dream_p50_ms: finiteOrNull(summary.dream_p50_ms),
    dream_p95_ms: finiteOrNull(summary.dream_p95_ms),
  });
}
