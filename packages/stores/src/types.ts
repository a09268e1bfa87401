import type BetterSqlite3 from 'better-sqlite3';
import type { Logger, TransactionHost } from '@memory-service/kernel';

/** An open better-sqlite3 connection; the stores never open or close it themselves. */
export type Database = BetterSqlite3.Database;

/** The two isolated memory layers of the service. */
export type Layer = 'user' | 'agent';

export const LAYERS: readonly Layer[] = ['user', 'agent'];

/** The namespace of every record except projects: a query on one scope never sees another's rows. */
export interface Scope {
  layer: Layer;
  user_id: string;
}

/** The source of all time in the stores; tests move it. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** A numbered schema step; the kernel records and applies them in ascending order, each in a transaction. */
export interface Migration {
  id: number;
  name: string;
  up(db: Database): void;
}

export interface StoresConfig {
  /** L1 ring capacity per scope; the oldest items drop out. */
  l1Size: number;
  /** Scratchpad capacity per scope; writing a new key when full evicts the least recently written entry. */
  scratchpadMax: number;
  /** Default token budget for context assembly. */
  tokenBudget: number;
  /** Largest text accepted by a store write. */
  maxTextChars: number;
  /**
   * recall_events rows (dream's telemetry) kept per layer and user_id: the newest, trimmed in the
   * deferred batch that writes them (RecallEventStore.record).
   */
  recallEventsKeep: number;
  /**
   * Scopes (layer and user_id) whose part of each retrieval source's in-memory index is kept
   * (retrieval.index_max_scopes); past it the least recently searched or written is evicted and
   * reloaded from the scope's rows at its next search.
   */
  indexMaxScopes: number;
  /** Seconds a saga run may take (saga.timeout_seconds): past it no step is started and the done ones are compensated. */
  sagaTimeoutSeconds: number;
}

export const DEFAULT_STORES_CONFIG: Readonly<StoresConfig> = Object.freeze({
  l1Size: 50,
  scratchpadMax: 20,
  tokenBudget: 2000,
  maxTextChars: 100_000,
  recallEventsKeep: 10_000,
  indexMaxScopes: 1_000,
  sagaTimeoutSeconds: 300,
});

export interface StoresOptions {
  db: Database;
  dataDir: string;
  clock: Clock;
  config?: Partial<StoresConfig>;
  /** Called after each outermost write transaction commits (the kernel schedules a WAL checkpoint). */
  afterCommit?: () => void;
  /**
   * The kernel's storage (PluginContext.storage): a transaction it opened around a tool call is
   * followed like one the stores opened, so the work they keep for a commit (in-memory copies,
   * wiki page files, the index catch-up) runs when it commits, and is dropped when it rolls back.
   */
  transactions?: TransactionHost;
  /**
   * Where failures of background work and of files written after a commit are reported (the
   * database is canonical, so they never fail a call); stderr when not given.
   */
  logger?: Logger;
}

