import { describe, expect, it } from 'vitest';
import { renderIdleFloor } from './idle-floor-report.js';

describe('renderIdleFloor', () => {
  const rows = [
    { request: 'ping', p50: [0.2, 0.8, 0.5, 0.4] as const },
    { request: "dream's answer replayed (no store work)", p50: [0.25, 0.76, 0.6, 0.64] as const },
  ];
  const out = renderIdleFloor(10_000, 150, 30, rows, 45, 16);

  it('prints each p50 under its condition', () => {
    expect(out).toContain('N = 10000, 150 samples each');
    expect(out).toContain('| request | back to back p50 (ms) | after 30 ms idle p50 (ms) |');
    expect(out).toContain('| ping | 0.200 | 0.800 | 0.500 | 0.400 |');
  });

  it("divides the reference's write p50 by the p50 after its writes, and its search p50 by the p50 after its searches", () => {
    expect(out).toContain('create_entities p50 45.0 ms, search_nodes p50 16.0 ms');
    expect(out).toContain('| ping | 90x | 40x |');
    expect(out).toContain("| dream's answer replayed (no store work) | 75x | 25x |");
  });
});
