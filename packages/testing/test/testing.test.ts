import fs from 'node:fs';
import { definePlugin, defineTool, z } from '@memory-service/kernel';
import { describe, expect, it } from 'vitest';
import { createTestServer, ManualClock, ToolCallError, toolError } from '../src/index.js';

const clockPlugin = definePlugin({
  name: 'clock-plugin',
  version: '1.0.0',
  tier: 'clocky',
  kernel: '^1.0.0',
  setup(ctx) {
    ctx.tools.register(
      defineTool({
        name: 'clock_now',
        title: 'Now',
        description: 'The kernel clock as an ISO string.',
        input: z.object({ offset_ms: z.number().int().default(0) }),
        output: z.object({ now: z.string() }),
        annotations: { readOnlyHint: true },
        handler: ({ offset_ms }) => ({ now: new Date(ctx.clock.now() + offset_ms).toISOString() }),
      }),
    );
  },
});

describe('createTestServer', () => {
  it('serves the chosen plugins over an in-process MCP client, on a temp data dir it removes', async () => {
    const clock = new ManualClock(Date.UTC(2030, 0, 1));
    const s = await createTestServer({ plugins: [clockPlugin], clock });
    expect(await s.listTools()).toEqual(['clock_now']);
    expect(await s.call('clock_now')).toEqual({ now: '2030-01-01T00:00:00.000Z' });
    clock.advance(60_000);
    expect(await s.call('clock_now', { offset_ms: 1000 })).toEqual({ now: '2030-01-01T00:01:01.000Z' });
    expect(fs.existsSync(s.dataDir)).toBe(true);
    await s.close();
    expect(fs.existsSync(s.dataDir)).toBe(false);
  });

  it('rejects with the tool error, and callRaw returns it', async () => {
    const s = await createTestServer({ plugins: [clockPlugin] });
    const err = await s.call('clock_now', { offset_ms: 'soon' }).catch((e) => e);
    expect(err).toBeInstanceOf(ToolCallError);
    expect(err.error).toMatchObject({ type: 'ValidationError', field: 'offset_ms' });
    const raw = await s.callRaw('clock_now', { offset_ms: 1.5 });
    expect(raw.isError).toBe(true);
    expect(JSON.parse(raw.text).error.field).toBe('offset_ms');
    await s.close();
  });

  it('toolError gives the error of a failing call, and fails when the call succeeds or fails otherwise', async () => {
    const s = await createTestServer({ plugins: [clockPlugin] });
    expect(await toolError(s.call('clock_now', { offset_ms: 'soon' }))).toMatchObject({ type: 'ValidationError', field: 'offset_ms' });
    await expect(toolError(s.call('clock_now'))).rejects.toThrow(/should have failed as a tool error, but it answered \{"now":/);
    await expect(toolError(Promise.reject(new Error('transport closed')))).rejects.toThrow('transport closed');
    await s.close();
  });

  it('honours expose and meta like the real server', async () => {
    const hidden = await createTestServer({ plugins: [clockPlugin], expose: 'primitives' });
    expect(await hidden.listTools()).toEqual([]);
    await hidden.close();
    const meta = await createTestServer({ plugins: [clockPlugin], expose: 'clocky', meta: true });
    expect(await meta.listTools()).toEqual(['memory_tier_clocky', 'memory_catalog']);
    expect(await meta.call('memory_tier_clocky', { action: 'clock_now', args: {} })).toHaveProperty('now');
    await meta.close();
  });
});
