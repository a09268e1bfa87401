import { describe, expect, it } from 'vitest';
import { measureWakeCosts } from './wake-costs.js';
import { parseWakeCostsArgs } from './wake-costs-args.js';
import { renderWakeCosts, WAKE_CONDITIONS } from './wake-costs-report.js';
import { SAMPLE_WAKE_COSTS } from './wake-costs.fixture.js';

describe('wake-costs arguments', () => {
  it('defaults to a 36 ms gap and 200 samples', () => {
    expect(parseWakeCostsArgs([])).toEqual({ gapMs: 36, samples: 200, json: false });
  });

  it('reads flags and refuses what it cannot use, naming the flag', () => {
    expect(parseWakeCostsArgs(['--gap', '5', '--samples', '3', '--json'])).toEqual({ gapMs: 5, samples: 3, json: true });
    expect(() => parseWakeCostsArgs(['--gap', '0'])).toThrow(/--gap needs a positive integer \(ms\)/);
    expect(() => parseWakeCostsArgs(['--samples', '2.5'])).toThrow(/--samples/);
    expect(() => parseWakeCostsArgs(['--samples'])).toThrow(/needs a value/);
    expect(() => parseWakeCostsArgs(['--n', '1'])).toThrow(/unknown option --n/);
  });
});

describe('wake-costs report', () => {
  const result = SAMPLE_WAKE_COSTS;

  it('gives each condition against back to back, naming the gap', () => {
    const text = renderWakeCosts(result);
    expect(text).toContain('| back to back | 44.5 | 1.00x | 20.0 | 1.00x |');
    expect(text).toContain('| after the machine idled 36 ms | 48.1 | 1.08x | 83.0 | 4.15x |');
    expect(text).toContain('| after a core busy for 36 ms | 69.7 | 1.57x | 140.0 | 7.00x |');
    expect(text).toContain('| after a core busy for 36 ms, 1 ms into the wake-up | 49.5 | 1.11x | 79.0 | 3.95x |');
  });

  it('says n/a for the ratios when there is no back-to-back row', () => {
    const text = renderWakeCosts({ ...result, rows: result.rows.slice(1, 2) });
    expect(text).toContain('| after the machine idled 36 ms | 48.1 | n/a | 83.0 | n/a |');
  });
});

describe('wake-costs measurement', () => {
  it('times both kernels in the child under every condition', async () => {
    const r = await measureWakeCosts({ gapMs: 2, samples: 3 });
    expect(r).toMatchObject({ gap_ms: 2, samples: 3 });
    expect(r.rows.map((row) => row.condition)).toEqual([...WAKE_CONDITIONS]);
    for (const row of r.rows) {
      expect(row.compute_us).toBeGreaterThan(0);
      expect(row.memory_us).toBeGreaterThan(0);
    }
  }, 30_000);
});
