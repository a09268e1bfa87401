import { describe, expect, it } from 'vitest';
import { measureForgetScale, parseForgetScaleArgs, renderForgetScale } from './forget-scale.js';

describe('forget-scale arguments', () => {
  it('defaults to three sizes, one in 8 forgotten and three samples, and refuses what it cannot use, naming the flag', () => {
    expect(parseForgetScaleArgs([])).toEqual({ sizes: [4000, 8000, 16000], every: 8, samples: 3, mode: 'fuzzy', json: false });
    expect(parseForgetScaleArgs(['--sizes', '10,20', '--every', '2', '--samples', '1', '--mode', 'exact', '--json'])).toEqual({ sizes: [10, 20], every: 2, samples: 1, mode: 'exact', json: true });
    expect(() => parseForgetScaleArgs(['--mode', 'recent'])).toThrow(/--mode must be one of fuzzy, exact, reflect, cleanup/);
    expect(() => parseForgetScaleArgs(['--sizes', '20,10'])).toThrow(/two or more ascending sizes/);
    expect(() => parseForgetScaleArgs(['--every', '0'])).toThrow(/--every/);
    expect(() => parseForgetScaleArgs(['--n', '1'])).toThrow(/unknown option --n/);
  });
});

describe('forget-scale run', () => {
  it('deletes the episodes holding the word and clears the contexts that held them, at each size', async () => {
    const rows = await measureForgetScale({ sizes: [40, 80], every: 4, samples: 1, mode: 'fuzzy', json: false });
    expect(rows.map((r) => [r.n, r.deleted])).toEqual([
      [40, 10],
      [80, 20],
    ]);
    for (const r of rows) {
      expect(r.p50_ms).toBeGreaterThan(0);
      // Each deleted thought sits in the contexts of the episodes after it.
      expect(r.scrubbed).toBeGreaterThan(r.deleted / 2);
    }
    const text = renderForgetScale(rows);
    expect(text).toMatch(/^\| episodes \| deleted \| contexts cleared \|/);
    expect(text).toContain('| 80 | 20 |');
    expect(text).toContain('(size 2x)');
  });
});

describe('forget-scale modes', () => {
  it('times forget exact of a fact no record carries, memory_reflect and memory_cleanup over the same stores', async () => {
    for (const mode of ['exact', 'reflect', 'cleanup'] as const) {
      const rows = await measureForgetScale({ sizes: [20, 40], every: 4, samples: 1, mode, json: false });
      expect(rows.map((r) => [r.n, r.mode, r.deleted, r.scrubbed]), mode).toEqual([
        [20, mode, 0, 0],
        [40, mode, 0, 0],
      ]);
      for (const r of rows) expect(r.p50_ms).toBeGreaterThan(0);
    }
    expect(renderForgetScale(await measureForgetScale({ sizes: [20, 40], every: 4, samples: 1, mode: 'reflect', json: false }))).toMatch(/\| memory_reflect p50 \(ms\) \|/);
  });
});
