import { CALL_DURATION_BUCKETS, ToolCallStats } from '@memory-service/kernel';
import { describe, expect, it, vi } from 'vitest';
import { escapeHelp, escapeLabelValue, formatValue, MetricsText, ServiceMetrics, writeHistogram, type MetricsSources } from './metrics.js';

/**
 * A line of the text format: a comment (HELP or TYPE), or a sample `name{labels} value` whose label
 * values hold no raw quote, backslash or line feed (only their escapes).
 */
const SAMPLE = /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\\\|\\"|\\n)*"(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\\\|\\"|\\n)*")*\})? (?:[-+]?[0-9.e+-]+|NaN|\+Inf|-Inf)$/;
const COMMENT = /^# (HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*|TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (counter|gauge|histogram))$/;

function checkFormat(text: string): string[] {
  expect(text.endsWith('\n')).toBe(true);
  const lines = text.slice(0, -1).split('\n');
  for (const line of lines) expect(COMMENT.test(line) || SAMPLE.test(line), line).toBe(true);
  return lines;
}

/** Stats with the given durations (ms) counted as ok, and `errors` more counted as errors of 1 ms. */
function statsOf(durationsMs: number[], errors = 0): ToolCallStats {
  const stats = new ToolCallStats();
  const now = vi.spyOn(performance, 'now');
  for (const ms of durationsMs) {
    now.mockReturnValueOnce(100 + ms);
    stats.done(true, 100);
  }
  for (let i = 0; i < errors; i++) {
    now.mockReturnValueOnce(101);
    stats.done(false, 100);
  }
  now.mockRestore();
  return stats;
}

const base = (over: Partial<MetricsSources> = {}): MetricsSources => ({
  version: '1.8.0',
  startedAt: 1_000_000,
  now: () => 1_012_500,
  memoryUsage: () => ({ rss: 123_456, heapUsed: 7_890 }),
  tools: () => [],
  ...over,
});

/** The value of the sample written exactly as `series` (name and labels). */
const valueOf = (lines: string[], series: string) => {
  const line = lines.find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1).replace('+Inf', 'Infinity'));
};

describe('the text format', () => {
  it('escapes backslash, double quote and line feed in label values, and backslash and line feed in HELP', () => {
    expect(escapeLabelValue('a"b\\c\nd')).toBe('a\\"b\\\\c\\nd');
    expect(escapeLabelValue('plain')).toBe('plain');
    expect(escapeHelp('one\\two\nthree "q"')).toBe('one\\\\two\\nthree "q"');
    const text = new MetricsText().family('m', 'gauge', 'help\nwith a line').sample('m', { v: 'x"y\\z\n' }, 1).text();
    expect(text).toBe('# HELP m help\\nwith a line\n# TYPE m gauge\nm{v="x\\"y\\\\z\\n"} 1\n');
    checkFormat(text);
  });

  it('writes values as the format reads them', () => {
    expect([0, 1.5, 1e21, NaN, Infinity, -Infinity].map(formatValue)).toEqual(['0', '1.5', '1e+21', 'NaN', '+Inf', '-Inf']);
  });

  it('refuses a bad metric or label name, a family declared twice and a sample outside the family declared last, naming the field', () => {
    expect(() => new MetricsText().family('bad name', 'gauge', 'h')).toThrow(expect.objectContaining({ field: 'name' }));
    expect(() => new MetricsText().family('m', 'summary' as 'gauge', 'h')).toThrow(expect.objectContaining({ field: 'type', accepted: ['counter', 'gauge', 'histogram'] }));
    expect(() => new MetricsText().family('m', 'gauge', 'h').sample('m', { 'bad-label': 'x' }, 1)).toThrow(expect.objectContaining({ field: 'label' }));
    expect(() => new MetricsText().family('m', 'gauge', 'h').sample('m', { __reserved: 'x' }, 1)).toThrow(expect.objectContaining({ field: 'label' }));
    expect(() => new MetricsText().family('m', 'gauge', 'h').family('m', 'gauge', 'h')).toThrow(/declared twice/);
    expect(() => new MetricsText().family('m', 'gauge', 'h').sample('other', null, 1)).toThrow(expect.objectContaining({ field: 'name', accepted: ['m'] }));
    expect(() => new MetricsText().sample('m', null, 1)).toThrow(/none/);
    expect(() => new MetricsText().family('h', 'histogram', 'h').sample('h', null, 1)).toThrow(expect.objectContaining({ accepted: ['h_bucket', 'h_sum', 'h_count'] }));
    expect(new MetricsText().text()).toBe('');
  });

  it('a histogram: buckets cumulative in bound order, +Inf equal to _count, then _sum and _count', () => {
    const out = new MetricsText().family('h_seconds', 'histogram', 'h');
    writeHistogram(out, 'h_seconds', { tool: 't' }, [0.1, 1], [2, 0, 3], 4.25);
    expect(out.text().split('\n').slice(2, -1)).toEqual([
      'h_seconds_bucket{tool="t",le="0.1"} 2',
      'h_seconds_bucket{tool="t",le="1"} 2',
      'h_seconds_bucket{tool="t",le="+Inf"} 5',
      'h_seconds_sum{tool="t"} 4.25',
      'h_seconds_count{tool="t"} 5',
    ]);
    expect(() => writeHistogram(new MetricsText().family('x', 'histogram', 'h'), 'x', {}, [1], [1], 0)).toThrow(expect.objectContaining({ field: 'perBucket', accepted: 2 }));
  });
});

