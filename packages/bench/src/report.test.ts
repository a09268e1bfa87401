import { describe, expect, it } from 'vitest';
import type { BenchResult, ServerRun } from './bench-types.js';
import { markdownTable } from './format.js';
import { chartSeries, renderBenchmarksPage, renderResultTables } from './report-markdown.js';
import { escapeXml, logBounds, renderLatencyChart } from './report-svg.js';
import { backToBackRatio, ceilingRatio, checkTargets, speedRatio } from './targets.js';
import { SAMPLE_WAKE_COSTS } from './wake-costs.fixture.js';

/** A minimal well-formedness check: balanced tags, quoted attributes, no stray '&' or '<'. */
function assertWellFormedXml(xml: string): void {
  const stack: string[] = [];
  const tagRe = /<(\/?)([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g;
  let last = 0;
  let m: RegExpExecArray | null;
  while ((m = tagRe.exec(xml)) !== null) {
    const between = xml.slice(last, m.index);
    expect(between).not.toMatch(/</);
    expect(between).not.toMatch(/&(?!(amp|lt|gt|quot|apos);)/);
    last = tagRe.lastIndex;
    const [, closing, name, , selfClosing] = m;
    if (closing) expect(stack.pop()).toBe(name);
    else if (!selfClosing) stack.push(name);
  }
  expect(xml.slice(last).trim()).toBe('');
  expect(stack).toEqual([]);
}

function run(server: ServerRun['server'], n: number, write: number, search: number): ServerRun {
  return {
    server,
    n,
    write_tool: server === 'ours' ? 'think' : 'create_entities',
    search_tool: server === 'ours' ? 'dream' : 'search_nodes',
    write_ms: { p50: write, p95: write * 2, count: 200 },
    search_ms: { p50: search, p95: search * 2, count: 200 },
    ping_p50_ms: 0.1,
    preload_ms_per_item: 0.5,
    preload_concurrency: server === 'ours' ? 16 : 1,
    spawn_to_tools_list_ms: 180,
    peak_rss_bytes: 90 * 1024 * 1024,
    data_bytes: 5_000_000,
  };
}

const result: BenchResult = {
  name: 'test-run',
  started_at: '2025-01-01T00:00:00.000Z',
  finished_at: '2025-01-01T01:00:00.000Z',
  machine: { cpu_model: 'Test CPU <x86> & co', cores: 8, node: 'v20.0.0', platform: 'linux', total_memory_bytes: 8 * 1024 ** 3 },
  options: { sizes: [1000, 10_000, 100_000], refMax: 10_000, samples: 200, seed: 1, smoke: false },
  runs: [
    run('ours', 1000, 0.5, 2),
    run('reference', 1000, 5, 10),
    run('ours', 10_000, 0.6, 2.5),
    run('reference', 10_000, 40, 60),
    run('ours', 100_000, 0.7, 3),
  ],
  failures: [],
  in_process: { status: 'skipped', reason: 'import failed: nope' },
};

describe('SVG chart', () => {
  it('is well-formed, with labelled axes, a legend entry per series and escaped text', () => {
    const svg = renderLatencyChart(
      [
        { label: 'ours: think', color: '#123456', points: [{ n: 1000, ms: 0.5 }, { n: 100_000, ms: 0.7 }] },
        { label: 'ref <search> & co', color: '#654321', dash: '6 4', points: [{ n: 1000, ms: 10 }, { n: 10_000, ms: 60 }] },
      ],
      { title: 'Latency' },
    );
    assertWellFormedXml(svg);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('ms, log scale');
    expect(svg).toContain('N, log scale');
    expect(svg).toContain('ref &lt;search&gt; &amp; co');
    expect(svg.match(/<polyline /g)).toHaveLength(2);
    expect(svg).toContain('>100k<');
  });

  it('uses whole decades on the log axis and survives no data', () => {
    expect(logBounds([0.5, 60])).toEqual({ lo: -1, hi: 2 });
    expect(logBounds([1])).toEqual({ lo: 0, hi: 1 });
    assertWellFormedXml(renderLatencyChart([]));
    assertWellFormedXml(renderLatencyChart(chartSeries(result)));
    expect(escapeXml(`"a" & 'b'`)).toBe('&quot;a&quot; &amp; &apos;b&apos;');
  });
});

describe('result tables and targets', () => {
  it('computes ratios reference/ours', () => {
    expect(speedRatio(result, 10_000, 'write')).toBeCloseTo(40 / 0.6);
    expect(speedRatio(result, 1000, 'search')).toBe(5);
    expect(speedRatio(result, 100_000, 'write')).toBeNull();
  });

  it('checks every target and says n/a for what was not measured', () => {
    const checks = checkTargets(result);
    expect(checks.map((c) => c.status)).toEqual(['PASS', 'MISS', 'PASS', 'PASS', 'PASS', 'PASS', 'PASS']);
    expect(checks[1].measured).toBe('24x');
    const smoke: BenchResult = { ...result, runs: [run('ours', 200, 3, 30), run('reference', 200, 1, 1)] };
    const statuses = checkTargets(smoke).map((c) => c.status);
    expect(statuses).toEqual(['n/a', 'n/a', 'n/a', 'n/a', 'n/a', 'PASS', 'n/a']);
    const slow: BenchResult = { ...result, runs: result.runs.map((r) => (r.server === 'ours' && r.n === 100_000 ? run('ours', 100_000, 3, 50) : r)) };
    expect(checkTargets(slow).filter((c) => c.status === 'MISS')).toHaveLength(4);
  });

  it("reads the RSS target's 150 MB as 150,000,000 bytes: 143 MiB passes, 144 MiB does not", () => {
    const withRss = (mib: number): BenchResult => ({
      ...result,
      runs: result.runs.map((r) => (r.server === 'ours' && r.n === 100_000 ? { ...r, peak_rss_bytes: mib * 1024 * 1024 } : r)),
    });
    const rss = (b: BenchResult) => checkTargets(b).find((c) => c.target.includes('peak RSS'))!;
    expect(rss(withRss(143))).toMatchObject({ status: 'PASS', target: 'N=100,000: peak RSS <= 150 MB (143.1 MiB)' });
    expect(rss(withRss(144)).status).toBe('MISS');
  });

  it('renders one table per N, the ratios, the skipped in-process section and reproduction commands', () => {
    const tables = renderResultTables(result);
    expect(tables).toContain('### N = 1,000');
    expect(tables).toContain('### N = 100,000');
    expect(tables).toContain('| 10,000 | 67x | 24x |');
    expect(tables).toContain('_Skipped: import failed: nope_');
    const page = renderBenchmarksPage(result, 'bench-latency.svg');
    expect(page).toContain('![Latency p50 against N, log scale](bench-latency.svg)');
    expect(page).toContain('## How to reproduce');
    expect(page).toContain('npm run bench');
    expect(page).toContain('Test CPU <x86> & co');
  });

  it('shows the zero-work ceiling beside the ratios where it was measured', () => {
    const lat = (p50: number) => ({ p50, p95: p50 * 2, count: 200 });
    const withCeiling: BenchResult = {
      ...result,
      ceiling: [{ n: 10_000, floor_write_ms: lat(0.5), floor_search_ms: lat(0.8), reference_write_ms: lat(41), reference_search_ms: lat(56) }],
    };
    expect(ceilingRatio(withCeiling, 10_000, 'write')).toBeCloseTo(82);
    expect(ceilingRatio(withCeiling, 10_000, 'search')).toBeCloseTo(70);
    expect(ceilingRatio(withCeiling, 1000, 'write')).toBeNull();
    expect(ceilingRatio(result, 10_000, 'write')).toBeNull();
    const checks = checkTargets(withCeiling);
    expect(checks[0].measured).toBe('67x (zero-work server: 82x)');
    expect(checks[1]).toEqual({ target: 'N=10,000: reference/ours search p50 >= 30', status: 'MISS', measured: '24x (zero-work server: 70x)' });
    const tables = renderResultTables(withCeiling);
    expect(tables).toContain('### Ceiling: reference p50 / zero-work server p50');
    expect(tables).toContain('| 10,000 | 0.500 | 41.0 | 82x | 0.800 | 56.0 | 70x |');
    expect(renderResultTables(result)).not.toContain('Ceiling');
    // The page describes the ceiling pass only where the result has one (older result files do not).
    expect(renderBenchmarksPage(withCeiling, 'c.svg')).toContain('- Ceiling: after the back-to-back pass');
    expect(renderBenchmarksPage(result, 'c.svg')).not.toContain('- Ceiling:');
  });

  it('shows the back-to-back ratios in their own table and beside the ratio targets where they were measured', () => {
    const lat = (p50: number) => ({ p50, p95: p50 * 2, count: 200 });
    const b2b = (r: ServerRun, write: number, search: number): ServerRun => ({ ...r, write_b2b_ms: lat(write), search_b2b_ms: lat(search) });
    const withB2b: BenchResult = {
      ...result,
      runs: [
        // Only ours has back-to-back figures at 1,000: no row there.
        b2b(run('ours', 1000, 0.5, 2), 0.4, 1),
        run('reference', 1000, 5, 10),
        b2b(run('ours', 10_000, 0.6, 2.5), 0.5, 1.25),
        b2b(run('reference', 10_000, 40, 60), 45, 50),
        run('ours', 100_000, 0.7, 3),
      ],
    };
    expect(backToBackRatio(withB2b, 10_000, 'write')).toBeCloseTo(90);
    expect(backToBackRatio(withB2b, 10_000, 'search')).toBeCloseTo(40);
    expect(backToBackRatio(withB2b, 1000, 'write')).toBeNull();
    expect(backToBackRatio(result, 10_000, 'write')).toBeNull();

    const tables = renderResultTables(withB2b);
    const start = tables.indexOf('### Back to back: reference p50 / ours p50');
    expect(start).toBeGreaterThan(tables.indexOf('### Reference p50 / ours p50'));
    const section = tables.slice(start, tables.indexOf('###', start + 3));
    expect(section).toContain(
      '| N | think p50 (ms) | create_entities p50 (ms) | write (create_entities / think) | dream p50 (ms) | search_nodes p50 (ms) | search (search_nodes / dream) |',
    );
    expect(section.split('\n').filter((l) => /^\| [\d,]+ \|/.test(l))).toEqual(['| 10,000 | 0.500 | 45.0 | 90x | 1.25 | 50.0 | 40x |']);
    // The alternating ratios are unchanged by the back-to-back figures.
    expect(tables).toContain('| 10,000 | 67x | 24x |');
    expect(renderResultTables(result)).not.toContain('Back to back');
    expect(renderBenchmarksPage(withB2b, 'c.svg')).toContain('- Back to back: after the pings');
    expect(renderBenchmarksPage(result, 'c.svg')).not.toContain('- Back to back:');

    const checks = checkTargets(withB2b);
    expect(checks.map((c) => c.status)).toEqual(['PASS', 'MISS', 'PASS', 'PASS', 'PASS', 'PASS', 'PASS']);
    expect(checks[0].measured).toBe('67x (back to back: 90x)');
    expect(checks[1]).toEqual({ target: 'N=10,000: reference/ours search p50 >= 30', status: 'MISS', measured: '24x (back to back: 40x)' });
    const withBoth: BenchResult = {
      ...withB2b,
      ceiling: [{ n: 10_000, floor_write_ms: lat(0.5), floor_search_ms: lat(0.8), reference_write_ms: lat(41), reference_search_ms: lat(56) }],
    };
    expect(checkTargets(withBoth).slice(0, 2).map((c) => c.measured)).toEqual([
      '67x (back to back: 90x; zero-work server: 82x)',
      '24x (back to back: 40x; zero-work server: 70x)',
    ]);
    const bothTables = renderResultTables(withBoth);
    expect(bothTables.indexOf('### Back to back')).toBeLessThan(bothTables.indexOf('### Ceiling'));
    expect(checkTargets(result).slice(0, 2).map((c) => c.measured)).toEqual(['67x', '24x']);
  });

  it('describes the back-to-back pass and quotes no hard-coded figures when reading the ratios', () => {
    const lat = (p50: number) => ({ p50, p95: p50 * 2, count: 200 });
    const withB2b: BenchResult = {
      ...result,
      runs: result.runs.map((r) => (r.n === 10_000 ? { ...r, write_b2b_ms: lat(r.write_ms.p50), search_b2b_ms: lat(r.search_ms.p50) } : r)),
    };
    const page = renderBenchmarksPage(withB2b, 'bench-latency.svg');
    expect(page).toContain('- Back to back: after the pings, at each N where both servers run, 200 more writes of each server in a row');
    const reading = page.slice(page.indexOf('## Reading the ratios'), page.indexOf('## How to reproduce'));
    expect(reading).toContain('ceiling table');
    expect(reading).toContain('back-to-back table');
    expect(reading).toContain('`npm run idle-floor`');
    expect(reading).not.toMatch(/\d ms/);
    expect(reading).not.toContain('vCPU');
    // The only figure left in that section (p50 aside) is the reference's largest N, from the result.
    expect(reading.match(/(?<!\w)\d[\d,.]*/g)).toEqual(['10,000']);
  });

  it('escapes pipes in markdown cells', () => {
    expect(markdownTable(['a'], [['x|y']])).toBe('| a |\n|---|\n| x\\|y |');
  });
});

describe('restart table', () => {
  it("lists our restarts by N, and is left out of a result that has none", () => {
    const withRestarts: BenchResult = {
      ...result,
      runs: result.runs.map((r) =>
        r.server === 'ours' && r.n !== 1000 ? { ...r, restart: { spawn_to_tools_list_ms: 190 + r.n / 10_000, first_search_ms: r.n / 1000 } } : r,
      ),
    };
    const tables = renderResultTables(withRestarts);
    expect(tables).toContain(
      ['### Restart on the same data (ours)', '', '| N | spawn to tools/list (ms) | first dream (ms) |', '|---|---|---|', '| 10,000 | 191 | 10.0 |', '| 100,000 | 200 | 100 |'].join('\n'),
    );
    expect(renderResultTables(result)).not.toContain('Restart on the same data');
    expect(renderBenchmarksPage(withRestarts, 'c.svg')).toContain('- Restart (ours): after it closed, our server is started again');
  });
});

describe('first search after preload', () => {
  it("is a column of each size's table, a dash where a run has none (older result files)", () => {
    const withFirst: BenchResult = {
      ...result,
      runs: result.runs.map((r) => (r.server === 'ours' && r.n === 10_000 ? { ...r, first_search_after_preload_ms: 2811.4 } : r)),
    };
    const tables = renderResultTables(withFirst);
    const section = tables.slice(tables.indexOf('### N = 10,000'), tables.indexOf('### N = 100,000'));
    expect(section).toContain('| preload (ms/item) | first search after preload (ms) | spawn to tools/list (ms) |');
    expect(section).toContain('| 0.500 (16 in flight) | 2811 | 180 |');
    expect(section).toContain('| 0.500 (sequential) | - | 180 |');
    expect(renderBenchmarksPage(withFirst, 'c.svg')).toContain('- First search after preload: one search');
  });
});

describe('machine table wake-up rows', () => {
  it("give the wake-up costs measured with the run, and are left out of a result without them", () => {
    const withWake: BenchResult = { ...result, wake: SAMPLE_WAKE_COSTS };
    const page = renderBenchmarksPage(withWake, 'c.svg');
    expect(page).toContain('| a wake-up after 36 ms idle | memory reads 4.15x, arithmetic 1.08x their back-to-back time |');
    expect(page).toContain('| a wake-up after a core was busy 36 ms | memory reads 7.00x, arithmetic 1.57x their back-to-back time |');
    expect(renderBenchmarksPage(result, 'c.svg')).not.toContain('a wake-up after');
    // Without a back-to-back row there is nothing to compare with: no rows.
    expect(renderBenchmarksPage({ ...withWake, wake: { ...withWake.wake!, rows: withWake.wake!.rows.slice(1) } }, 'c.svg')).not.toContain('a wake-up after');
  });
});
