/** The shape of a benchmark result file (bench/results/<name>.json). */
import type { LatencySummary } from './stats.js';
import type { ServerKind } from './bench-servers.js';
import type { WakeCostsResult } from './wake-costs-report.js';

export interface MachineInfo {
  cpu_model: string;
  cores: number;
  node: string;
  platform: string;
  total_memory_bytes: number;
}

/** Figures for one server at one N, measured over MCP stdio. */
export interface ServerRun {
  server: ServerKind;
  n: number;
  write_tool: string;
  search_tool: string;
  /** Alternating with the other server sample by sample where both run at this N. */
  write_ms: LatencySummary;
  search_ms: LatencySummary;
  /**
   * The same calls back to back (all of this server's samples in a row), after the pings, at each N
   * where both servers run; absent elsewhere and in older result files.
   */
  write_b2b_ms?: LatencySummary;
  search_b2b_ms?: LatencySummary;
  /** p50 of an MCP ping on the same connection: the transport floor. */
  ping_p50_ms: number;
  preload_ms_per_item: number;
  preload_concurrency: number;
  /**
   * The first search sent as soon as the preload's last write answered: what an agent waits for
   * right after a bulk load (work a server left for later is in it). Absent in older result files.
   */
  first_search_after_preload_ms?: number;
  spawn_to_tools_list_ms: number;
  /** VmHWM of the server process at the end of the run; null where /proc is unavailable. */
  peak_rss_bytes: number | null;
  /** Bytes under the data dir after the server closed. */
  data_bytes: number;
  /**
   * Ours only: the server started again on the data it just closed, and its first search sent as
   * soon as tools/list answered (what a new session on that memory waits for). Absent in older
   * result files and where the restart failed.
   */
  restart?: { spawn_to_tools_list_ms: number; first_search_ms: number };
}

/**
 * The zero-work server (floor-server.ts) alternated with the reference after the main samples, the
 * way ours is: reference p50 over its p50 is the best ratio any stdio MCP server can show in this run.
 */
export interface CeilingRun {
  n: number;
  /** The zero-work call timed in the write round (after each create_entities) and in the search round. */
  floor_write_ms: LatencySummary;
  floor_search_ms: LatencySummary;
  /** The reference's own samples of the same rounds. */
  reference_write_ms: LatencySummary;
  reference_search_ms: LatencySummary;
}

/** A server that could not be measured at some N, with the reason. */
export interface RunFailure {
  server: ServerKind | 'in-process';
  n: number;
  error: string;
}

/** Figures for the stores alone, called in-process (no transport). */
export interface InProcessRun {
  n: number;
  add_ms: LatencySummary;
  search_ms: LatencySummary;
  preload_ms_per_item: number;
}

/** `error` is set when a larger N failed after smaller ones were measured. */
export type InProcessSection =
  | { status: 'ok'; runs: InProcessRun[]; error?: string }
  | { status: 'skipped'; reason: string };

export interface BenchOptions {
  sizes: number[];
  refMax: number;
  samples: number;
  seed: number;
  smoke: boolean;
}

export interface BenchResult {
  name: string;
  started_at: string;
  finished_at: string;
  machine: MachineInfo;
  options: BenchOptions;
  runs: ServerRun[];
  failures: RunFailure[];
  in_process: InProcessSection;
  /** The zero-work server against the reference, at each N where the reference ran (absent in older files). */
  ceiling?: CeilingRun[];
  /** Fresh starts of our server, each to an answered tools/list (absent in older result files). */
  spawn?: { runs: number; samples_ms: number[]; ms: LatencySummary };
  /** What waiting costs a process on this machine (wake-costs.ts; absent in older result files). */
  wake?: WakeCostsResult;
}
