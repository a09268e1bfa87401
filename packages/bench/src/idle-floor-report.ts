/** The tables `npm run idle-floor` prints (idle-floor.ts measures; this only renders). */
import { fmtMs, fmtRatio, markdownTable } from './format.js';

/** One request's p50s, in the order of IDLE_FLOOR_CONDITIONS. */
export interface IdleFloorRow {
  request: string;
  p50: readonly [backToBack: number, afterIdle: number, afterRefWrite: number, afterRefSearch: number];
}

/**
 * Both tables: where one request's time goes under each condition, then the ratio each request
 * shows right after the reference's calls, against those calls' own p50 in the same rounds.
 */
export function renderIdleFloor(n: number, samples: number, gapMs: number, rows: readonly IdleFloorRow[], refWriteP50: number, refSearchP50: number): string {
  const split = markdownTable(
    ['request', 'back to back p50 (ms)', `after ${gapMs} ms idle p50 (ms)`, "after the reference's create_entities p50 (ms)", 'after its search_nodes p50 (ms)'],
    rows.map((r) => [r.request, ...r.p50.map((v) => v.toFixed(3))]),
  );
  const ratios = markdownTable(
    ['request', 'create_entities p50 / its p50', 'search_nodes p50 / its p50'],
    rows.map((r) => [r.request, fmtRatio(refWriteP50 / r.p50[2]), fmtRatio(refSearchP50 / r.p50[3])]),
  );
  return [
    `N = ${n}, ${samples} samples each`,
    '',
    split,
    '',
    `The reference's own calls in these rounds: create_entities p50 ${fmtMs(refWriteP50)} ms, search_nodes p50 ${fmtMs(refSearchP50)} ms.`,
    "Against them, the ratio each request shows right after them: a replayed answer's row is the most our",
    'stack could show with a store that took no time.',
    '',
    ratios,
    '',
  ].join('\n');
}
