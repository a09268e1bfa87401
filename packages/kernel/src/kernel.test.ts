import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ManualClock } from './clock.js';
import { MemoryError } from './errors.js';
import { Kernel, KERNEL_VERSION } from './kernel.js';
import { silentLogger } from './logger.js';
import { definePlugin } from './plugin.js';
import { defineTool } from './tools.js';
import type { Hooks } from './hooks.js';
import { SyncWaterfallHook } from './vendor.js';

import { kernelScratch, plugin } from './kernel.fixture.js';

const { scratchpad, tmp, kernel, cleanup } = kernelScratch('ms-kernel-');
afterEach(cleanup);

describe('plugin lifecycle', () => {
  it('checks the kernel range before setup and names the plugin', async () => {
    let ran = false;
    const k = kernel();
    const err = await k.register(plugin({ name: 'old-plugin', kernel: '^0.4.0', setup: () => void (ran = true) })).catch((e) => e);
    expect(err).toBeInstanceOf(MemoryError);
    expect(err.code).toBe('KERNEL_ERR_PLUGIN_KERNEL_RANGE');
    expect(err.message).toContain('old-plugin');
    expect(err.message).toContain(KERNEL_VERSION);
    expect(ran).toBe(false);
  });

  it('a failing setup stops registration with an error naming the plugin, and its tools are gone', async () => {
    const k = kernel();
    const bad = plugin({
      name: 'broken',
      setup(ctx) {
        ctx.tools.register(defineTool({ name: 'x_tool', title: 'x', description: 'x', input: z.object({}), annotations: { readOnlyHint: true }, handler: () => ({}) }));
        throw new Error('boom');
      },
    });
    await expect(k.register(bad)).rejects.toMatchObject({ code: 'KERNEL_ERR_PLUGIN_SETUP', plugin: 'broken', message: expect.stringContaining('boom') });
    expect(k.getTool('x_tool')).toBeUndefined();
  });

  it('refuses registration after ready and duplicate plugins or tools', async () => {
    const k = kernel();
    const tool = defineTool({ name: 'same', title: 's', description: 's', input: z.object({}), annotations: { readOnlyHint: true }, handler: () => ({}) });
    await k.register(plugin({ name: 'a', setup: (ctx) => ctx.tools.register(tool) }));
    await expect(k.register(plugin({ name: 'a' }))).rejects.toMatchObject({ code: 'KERNEL_ERR_PLUGIN_DUPLICATE' });
    await expect(k.register(plugin({ name: 'b', setup: (ctx) => ctx.tools.register(tool) }))).rejects.toMatchObject({ code: 'KERNEL_ERR_PLUGIN_SETUP' });
    await k.ready();
    await expect(k.register(plugin({ name: 'c' }))).rejects.toMatchObject({ code: 'KERNEL_ERR_AFTER_READY' });
  });

  it('rejects malformed plugin definitions', () => {
    expect(() => definePlugin({ name: 'Bad Name', version: '1.0.0', tier: 't', kernel: '^1', setup() {} })).toThrow(/name/);
    expect(() => definePlugin({ name: 'ok', version: 'x', tier: 't', kernel: '^1', setup() {} })).toThrow(/version/);
  });

  it('applies plugin migrations once and reports the head', async () => {
    const dir = tmp();
    const migrations = [
      { id: 1, name: 'create', up: (db: any) => db.exec('CREATE TABLE tst_items (id INTEGER PRIMARY KEY, v TEXT)') },
      { id: 2, name: 'index', up: (db: any) => db.exec('CREATE INDEX tst_items_v ON tst_items (v)') },
    ];
    const k1 = kernel(dir);
    await k1.register(plugin({ migrations }));
    expect(k1.storage.status()).toEqual([{ owner: 'p', applied: 2, head: 2, pending: [] }]);
    expect(k1.storage.remigrate()).toEqual({ p: [] });
    await k1.close();
    const k2 = kernel(dir);
    await k2.register(plugin({ migrations: [...migrations, { id: 3, name: 'more', up: (db: any) => db.exec('ALTER TABLE tst_items ADD COLUMN w TEXT') }] }));
    expect(k2.storage.status()[0]).toMatchObject({ applied: 3, head: 3 });
  });
});

