/** A wake-costs result for the report tests (wake-costs.test.ts, report.test.ts). */
import type { WakeCostsResult } from './wake-costs-report.js';

export const SAMPLE_WAKE_COSTS: WakeCostsResult = {
  gap_ms: 36,
  samples: 200,
  rows: [
    { condition: 'back to back', compute_us: 44.5, memory_us: 20 },
    { condition: 'after the machine idled', compute_us: 48.1, memory_us: 83 },
    { condition: 'after a busy neighbour', compute_us: 69.7, memory_us: 140 },
    { condition: 'after a busy neighbour, 1 ms into the wake-up', compute_us: 49.5, memory_us: 79 },
  ],
};
