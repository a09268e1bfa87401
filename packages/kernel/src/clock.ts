/** Every time-dependent piece of the service reads time from the container's clock. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = Object.freeze({ now: () => Date.now() });

/** A clock tests can move. */
export class ManualClock implements Clock {
  private t: number;
  constructor(start: number | Date = Date.UTC(2026, 0, 1)) {
    this.t = typeof start === 'number' ? start : start.getTime();
  }
  now(): number {
    return this.t;
  }
  set(t: number | Date): void {
    this.t = typeof t === 'number' ? t : t.getTime();
  }
  advance(ms: number): void {
    this.t += ms;
  }
}
