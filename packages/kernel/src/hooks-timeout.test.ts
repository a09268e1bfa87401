import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';
import { Kernel } from './kernel.js';
import type { Logger } from './logger.js';
import { definePlugin, type PluginContext } from './plugin.js';
import { scratch } from './scratch.fixture.js';
import type { InjectBlock, MessageInfo } from './hooks.js';

const scratchpad = scratch('ms-hook-timeout-');
afterEach(scratchpad.cleanup);

function kernel(tapTimeoutMs = 50) {
  const errors: string[] = [];
  const logger: Logger = { info: () => {}, warn: () => {}, error: (m) => void errors.push(m) };
  const k = scratchpad.kernel(new Kernel({ dataDir: scratchpad.dir(), logger, clock: new ManualClock(), hookTapTimeoutMs: tapTimeoutMs, closeWaitMs: 200 }));
  return { k, errors };
}
const plugin = (name: string, setup: (ctx: PluginContext) => void) => definePlugin({ name, version: '1.0.0', tier: name.replace(/-/g, '_'), kernel: '^1.0.0', setup });
const message: MessageInfo = { layer: 'user', user_id: 'default', text: 'hi', importance: 0.5, emotional_weight: 0, ids: [] };
const never = () => new Promise<never>(() => {});

describe('an async tap on a hook a tool call waits for, that never settles', () => {
  it('message_received: counts as failed after the limit, logged once naming the plugin and the hook; the other taps ran and the hook settles', async () => {
    const { k, errors } = kernel();
    let other = false;
    await k.register(plugin('hanging-tap', (ctx) => ctx.hooks.message_received.tapPromise('x', never)));
    await k.register(plugin('fine-tap', (ctx) => ctx.hooks.message_received.tapPromise('x', async () => void (other = true))));
    await k.ready();
    const started = Date.now();
    await k.hooks.message_received.promise(message);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(other).toBe(true);
    expect(errors).toEqual([
      'hanging-tap failed on hook message_received: its tap did not settle within 50 ms (hooks.tap_timeout_ms); the call went on without it, and what it answers later is dropped',
    ]);
  });

  it('a lifecycle handler: its plugin answers a KERNEL_ERR_HOOK_TIMEOUT error, the other handlers answer as usual', async () => {
    const { k } = kernel();
    await k.register(plugin('hanging-handler', (ctx) => ctx.onEvent('session_started', never)));
    await k.register(plugin('fine-handler', (ctx) => ctx.onEvent('session_started', () => ({ ok: true }))));
    await k.ready();
    const out = await k.dispatchEvent('session_started', {});
    expect(out.results['fine-handler']).toEqual({ ok: true });
    expect(out.results['hanging-handler']).toMatchObject({ error: { code: 'KERNEL_ERR_HOOK_TIMEOUT', type: 'HookError', plugin: 'hanging-handler' } });
  });

  it('a tap settling after its limit changes nothing: not the value the caller went on with, nor the log', async () => {
    const { k, errors } = kernel();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    await k.register(
      plugin('late-inject', (ctx) =>
        ctx.hooks.session_inject.tapPromise('x', async (blocks) => {
          await gate;
          blocks.push({ source: 'late', title: 'pushed late', text: 'x' });
          return [...blocks, { source: 'late', title: 'answered late', text: 'y' }];
        }),
      ),
    );
    await k.ready();
    const given: InjectBlock[] = [{ source: 'core', title: 'core', text: 'z' }];
    const out = await k.hooks.session_inject.promise(given, { layer: 'user', user_id: 'default', text: '', budget: 100 });
    expect(out).toEqual([{ source: 'core', title: 'core', text: 'z' }]);
    release();
    await new Promise((r) => setTimeout(r, 20));
    expect(out).toEqual([{ source: 'core', title: 'core', text: 'z' }]);
    expect(given).toEqual([{ source: 'core', title: 'core', text: 'z' }]);
    expect(errors).toHaveLength(1);
  });

  it('a tap within its limit works as before: a waterfall tap that changes the value in place and answers nothing hands it on', async () => {
    const { k, errors } = kernel(1000);
    await k.register(
      plugin('in-place', (ctx) =>
        // @ts-expect-error: the types ask a waterfall tap for the value; a JavaScript plugin's may answer nothing
        ctx.hooks.session_inject.tapPromise('x', async (blocks: InjectBlock[]) => {
          await new Promise((r) => setTimeout(r, 5));
          blocks.push({ source: 'in-place', title: 't', text: 'x' });
        }),
      ),
    );
    await k.ready();
    const out = await k.hooks.session_inject.promise([], { layer: 'user', user_id: 'default', text: '', budget: 100 });
    expect(out).toEqual([{ source: 'in-place', title: 't', text: 'x' }]);
    expect(errors).toEqual([]);
  });

  it('the limit is read from config.yaml hooks.tap_timeout_ms, and close() still waits (bounded) for the late work', async () => {
    const errors: string[] = [];
    const logger: Logger = { info: () => {}, warn: () => {}, error: (m) => void errors.push(m) };
    const k = scratchpad.kernel(new Kernel({ dataDir: scratchpad.dir(), logger, config: { hooks: { tap_timeout_ms: 100 } } }));
    let finished = false;
    await k.register(plugin('slow-tap', (ctx) => ctx.hooks.message_received.tapPromise('x', () => new Promise<void>((r) => setTimeout(() => r(void (finished = true)), 300)))));
    await k.ready();
    await k.hooks.message_received.promise(message);
    expect(finished).toBe(false);
    expect(errors[0]).toMatch(/slow-tap failed on hook message_received: its tap did not settle within 100 ms/);
    await k.close();
    expect(finished).toBe(true);
  });
});
