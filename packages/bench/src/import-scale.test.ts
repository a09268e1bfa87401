import { describe, expect, it } from 'vitest';
import { measureImportScale, parseImportScaleArgs, renderImportScale } from './import-scale.js';

describe('import-scale arguments', () => {
  it('defaults to 67,000 episodes, three samples, empty and replace, and refuses what it cannot use, naming the flag', () => {
    expect(parseImportScaleArgs([])).toEqual({ episodes: 67_000, samples: 3, modes: ['empty', 'replace'], after: 4000, json: false });
    expect(parseImportScaleArgs(['--episodes', '200', '--samples', '1', '--modes', 'merge', '--after', '0', '--json'])).toEqual({ episodes: 200, samples: 1, modes: ['merge'], after: 0, json: true });
    expect(() => parseImportScaleArgs(['--modes', 'empty,swap'])).toThrow(/--modes takes a list of empty, merge, replace, export, export-held \(got "swap"\)/);
    expect(() => parseImportScaleArgs(['--episodes', '0'])).toThrow(/--episodes/);
    expect(() => parseImportScaleArgs(['--n', '1'])).toThrow(/unknown option --n/);
  });
});

describe('import-scale run', () => {
  it('imports one export file per mode through the tool and times the call and the write lock', async () => {
    const rows = await measureImportScale({ episodes: 120, samples: 1, modes: ['empty', 'replace', 'export', 'export-held'], after: 50, json: false });
    expect(rows.map((r) => r.mode)).toEqual(['empty', 'replace', 'export', 'export-held']);
    // An export reads one snapshot: it neither takes the write lock nor fails while another connection holds it.
    expect(rows.map((r) => r.failed)).toEqual([0, 0, 0, 0]);
    expect(rows[3]!.lock_ms).toBe(0);
    for (const r of rows) {
      expect(r.stall_ms).toBeGreaterThanOrEqual(0);
      expect(r.ping_ms).toBeGreaterThan(0);
      expect(r.after_stall_ms).toBeGreaterThanOrEqual(0);
      expect(r.after_ping_ms).toBeGreaterThanOrEqual(0);
      // 120 episodes, 40 facts, 40 events, 30 nodes, 30 edges, 3 pages, a link or more.
      expect(r.records).toBeGreaterThan(120 + 40 + 40 + 30 + 30 + 3);
      expect(r.doc_bytes).toBeGreaterThan(10_000);
      expect(r.total_ms).toBeGreaterThan(0);
      expect(r.lock_ms).toBeGreaterThanOrEqual(0);
      expect(r.lock_ms).toBeLessThanOrEqual(r.total_ms + 50);
    }
    expect(renderImportScale(rows)).toMatch(/^\| mode \| records \| document \(MB\)/);
  }, 60_000);
});
