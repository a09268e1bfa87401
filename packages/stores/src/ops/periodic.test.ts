import { afterEach, describe, expect, it, vi } from 'vitest';
import { PeriodicCheck } from './periodic.js';

describe('PeriodicCheck', () => {
  afterEach(() => vi.useRealTimers());

  it('checks once after the first delay, then every interval, until stopped', () => {
    vi.useFakeTimers();
    let n = 0;
    const p = new PeriodicCheck(() => n++);
    expect(p.active).toBe(false);
    p.start(1000, 300);
    expect(p.active).toBe(true);
    vi.advanceTimersByTime(999);
    expect(n).toBe(0);
    vi.advanceTimersByTime(1);
    expect(n).toBe(1);
    vi.advanceTimersByTime(900);
    expect(n).toBe(4);
    p.stop();
    expect(p.active).toBe(false);
    vi.advanceTimersByTime(10_000);
    expect(n).toBe(4);
  });

  it('a new start replaces the timers of the one before', () => {
    vi.useFakeTimers();
    let n = 0;
    const p = new PeriodicCheck(() => n++);
    p.start(100, 100);
    p.start(1000, 1000);
    vi.advanceTimersByTime(999);
    expect(n).toBe(0);
    vi.advanceTimersByTime(1001);
    expect(n).toBe(2);
    p.stop();
  });
});
