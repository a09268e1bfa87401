/**
 * The service's metrics in the Prometheus text exposition format (version 0.0.4), for GET
 * /metrics: what they are made of (ServiceMetrics) and how they are written (MetricsText). No HTTP
 * here; metrics-route.ts serves them.
 */
import { CALL_DURATION_BUCKETS, MemoryError, type ToolCallStats } from '@memory-service/kernel';

/** The Content-Type of the text format. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = ['counter', 'gauge', 'histogram'] as const;
export type MetricType = (typeof TYPES)[number];

/** A label value as the text format quotes it: backslash, double quote and line feed escaped. */
export function escapeLabelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === '\\' ? '\\\\' : c === '"' ? '\\"' : '\\n'));
}

/** A HELP text as the format reads it: backslash and line feed escaped (a quote is plain there). */
export function escapeHelp(text: string): string {
  return text.replace(/[\\\n]/g, (c) => (c === '\\' ? '\\\\' : '\\n'));
}

/** A sample value: integers as they are, NaN and the infinities as the format spells them. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/**
 * A metrics page being written: each family declared once with its HELP and TYPE lines, then its
 * samples; text() ends with a line feed. A name or label the format does not accept is an error
 * naming it, as is a sample of a family not declared or declared after another began.
 */
export class MetricsText {
  private readonly lines: string[] = [];
  private readonly declared = new Set<string>();
  private current: { name: string; type: MetricType } | null = null;

  family(name: string, type: MetricType, help: string): this {
    if (!METRIC_NAME.test(name)) throw invalidName('name', name, METRIC_NAME);
    if (!TYPES.includes(type)) throw new MemoryError('KERNEL_ERR_VALIDATION', `Metric ${name}: type "${type}" is not one of ${TYPES.join(', ')}`, { field: 'type', accepted: TYPES });
    if (this.declared.has(name)) throw new MemoryError('KERNEL_ERR_VALIDATION', `Metric ${name} is declared twice: a family's samples go together`, { field: 'name' });
    this.declared.add(name);
    this.current = { name, type };
    this.lines.push(`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`);
    return this;
  }

  /**
   * One sample of the family declared last: `name` is the family's own, or for a histogram its
   * `_bucket`, `_sum` or `_count` series.
   */
  sample(name: string, labels: Readonly<Record<string, string>> | null, value: number): this {
    const family = this.current;
    const allowed = family === null ? [] : family.type === 'histogram' ? ['_bucket', '_sum', '_count'].map((s) => family.name + s) : [family.name];
    if (!allowed.includes(name)) {
      throw new MemoryError('KERNEL_ERR_VALIDATION', `Sample ${name} does not belong to the family declared last (${family?.name ?? 'none'})`, { field: 'name', accepted: allowed });
    }
    let line = name;
    if (labels) {
      const parts: string[] = [];
      for (const key of Object.keys(labels)) {
        if (!LABEL_NAME.test(key) || key.startsWith('__')) throw invalidName('label', key, LABEL_NAME);
        parts.push(`${key}="${escapeLabelValue(labels[key]!)}"`);
      }
      if (parts.length > 0) line += `{${parts.join(',')}}`;
    }
    this.lines.push(`${line} ${formatValue(value)}`);
    return this;
  }

  /** The page: every line ends with a line feed, the last one too. */
  text(): string {
    return this.lines.length === 0 ? '' : `${this.lines.join('\n')}\n`;
  }
}

function invalidName(field: 'name' | 'label', value: string, pattern: RegExp): MemoryError {
  return new MemoryError('KERNEL_ERR_VALIDATION', `Metric ${field} ${JSON.stringify(value)} is not valid: it must match ${pattern.source}${field === 'label' ? ' and not start with __' : ''}`, {
    field,
    accepted: pattern.source,
  });
}

/**
 * Write a histogram's series for one label set from per-bucket (not cumulative) counts: each
 * `_bucket` is the calls at most its bound, so the counts add up, and the `+Inf` bucket is the
 * `_count`.
 */
export function writeHistogram(out: MetricsText, name: string, labels: Record<string, string>, bounds: readonly number[], perBucket: ArrayLike<number>, sum: number): void {
  if (perBucket.length !== bounds.length + 1) {
    throw new MemoryError('KERNEL_ERR_VALIDATION', `Histogram ${name}: ${perBucket.length} bucket counts for ${bounds.length} bounds (one more is the +Inf bucket)`, {
      field: 'perBucket',
      accepted: bounds.length + 1,
    });
  }
  let cumulative = 0;
  for (let i = 0; i < bounds.length; i++) {
    cumulative += perBucket[i]!;
    out.sample(`${name}_bucket`, { ...labels, le: formatValue(bounds[i]!) }, cumulative);
  }
  cumulative += perBucket[bounds.length]!;
  out.sample(`${name}_bucket`, { ...labels, le: '+Inf' }, cumulative);
  out.sample(`${name}_sum`, labels, sum);
  out.sample(`${name}_count`, labels, cumulative);
}