describe('ServiceMetrics', () => {
  it('service info, uptime and process memory, each family with HELP and TYPE, and a trailing line feed', () => {
    const lines = checkFormat(new ServiceMetrics(base()).render());
    expect(lines).toContain('# TYPE memory_service_info gauge');
    expect(lines).toContain('memory_service_info{version="1.8.0"} 1');
    expect(valueOf(lines, 'memory_service_uptime_seconds')).toBe(12.5);
    expect(valueOf(lines, 'process_resident_memory_bytes')).toBe(123_456);
    expect(valueOf(lines, 'nodejs_heap_used_bytes')).toBe(7_890);
    for (const family of ['memory_service_info', 'memory_service_uptime_seconds', 'process_resident_memory_bytes', 'nodejs_heap_used_bytes', 'memory_service_tool_calls_total', 'memory_service_tool_call_duration_seconds']) {
      expect(lines.filter((l) => l.startsWith(`# HELP ${family} `))).toHaveLength(1);
      expect(lines.filter((l) => l.startsWith(`# TYPE ${family} `))).toHaveLength(1);
    }
    // Without the stores, no record or breaker families.
    expect(lines.some((l) => l.includes('memory_service_records') || l.includes('breaker'))).toBe(false);
  });

  it('tool calls: both outcomes of each tool called, none of a tool never called; the histogram cumulative with +Inf = _count = ok + error', () => {
    // 0.3 ms, 0.8 ms, 40 ms and 9 s answered, 2 errors of 1 ms.
    const think = statsOf([0.3, 0.8, 40, 9000], 2);
    const tools = [
      { name: 'think', calls: think },
      { name: 'never_called', calls: new ToolCallStats() },
      { name: 'odd"name\\with\nall', calls: statsOf([1]) },
    ];
    const lines = checkFormat(new ServiceMetrics(base({ tools: () => tools })).render());
    expect(valueOf(lines, 'memory_service_tool_calls_total{tool="think",outcome="ok"}')).toBe(4);
    expect(valueOf(lines, 'memory_service_tool_calls_total{tool="think",outcome="error"}')).toBe(2);
    expect(lines.some((l) => l.includes('never_called'))).toBe(false);
    expect(valueOf(lines, 'memory_service_tool_calls_total{tool="odd\\"name\\\\with\\nall",outcome="ok"}')).toBe(1);

    const buckets = lines.filter((l) => l.startsWith('memory_service_tool_call_duration_seconds_bucket{tool="think",'));
    expect(buckets.map((l) => /le="([^"]+)"/.exec(l)![1])).toEqual([...CALL_DURATION_BUCKETS.map(String), '+Inf']);
    const values = buckets.map((l) => Number(l.split(' ').at(-1)));
    for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThanOrEqual(values[i - 1]!);
    expect(valueOf(lines, 'memory_service_tool_call_duration_seconds_bucket{tool="think",le="0.0005"}')).toBe(1);
    expect(valueOf(lines, 'memory_service_tool_call_duration_seconds_bucket{tool="think",le="0.001"}')).toBe(4);
    expect(valueOf(lines, 'memory_service_tool_call_duration_seconds_bucket{tool="think",le="0.05"}')).toBe(5);
    expect(valueOf(lines, 'memory_service_tool_call_duration_seconds_bucket{tool="think",le="5"}')).toBe(5);
    expect(values.at(-1)).toBe(6);
    expect(valueOf(lines, 'memory_service_tool_call_duration_seconds_count{tool="think"}')).toBe(6);
    expect(valueOf(lines, 'memory_service_tool_call_duration_seconds_sum{tool="think"}')).toBeCloseTo((0.3 + 0.8 + 40 + 9000 + 2) / 1000, 9);
    // Every series of one family stays together after its TYPE line.
    const typeAt = lines.indexOf('# TYPE memory_service_tool_call_duration_seconds histogram');
    const series = lines.map((l, i) => [l, i] as const).filter(([l]) => l.startsWith('memory_service_tool_call_duration_seconds'));
    expect(series.every(([, i]) => i > typeAt)).toBe(true);
  });

  it('records per kind and layer with where they were read, the replica age only when known, and breakers', () => {
    const counts = [
      { kind: 'facts', layer: 'user', count: 3 },
      { kind: 'facts', layer: 'agent', count: 0 },
      { kind: 'archive', layer: 'user', count: 1 },
    ];
    const fromReplica = checkFormat(
      new ServiceMetrics(
        base({
          records: () => ({ source: 'replica', replica_age_seconds: 42, counts }),
          breakers: () => [
            { name: 'nightly', state: 'closed' },
            { name: 'l1_files', state: 'open' },
            { name: 'backup_scheduler', state: 'half-open' },
          ],
        }),
      ).render(),
    );
    expect(valueOf(fromReplica, 'memory_service_records{kind="facts",layer="user"}')).toBe(3);
    expect(valueOf(fromReplica, 'memory_service_records{kind="facts",layer="agent"}')).toBe(0);
    expect(valueOf(fromReplica, 'memory_service_records{kind="archive",layer="user"}')).toBe(1);
    expect(valueOf(fromReplica, 'memory_service_records_from_replica')).toBe(1);
    expect(valueOf(fromReplica, 'memory_service_replica_age_seconds')).toBe(42);
    expect(valueOf(fromReplica, 'memory_service_breaker_open{breaker="nightly"}')).toBe(0);
    expect(valueOf(fromReplica, 'memory_service_breaker_open{breaker="l1_files"}')).toBe(1);
    expect(valueOf(fromReplica, 'memory_service_breaker_open{breaker="backup_scheduler"}')).toBe(1);

    const live = checkFormat(new ServiceMetrics(base({ records: () => ({ source: 'live', replica_age_seconds: null, counts }) })).render());
    expect(valueOf(live, 'memory_service_records_from_replica')).toBe(0);
    expect(live.some((l) => l.includes('memory_service_replica_age_seconds'))).toBe(false);
  });

  it('answers without the record counts when they cannot be read, saying so, and says when they could', () => {
    const warned: string[] = [];
    const failing = new ServiceMetrics(
      base({
        records: () => {
          throw new Error('disk I/O error');
        },
        breakers: () => [{ name: 'nightly', state: 'closed' }],
        warn: (m) => warned.push(m),
      }),
    );
    const lines = checkFormat(failing.render());
    expect(valueOf(lines, 'memory_service_records_readable')).toBe(0);
    expect(lines.some((l) => l.startsWith('memory_service_records{') || l.startsWith('memory_service_records_from_replica'))).toBe(false);
    expect(valueOf(lines, 'process_resident_memory_bytes')).toBe(123_456);
    expect(valueOf(lines, 'memory_service_breaker_open{breaker="nightly"}')).toBe(0);
    expect(warned).toEqual([expect.stringContaining('disk I/O error')]);
    const readable = checkFormat(new ServiceMetrics(base({ records: () => ({ source: 'live', replica_age_seconds: null, counts: [] }) })).render());
    expect(valueOf(readable, 'memory_service_records_readable')).toBe(1);
  });

  it('reads its sources afresh at each render', () => {
    let rss = 1;
    const metrics = new ServiceMetrics(base({ memoryUsage: () => ({ rss: rss++, heapUsed: 0 }) }));
    expect(valueOf(checkFormat(metrics.render()), 'process_resident_memory_bytes')).toBe(1);
    expect(valueOf(checkFormat(metrics.render()), 'process_resident_memory_bytes')).toBe(2);
  });
});
