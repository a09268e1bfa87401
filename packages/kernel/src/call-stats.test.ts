import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { CALL_DURATION_BUCKETS, ToolCallStats } from './call-stats.js';
import { ManualClock } from './clock.js';
import { Kernel } from './kernel.js';
import { silentLogger } from './logger.js';
import { definePlugin } from './plugin.js';
import { scratch } from './scratch.fixture.js';
import { defineTool } from './tools.js';

const scratchpad = scratch('ms-call-stats-');
afterEach(() => {
  vi.restoreAllMocks();
  return scratchpad.cleanup();
});

describe('ToolCallStats', () => {
  it('puts each duration in the first bucket whose bound it does not pass, and those past 5 s in the last', () => {
    const stats = new ToolCallStats();
    const now = vi.spyOn(performance, 'now');
    // Durations in ms: 0.2 and 0.5 (both at most 0.0005 s), 0.7 (at most 0.001 s), 3 (0.005 s), 7000 (+Inf).
    for (const ms of [0.2, 0.5, 0.7, 3, 7000]) {
      now.mockReturnValueOnce(1000 + ms);
      stats.done(true, 1000);
    }
    now.mockReturnValueOnce(1010);
    stats.done(false, 1000);
    expect(stats.perBucket.length).toBe(CALL_DURATION_BUCKETS.length + 1);
    const at = (le: number) => stats.perBucket[CALL_DURATION_BUCKETS.indexOf(le)];
    expect(at(0.0005)).toBe(2);
    expect(at(0.001)).toBe(1);
    expect(at(0.005)).toBe(1);
    expect(at(0.01)).toBe(1);
    expect(stats.perBucket[CALL_DURATION_BUCKETS.length]).toBe(1);
    expect([...stats.perBucket].reduce((a, b) => a + b, 0)).toBe(6);
    expect({ ok: stats.ok, error: stats.error, count: stats.count }).toEqual({ ok: 5, error: 1, count: 6 });
    expect(stats.totalMs).toBeCloseTo(0.2 + 0.5 + 0.7 + 3 + 7000 + 10, 6);
  });

  it('times a synchronous call from its start: answered when it returns, failed (and thrown on) when it throws', () => {
    const stats = new ToolCallStats();
    const now = vi.spyOn(performance, 'now');
    now.mockReturnValueOnce(10.2);
    expect(stats.time(() => 'answer', 10)).toBe('answer');
    now.mockReturnValueOnce(13);
    expect(() => stats.time(() => {
      throw new Error('refused');
    }, 10)).toThrow('refused');
    expect([stats.ok, stats.error]).toEqual([1, 1]);
    expect(stats.totalMs).toBeCloseTo(3.2);
    expect(stats.perBucket[0]).toBe(1);
    expect(stats.perBucket[3]).toBe(1);
  });

  it('has increasing bounds from half a millisecond to 5 s', () => {
    expect(CALL_DURATION_BUCKETS[0]).toBe(0.0005);
    expect(CALL_DURATION_BUCKETS.at(-1)).toBe(5);
    for (let i = 1; i < CALL_DURATION_BUCKETS.length; i++) expect(CALL_DURATION_BUCKETS[i]).toBeGreaterThan(CALL_DURATION_BUCKETS[i - 1]!);
    expect(Object.isFrozen(CALL_DURATION_BUCKETS)).toBe(true);
  });
});

describe('Kernel counts every tool call', () => {
  async function kernelWithTools(): Promise<Kernel> {
    const k = scratchpad.kernel(new Kernel({ dataDir: scratchpad.dir(), logger: silentLogger(), clock: new ManualClock() }));
    await k.register(
      definePlugin({
        name: 'p',
        version: '1.0.0',
        tier: 'tst',
        kernel: '^1.0.0',
        setup(ctx) {
          const input = z.object({ n: z.number().int(), fail: z.boolean().default(false) });
          ctx.tools.register(
            defineTool({ name: 'sync_read', title: 's', description: 's', input, annotations: { readOnlyHint: true }, handler: ({ n, fail }) => {
              if (fail) throw new Error('asked to fail');
              return { n };
            } }),
          );
          ctx.tools.register(
            defineTool({ name: 'sync_write', title: 's', description: 's', input, output: z.object({ n: z.number().max(10) }), annotations: { readOnlyHint: false }, handler: ({ n }) => ({ n }) }),
          );
          ctx.tools.register(
            defineTool({ name: 'async_read', title: 'a', description: 'a', input, output: z.object({ n: z.number().max(10) }), annotations: { readOnlyHint: true }, handler: async ({ n, fail }) => {
              // At least a millisecond by the clock the kernel reads: a 1 ms timer may fire sooner by it
              // (libuv measures timers from the loop's cached time).
              const until = performance.now() + 1;
              while (performance.now() < until) await new Promise((r) => setTimeout(r, 1));
              if (fail) throw new Error('asked to fail');
              return { n };
            } }),
          );
        },
      }),
    );
    await k.ready();
    return k;
  }
  const counts = (k: Kernel, name: string) => {
    const s = k.getTool(name)!.calls;
    return { ok: s.ok, error: s.error, buckets: [...s.perBucket].reduce((a, b) => a + b, 0) };
  };

  it('answers, bad arguments, a handler that throws and an answer its output schema refuses, on every path', async () => {
    const k = await kernelWithTools();
    k.callToolNow('sync_read', { n: 1 });
    expect(() => k.callToolNow('sync_read', { n: 'x' })).toThrow(/n/);
    expect(() => k.callToolNow('sync_read', { n: 1, fail: true })).toThrow(/asked to fail/);
    expect(counts(k, 'sync_read')).toEqual({ ok: 1, error: 2, buckets: 3 });

    k.callToolNow('sync_write', { n: 1 });
    expect(() => k.callToolNow('sync_write', { n: 11 })).toThrow(/output schema/);
    expect(counts(k, 'sync_write')).toEqual({ ok: 1, error: 1, buckets: 2 });

    await k.callTool('async_read', { n: 2 });
    await expect(k.callTool('async_read', { n: 2, fail: true })).rejects.toThrow(/asked to fail/);
    await expect(k.callTool('async_read', { n: 20 })).rejects.toThrow(/output schema/);
    expect(counts(k, 'async_read')).toEqual({ ok: 1, error: 2, buckets: 3 });
    // A call that waited a timer took at least a millisecond: not in the first bucket.
    expect(k.getTool('async_read')!.calls.perBucket[0]).toBe(0);
    expect(k.getTool('async_read')!.calls.totalMs).toBeGreaterThan(0);
  });

  it('a call of an unknown tool counts nowhere (its name is the caller\'s, not a registered tool)', async () => {
    const k = await kernelWithTools();
    expect(() => k.callToolNow('nope', {})).toThrow(/Unknown tool/);
    expect(k.tools().every((t) => t.calls.count === 0)).toBe(true);
  });

  it('each tool has its own stats', async () => {
    const k = await kernelWithTools();
    k.callToolNow('sync_read', { n: 1 });
    expect(k.getTool('sync_write')!.calls.count).toBe(0);
    expect(k.getTool('sync_read')!.calls.count).toBe(1);
  });
});
