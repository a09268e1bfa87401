import { describe, expect, it } from 'vitest';
import { measureImportReplace, parseImportReplaceArgs, renderImportReplace } from './import-replace.js';

describe('import-replace arguments', () => {
  it('defaults to three sizes and three samples, and refuses what it cannot use, naming the flag', () => {
    expect(parseImportReplaceArgs([])).toEqual({ sizes: [2000, 4000, 8000], samples: 3, json: false });
    expect(parseImportReplaceArgs(['--sizes', '10,20', '--samples', '1', '--json'])).toEqual({ sizes: [10, 20], samples: 1, json: true });
    expect(() => parseImportReplaceArgs(['--sizes', '20,10'])).toThrow(/two or more ascending sizes/);
    expect(() => parseImportReplaceArgs(['--samples', '0'])).toThrow(/--samples/);
    expect(() => parseImportReplaceArgs(['--n', '1'])).toThrow(/unknown option --n/);
  });
});

describe('import-replace run', () => {
  it('times a replace over each size and counts every record it cleared (episodes, facts, graph nodes)', async () => {
    const rows = await measureImportReplace({ sizes: [40, 80], samples: 1, json: false });
    expect(rows.map((r) => r.n)).toEqual([40, 80]);
    for (const r of rows) {
      expect(r.p50_ms).toBeGreaterThan(0);
      // 40 episodes, 2 facts, 1 node: the time per record is the time over those 43.
      expect(r.us_per_record).toBeCloseTo((r.p50_ms * 1000) / (r.n + Math.ceil(r.n / 20) + Math.ceil(r.n / 50)), 6);
    }
    const text = renderImportReplace(rows);
    expect(text).toMatch(/^\| target episodes \| replace p50 \(ms\)/);
    expect(text).toContain('| 80 |');
    expect(text).toContain('(size 2x)');
  });
});