describe('hooks', () => {
  it('tapping an unknown hook is a coded error; taps carry the plugin name', async () => {
    const k = kernel();
    await expect(
      k.register(plugin({ name: 'tapper', setup: (ctx) => (ctx.hooks as any).no_such_hook.tap('x', () => {}) })),
    ).rejects.toMatchObject({ code: 'KERNEL_ERR_PLUGIN_SETUP', message: expect.stringContaining('no_such_hook') });
    await k.register(plugin({ name: 'good', setup: (ctx) => ctx.hooks.message_received.tapPromise('whatever', async () => {}) }));
    expect(k.hooks.message_received.taps.map((t) => t.name)).toEqual(['good']);
    expect(Object.isFrozen(k.hooks)).toBe(true);
  });

  it('declares nightly_scopes with the others: a synchronous waterfall, frozen on kernel.hooks, its taps named after their plugin', async () => {
    const k = kernel();
    let view: Hooks | undefined;
    await k.register(plugin({ name: 'lister', setup: (ctx) => {
      view = ctx.hooks;
      ctx.hooks.nightly_scopes.tap('any-name', (found) => ({ ...found, lister: [] }));
    } }));
    expect(Object.keys(k.hooks)).toContain('nightly_scopes');
    expect(k.hooks.nightly_scopes.constructor).toBe(SyncWaterfallHook);
    expect(k.hooks.nightly_scopes.taps.map((t) => t.name)).toEqual(['lister']);
    expect(Object.isFrozen(k.hooks)).toBe(true);
    expect(() => {
      (k.hooks as { nightly_scopes: unknown }).nightly_scopes = null;
    }).toThrow(TypeError);
    expect(() => {
      (view as { nightly_scopes: unknown }).nightly_scopes = null;
    }).toThrow(expect.objectContaining({ code: 'KERNEL_ERR_HOOK_UNKNOWN' }));
    expect('nightly_scopes' in view!).toBe(true);
    expect(k.hooks.nightly_scopes.call({}, { run_id: 'night_1', started: '2026-01-02T00:00:00.000Z', since: '2026-01-01T00:00:00.000Z' })).toEqual({ lister: [] });
  });

  it("a plugin's view of a hook keeps answering for the hook as taps are added after it was read", async () => {
    const k = kernel();
    const seen: string[] = [];
    let view: Hooks | undefined;
    await k.register(plugin({ name: 'reader', setup: (ctx) => void (view = ctx.hooks) }));
    const hook = view!.message_received;
    const isUsed = hook.isUsed;
    expect(hook.isUsed()).toBe(false);
    expect(hook.isUsed).toBe(isUsed);
    await hook.promise({ layer: 'user', user_id: 'u', text: 'before', importance: 0, emotional_weight: 0, ids: [] });
    await k.register(plugin({ name: 'late', setup: (ctx) => ctx.hooks.message_received.tapPromise('x', async (m) => void seen.push(m.text)) }));
    expect(hook.isUsed()).toBe(true);
    // promise was compiled for no taps by the first call; the view hands out the recompiled one.
    await hook.promise({ layer: 'user', user_id: 'u', text: 'after', importance: 0, emotional_weight: 0, ids: [] });
    expect(seen).toEqual(['after']);
  });

  it('dispatches lifecycle events by name and keys results by plugin', async () => {
    const k = kernel();
    await k.register(plugin({ name: 'one', setup: (ctx) => ctx.onEvent('session_ended', (e) => ({ got: e.payload.summary, layer: e.layer })) }));
    await k.register(plugin({ name: 'two', setup: (ctx) => ctx.onEvent('session_ended', () => 2) }));
    await k.ready();
    const res = await k.dispatchEvent('session_ended', { summary: 's' }, 'agent', 'u1');
    expect(res).toEqual({ event: 'session_ended', layer: 'agent', user_id: 'u1', results: { one: { got: 's', layer: 'agent' }, two: 2 } });
    await expect(k.dispatchEvent('nope', {})).rejects.toMatchObject({ type: 'ValueError', code: 'KERNEL_ERR_UNKNOWN_EVENT', message: expect.stringMatching(/^Unknown event "nope"; known/) });
    // A long name (an 8 KB URL path) is cut in the message, not repeated whole.
    await expect(k.dispatchEvent('x'.repeat(8000), {})).rejects.toMatchObject({ code: 'KERNEL_ERR_UNKNOWN_EVENT', message: expect.stringMatching(/^Unknown event "x{56}\.\.\.; known/) });
    await expect(k.dispatchEvent('session_ended', [], 'user')).rejects.toMatchObject({ field: 'payload' });
    await expect(k.dispatchEvent('session_ended', {}, 'robot')).rejects.toMatchObject({ field: 'layer' });
  });

  it('a user_id of the wrong type is named as given with the wrong type, not as missing', async () => {
    const k = kernel();
    await k.ready();
    for (const userId of [5, null, ['u']]) {
      await expect(k.dispatchEvent('memory_pressure', {}, 'user', userId), JSON.stringify(userId)).rejects.toMatchObject({
        field: 'user_id',
        message: 'Invalid input: field "user_id" must be string',
        accepted: 'string',
      });
    }
  });

  it('a failing handler answers an error under its plugin name and the others still run', async () => {
    const k = kernel();
    await k.register(plugin({ name: 'bad', setup: (ctx) => ctx.onEvent('context_threshold', () => { throw new Error('nope'); }) }));
    await k.register(plugin({ name: 'good', setup: (ctx) => ctx.onEvent('context_threshold', () => 'fine') }));
    await k.ready();
    const res = await k.dispatchEvent('context_threshold', {});
    expect(res.results.good).toBe('fine');
    expect(res.results.bad).toMatchObject({ error: { message: 'nope', plugin: 'bad' } });
  });

  it('close waits for hook work still running', async () => {
    const k = kernel();
    let finished = false;
    await k.register(
      plugin({ setup: (ctx) => ctx.onEvent('memory_pressure', async () => { await new Promise((r) => setTimeout(r, 50)); finished = true; }) }),
    );
    await k.ready();
    void k.dispatchEvent('memory_pressure', {});
    await k.close();
    expect(finished).toBe(true);
    await expect(k.dispatchEvent('memory_pressure', {})).rejects.toMatchObject({ code: 'KERNEL_ERR_CLOSED' });
  });

  it('close waits at most closeWaitMs for work that never settles, then runs the close taps and closes the database', async () => {
    const warnings: string[] = [];
    const logger = { ...silentLogger(), warn: (m: string) => warnings.push(m) };
    const k = scratchpad.kernel(new Kernel({ dataDir: tmp(), logger, clock: new ManualClock(), closeWaitMs: 150 }));
    let closeTapRan = false;
    await k.register(
      plugin({
        setup: (ctx) => {
          ctx.onEvent('memory_pressure', () => new Promise(() => undefined));
          ctx.hooks.close.tapPromise('p', async () => {
            closeTapRan = true;
          });
        },
      }),
    );
    await k.ready();
    void k.dispatchEvent('memory_pressure', {});
    const started = Date.now();
    await k.close();
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(closeTapRan).toBe(true);
    expect(k.storage.db.open).toBe(false);
    expect(warnings).toEqual([
      'closing with 2 call(s) or event(s) still running after 150 ms (p\'s tap on memory_pressure; event memory_pressure): a tool call, hook tap or event handler that never settles',
    ]);
  });

  it("the close warning names a tool call that never settles with its plugin, and a plugin's tracked work", async () => {
    const warnings: string[] = [];
    const logger = { ...silentLogger(), warn: (m: string) => warnings.push(m) };
    const k = scratchpad.kernel(new Kernel({ dataDir: tmp(), logger, clock: new ManualClock(), closeWaitMs: 100 }));
    const hang = defineTool({ name: 'p_hang', title: 'Hang', description: 'Never answers.', input: z.object({}), annotations: { readOnlyHint: true }, handler: () => new Promise(() => undefined) });
    await k.register(
      plugin({
        setup: (ctx) => {
          ctx.tools.register(hang);
          void ctx.track(new Promise(() => undefined));
        },
      }),
    );
    await k.ready();
    void k.callTool('p_hang', {});
    void k.callTool('p_hang', {});
    await k.close();
    expect(warnings).toEqual([
      "closing with 3 call(s) or event(s) still running after 100 ms (p's tracked work; tool p_hang (plugin p) x2): a tool call, hook tap or event handler that never settles",
    ]);
  });

  it('onEvent with an unknown event is refused with the list of events', async () => {
    const k = kernel();
    const err = await k.register(plugin({ setup: (ctx) => ctx.onEvent('no_such_event' as never, () => null) })).catch((e) => e);
    expect(err.message).toBe(
      'Plugin p failed in setup: Unknown lifecycle event "no_such_event"; known events: session_started, session_ended, new_message, auto_save_candidate, post_context_compression, context_threshold, memory_pressure',
    );
  });

  it("a plugin's ctx.logger begins each line with the plugin's name", async () => {
    const lines: string[] = [];
    const logger = { info: (m: string) => lines.push(`info: ${m}`), warn: (m: string) => lines.push(`warn: ${m}`), error: (m: string) => lines.push(`error: ${m}`) };
    const k = scratchpad.kernel(new Kernel({ dataDir: tmp(), logger, clock: new ManualClock() }));
    await k.register(
      plugin({
        name: '@acme/notes-plugin',
        setup: (ctx) => {
          ctx.logger.info('folder is notes');
          ctx.logger.warn('limit is low');
          ctx.logger.error('cannot read the folder');
        },
      }),
    );
    expect(lines).toEqual(['info: @acme/notes-plugin: folder is notes', 'warn: @acme/notes-plugin: limit is low', 'error: @acme/notes-plugin: cannot read the folder']);
  });
});