/** Record counts as the stores report them (stores RecordCounter.read). */
export interface RecordCountsReading {
  source: 'replica' | 'live';
  replica_age_seconds: number | null;
  counts: readonly { kind: string; layer: string; count: number }[];
}

/** What ServiceMetrics reads at each render. */
export interface MetricsSources {
  /** The service version (memory_service_info). */
  version: string;
  /** When the service started, ms since the epoch. */
  startedAt: number;
  /** The tools with their call stats: the registered ones (kernel.tools()), and those the surfaces answer themselves (surfaceCallStats). */
  tools: () => Iterable<{ readonly name: string; readonly calls: ToolCallStats }>;
  /** Record counts per kind and layer; absent without the stores. */
  records?: () => RecordCountsReading;
  /** Circuit breakers and their states; absent without the stores. */
  breakers?: () => Iterable<{ readonly name: string; readonly state: string }>;
  /** Defaults to Date.now. */
  now?: () => number;
  /** Defaults to process.memoryUsage. */
  memoryUsage?: () => { rss: number; heapUsed: number };
  /** Told when the record counts cannot be read (the page is answered without them). */
  warn?: (message: string) => void;
}

/** Prefix of the service's own metrics. */
const P = 'memory_service';

/**
 * The metrics page of one service, read afresh at each render: service info and uptime, process
 * memory, tool calls (counter by tool and outcome, duration histogram by tool; a tool appears once
 * called), record counts per kind and layer and where they were read, and breaker states.
 */
export class ServiceMetrics {
  constructor(private readonly sources: MetricsSources) {}

  render(): string {
    const src = this.sources;
    const out = new MetricsText();
    const now = src.now ?? Date.now;
    const memory = (src.memoryUsage ?? process.memoryUsage)();

    out.family(`${P}_info`, 'gauge', 'The memory service version; always 1.').sample(`${P}_info`, { version: src.version }, 1);
    out.family(`${P}_uptime_seconds`, 'gauge', 'Seconds since the service started.').sample(`${P}_uptime_seconds`, null, Math.max(0, (now() - src.startedAt) / 1000));
    out.family('process_resident_memory_bytes', 'gauge', 'Resident set size of the process, in bytes.').sample('process_resident_memory_bytes', null, memory.rss);
    out.family('nodejs_heap_used_bytes', 'gauge', 'V8 heap in use, in bytes.').sample('nodejs_heap_used_bytes', null, memory.heapUsed);

    const called = [...src.tools()].filter((t) => t.calls.ok + t.calls.error > 0);
    out.family(`${P}_tool_calls_total`, 'counter', 'Tool calls since the service started, by tool and outcome (error: bad arguments or a failure), whatever the transport; a dispatcher counts its list and the input it refuses, its members count their own calls.');
    for (const t of called) {
      out.sample(`${P}_tool_calls_total`, { tool: t.name, outcome: 'ok' }, t.calls.ok);
      out.sample(`${P}_tool_calls_total`, { tool: t.name, outcome: 'error' }, t.calls.error);
    }
    out.family(`${P}_tool_call_duration_seconds`, 'histogram', 'Duration of tool calls, answered or failed, by tool (argument checks, handler and its transaction).');
    for (const t of called) writeHistogram(out, `${P}_tool_call_duration_seconds`, { tool: t.name }, CALL_DURATION_BUCKETS, t.calls.perBucket, t.calls.totalMs / 1000);

    // A database that cannot be read (locked past the busy timeout, damaged, a disk error) leaves
    // out the record counts only: the rest of the page still tells the operator about the process.
    let r: RecordCountsReading | null = null;
    if (src.records) {
      try {
        r = src.records();
      } catch (err) {
        src.warn?.(`/metrics: the record counts could not be read (${(err as Error).message}); answered without them`);
      }
      out.family(`${P}_records_readable`, 'gauge', '1 when the record counts could be read at this scrape, 0 when the database could not be read (the counts are left out).');
      out.sample(`${P}_records_readable`, null, r ? 1 : 0);
    }
    if (r) {
      out.family(`${P}_records`, 'gauge', 'Memory records by kind and layer, over every user_id.');
      for (const c of r.counts) out.sample(`${P}_records`, { kind: c.kind, layer: c.layer }, c.count);
      out.family(`${P}_records_from_replica`, 'gauge', '1 when the record counts were read from the fresh replica (memory_sync_replica), 0 when from the live database.');
      out.sample(`${P}_records_from_replica`, null, r.source === 'replica' ? 1 : 0);
      if (r.replica_age_seconds !== null) {
        out.family(`${P}_replica_age_seconds`, 'gauge', 'Seconds since the replica was synced.').sample(`${P}_replica_age_seconds`, null, r.replica_age_seconds);
      }
    }
    if (src.breakers) {
      out.family(`${P}_breaker_open`, 'gauge', '1 while a background circuit breaker is not closed (open, or half-open awaiting its trial run), else 0.');
      for (const b of src.breakers()) out.sample(`${P}_breaker_open`, { breaker: b.name }, b.state === 'closed' ? 0 : 1);
    }
    return out.text();
  }
}
