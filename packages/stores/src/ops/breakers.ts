import type { Clock } from '../types.js';

/** The states of a circuit breaker: closed (work runs), open (work is skipped), half-open (one trial run). */
export type BreakerState = 'closed' | 'open' | 'half-open';

/** Failures in a row of one component that open its breaker. */
export const BREAKER_THRESHOLD = 5;
/** How long an open breaker skips its component's work before letting one trial run through (half-open). */
export const BREAKER_COOLDOWN_MS = 60_000;

/**
 * The background components that have a breaker: the deferred bookkeeping writes (access counts,
 * recall telemetry), the retrieval index catch-up after writes, the L1 ring file writes, the
 * backup scheduler, the nightly run (a run with a failed phase counts as a failure) and the saga
 * watchdog.
 */
export const BREAKER_NAMES = ['deferred_writes', 'index_catch_up', 'l1_files', 'backup_scheduler', 'nightly', 'saga_watchdog'] as const;
export type BreakerName = (typeof BREAKER_NAMES)[number];

export interface BreakerSnapshot {
  name: BreakerName;
  state: BreakerState;
  /** Failures in a row (reset by a success or a reset). */
  failures: number;
  /** ISO time the breaker last opened, by the clock; null when closed. */
  opened_at: string | null;
  /** The last failure's message; null after a success or a reset. */
  last_error: string | null;
}

/**
 * One component's circuit breaker. It opens after `threshold` failures in a row; while open its
 * component skips the work (allow() is false) until `cooldownMs` have passed by the clock, then
 * one trial is let through (half-open): a success closes it, a failure opens it again for a new
 * cooldown. reset() closes it at once (memory_heal reset_breakers).
 */
export class Breaker {
  private stateValue: BreakerState = 'closed';
  private failuresValue = 0;
  private openedAt: number | null = null;
  private lastError: string | null = null;

  constructor(
    readonly name: BreakerName,
    private readonly clock: Clock,
    readonly threshold = BREAKER_THRESHOLD,
    readonly cooldownMs = BREAKER_COOLDOWN_MS,
  ) {}

  get state(): BreakerState {
    return this.stateValue;
  }

  get failures(): number {
    return this.failuresValue;
  }

  /** Whether the component may run its work now; an open breaker past its cooldown turns half-open and allows one trial. */
  allow(): boolean {
    if (this.stateValue !== 'open') return true;
    if (this.openedAt !== null && this.clock.now() - this.openedAt >= this.cooldownMs) {
      this.stateValue = 'half-open';
      return true;
    }
    return false;
  }

  /** Milliseconds left of the cooldown of an open breaker (0 when it allows work). */
  remainingMs(): number {
    if (this.stateValue !== 'open' || this.openedAt === null) return 0;
    return Math.max(0, this.cooldownMs - (this.clock.now() - this.openedAt));
  }

  success(): void {
    this.stateValue = 'closed';
    this.failuresValue = 0;
    this.openedAt = null;
    this.lastError = null;
  }

  failure(err: unknown): void {
    this.failuresValue++;
    this.lastError = err instanceof Error ? err.message : String(err);
    if (this.stateValue === 'half-open' || this.failuresValue >= this.threshold) {
      this.stateValue = 'open';
      this.openedAt = this.clock.now();
    }
  }

  reset(): void {
    this.success();
  }

  /**
   * Run fn when the breaker allows it, counting its outcome: answers `{ ran: false }` while open,
   * and throws on what fn throws (after counting the failure).
   */
  run<T>(fn: () => T): { ran: true; value: T } | { ran: false } {
    if (!this.allow()) return { ran: false };
    let value: T;
    try {
      value = fn();
    } catch (err) {
      this.failure(err);
      throw err;
    }
    this.success();
    return { ran: true, value };
  }

  snapshot(): BreakerSnapshot {
    return {
      name: this.name,
      state: this.stateValue,
      failures: this.failuresValue,
      opened_at: this.openedAt === null ? null : new Date(this.openedAt).toISOString(),
      last_error: this.lastError,
    };
  }
}

/** The named breakers of one Stores (one per background component, see BREAKER_NAMES). */
export class BreakerRegistry {
  private readonly breakers: Map<BreakerName, Breaker>;

  constructor(clock: Clock, opts: { threshold?: number; cooldownMs?: number } = {}) {
    this.breakers = new Map(BREAKER_NAMES.map((n) => [n, new Breaker(n, clock, opts.threshold, opts.cooldownMs)]));
  }

  get(name: BreakerName): Breaker {
    return this.breakers.get(name)!;
  }

  list(): BreakerSnapshot[] {
    return [...this.breakers.values()].map((b) => b.snapshot());
  }

  /** Close every breaker; answers the names of those that were not closed. */
  resetAll(): BreakerName[] {
    const reopened: BreakerName[] = [];
    for (const b of this.breakers.values()) {
      if (b.state !== 'closed' || b.failures > 0) reopened.push(b.name);
      b.reset();
    }
    return reopened;
  }
}
