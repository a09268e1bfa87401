import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ManualClock } from './clock.js';
import { Kernel } from './kernel.js';
import { silentLogger, type Logger } from './logger.js';
import { definePlugin, type PluginContext, type PluginDefinition } from './plugin.js';
import { scratch } from './scratch.fixture.js';
import { defineTool } from './tools.js';

const scratchpad = scratch('ms-plugin-hooks-');
afterEach(scratchpad.cleanup);

function kernel(): { k: Kernel; errors: string[] } {
  const errors: string[] = [];
  const logger: Logger = { info: () => {}, warn: () => {}, error: (m) => void errors.push(m) };
  return { k: scratchpad.kernel(new Kernel({ dataDir: scratchpad.dir(), logger, clock: new ManualClock() })), errors };
}

const plugin = (name: string, setup: PluginDefinition['setup']) => definePlugin({ name, version: '1.0.0', tier: name.replace(/-/g, '_'), kernel: '^1.0.0', setup });
const SCOPE = { layer: 'user' as const, user_id: 'u' };
const message = { ...SCOPE, text: 'hi', importance: 0, emotional_weight: 0, ids: [] };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a plugin's failing tap fails alone and carries the plugin's name", () => {
  it('a session_inject tap that throws hands on the blocks it got, and the log names the plugin', async () => {
    const { k, errors } = kernel();
    await k.register(plugin('first', (ctx) => ctx.hooks.session_inject.tapPromise('x', async (blocks) => [...blocks, { source: 'first', title: 'A', text: 'a' }])));
    await k.register(plugin('broken-inject', (ctx) => ctx.hooks.session_inject.tapPromise('x', async () => {
      throw new Error('inject broke');
    })));
    await k.ready();
    const blocks = await k.hooks.session_inject.promise([], { ...SCOPE, text: '', budget: 100 });
    expect(blocks).toEqual([{ source: 'first', title: 'A', text: 'a' }]);
    expect(errors).toEqual(['broken-inject failed on hook session_inject: inject broke']);
  });

  it('a parallel hook waits for every other tap when one fails at once', async () => {
    const { k, errors } = kernel();
    const done: string[] = [];
    await k.register(plugin('fails-fast', (ctx) => ctx.hooks.message_received.tapPromise('x', async () => {
      throw new Error('no');
    })));
    await k.register(plugin('slow-writer', (ctx) => ctx.hooks.message_received.tapPromise('x', async (m) => {
      await sleep(30);
      done.push(m.text);
    })));
    await k.ready();
    await k.hooks.message_received.promise(message);
    expect(done).toEqual(['hi']);
    expect(errors).toEqual(['fails-fast failed on hook message_received: no']);
  });

  it('a sync waterfall tap that throws hands on the value it got', async () => {
    const { k } = kernel();
    await k.register(plugin('gate', (ctx) => ctx.hooks.importance_gate.tap('x', () => {
      throw new Error('gate broke');
    })));
    await k.ready();
    expect(k.hooks.importance_gate.call(0.4, { ...SCOPE, key: 'k', value: 'v' })).toBe(0.4);
  });

  it('a direct tap on a lifecycle event that throws answers its error under its name; the others still answer', async () => {
    const { k } = kernel();
    await k.register(plugin('raw-tapper', (ctx) => ctx.hooks.memory_pressure.tapPromise('x', async () => {
      throw new Error('raw broke');
    })));
    await k.register(plugin('answerer', (ctx) => ctx.onEvent('memory_pressure', () => 'fine')));
    await k.ready();
    const out = await k.dispatchEvent('memory_pressure', {});
    expect(out.results).toEqual({
      'raw-tapper': { error: expect.objectContaining({ code: 'KERNEL_ERR_TOOL_FAILED', message: 'raw broke', plugin: 'raw-tapper' }) },
      answerer: 'fine',
    });
  });

  it('a nightly tap that throws answers its error under its plugin name; the next tap still runs and adds its own outcome', async () => {
    const { k, errors } = kernel();
    await k.register(plugin('night-broken', (ctx) => ctx.hooks.nightly.tapPromise('x', async () => {
      throw new Error('night broke');
    })));
    await k.register(plugin('night-counter', (ctx) => ctx.hooks.nightly.tapPromise('ignored-name', async (results, run) => ({ ...results, 'night-counter': { counts: { seen: run.user_id.length } } }))));
    await k.ready();
    expect(k.hooks.nightly.taps.map((t) => t.name)).toEqual(['night-broken', 'night-counter']);
    const out = await k.hooks.nightly.promise({}, { ...SCOPE, run_id: 'night_1', started: '2026-01-01T00:00:00.000Z', since: '2025-12-31T00:00:00.000Z' });
    expect(out).toEqual({
      'night-broken': { error: expect.objectContaining({ message: 'night broke', plugin: 'night-broken' }) },
      'night-counter': { counts: { seen: 1 } },
    });
    expect(errors).toEqual(['night-broken failed on hook nightly: night broke']);
  });

  it('nightly_scopes: each tap adds its scopes under its plugin name; one that throws, or answers a promise, answers its error there and the next taps still run', async () => {
    const { k, errors } = kernel();
    const run = { run_id: 'night_1', started: '2026-01-02T00:00:00.000Z', since: '2026-01-01T00:00:00.000Z' };
    const seen: unknown[] = [];
    await k.register(plugin('scopes-broken', (ctx) => ctx.hooks.nightly_scopes.tap('x', () => {
      throw new Error('cannot list');
    })));
    await k.register(plugin('scopes-async', (ctx) => ctx.hooks.nightly_scopes.tap('x', (async (found: object) => found) as never)));
    await k.register(plugin('scopes-lister', (ctx) => ctx.hooks.nightly_scopes.tap('ignored-name', (found, r) => {
      seen.push(r);
      return { ...found, [ctx.name]: [SCOPE] };
    })));
    // A synchronous hook: tapPromise (not in its type) is refused at setup.
    const tapPromise = (ctx: PluginContext) => (ctx.hooks.nightly_scopes as unknown as { tapPromise(name: string, fn: () => Promise<object>): void }).tapPromise('x', async () => ({}));
    await expect(k.register(plugin('scopes-promise', tapPromise))).rejects.toMatchObject({
      code: 'KERNEL_ERR_PLUGIN_SETUP',
      plugin: 'scopes-promise',
    });
    await k.ready();
    expect(k.hooks.nightly_scopes.taps.map((t) => t.name)).toEqual(['scopes-broken', 'scopes-async', 'scopes-lister']);
    expect(k.hooks.nightly_scopes.call({}, run)).toEqual({
      'scopes-broken': { error: expect.objectContaining({ message: 'cannot list', plugin: 'scopes-broken' }) },
      'scopes-async': { error: expect.objectContaining({ code: 'KERNEL_ERR_PLUGIN_INVALID', plugin: 'scopes-async' }) },
      'scopes-lister': [SCOPE],
    });
    expect(seen).toEqual([run]);
    expect(errors).toEqual([
      'scopes-broken failed on hook nightly_scopes: cannot list',
      'scopes-async failed on hook nightly_scopes: a tap on the synchronous hook nightly_scopes answered a promise; it must answer at once',
    ]);
  });

  it('a ready tap that throws fails ready with an error naming the plugin', async () => {
    const { k } = kernel();
    await k.register(plugin('bad-ready', (ctx) => ctx.hooks.ready.tapPromise('x', async () => {
      throw new Error('cannot warm');
    })));
    await expect(k.ready()).rejects.toMatchObject({ code: 'KERNEL_ERR_PLUGIN_SETUP', plugin: 'bad-ready', message: 'Plugin bad-ready failed on ready: cannot warm' });
  });

  it('a ready tap that never settles fails ready within the setup limit, naming the plugin and the hook; the taps run in order', async () => {
    const k = scratchpad.kernel(new Kernel({ dataDir: scratchpad.dir(), logger: silentLogger(), setupTimeoutMs: 50 }));
    const ran: string[] = [];
    await k.register(plugin('first-ready', (ctx) => ctx.hooks.ready.tapPromise('x', async () => void ran.push('first'))));
    await k.register(plugin('hanging-ready', (ctx) => ctx.hooks.ready.tapPromise('x', () => new Promise<void>(() => void ran.push('hanging')))));
    await k.register(plugin('after-ready', (ctx) => ctx.hooks.ready.tap('x', () => void ran.push('after'))));
    const started = Date.now();
    const err = await k.ready().catch((e) => e);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_SETUP', plugin: 'hanging-ready' });
    expect(err.message).toBe('Plugin hanging-ready failed on ready: its ready tap did not finish within 0.05 s (a ready tap must not wait on work that never ends)');
    expect(ran).toEqual(['first', 'hanging']);
    expect(k.state).toBe('registering');
  });

  it("a close tap that throws does not keep the other plugins' close taps from running", async () => {
    const { k, errors } = kernel();
    let closed = false;
    await k.register(plugin('bad-close', (ctx) => ctx.hooks.close.tapPromise('x', async () => {
      throw new Error('close broke');
    })));
    await k.register(plugin('good-close', (ctx) => ctx.hooks.close.tapPromise('x', async () => void (closed = true))));
    await k.ready();
    await k.close();
    expect(closed).toBe(true);
    expect(k.state).toBe('closed');
    expect(errors).toEqual(['bad-close failed on hook close: close broke']);
  });
});

describe('nothing registers once ready starts', () => {
  it('taps, lifecycle handlers and tools from a ready tap or a tool call after ready are refused', async () => {
    const { k } = kernel();
    let ctxKept: PluginContext | undefined;
    const outcomes: Record<string, unknown> = {};
    const attempt = (label: string, fn: () => void) => {
      try {
        fn();
        outcomes[label] = 'registered';
      } catch (err) {
        outcomes[label] = (err as { code?: string }).code;
      }
    };
    const lateTool = (name: string) =>
      defineTool({ name, title: 'late', description: 'late', input: z.object({}), annotations: { readOnlyHint: true }, handler: () => ({}) });
    await k.register(
      plugin('late', (ctx) => {
        ctxKept = ctx;
        ctx.hooks.ready.tapPromise('x', async () => {
          attempt('tool in ready', () => ctx.tools.register(lateTool('late_ready')));
          attempt('tap in ready', () => ctx.hooks.message_received.tapPromise('x', async () => {}));
        });
      }),
    );
    await k.ready();
    attempt('tap after ready', () => ctxKept!.hooks.message_received.tapPromise('x', async () => {}));
    attempt('onEvent after ready', () => ctxKept!.onEvent('memory_pressure', () => 'late'));
    attempt('tool after ready', () => ctxKept!.tools.register(lateTool('late_after')));
    expect(outcomes).toEqual({
      'tool in ready': 'KERNEL_ERR_AFTER_READY',
      'tap in ready': 'KERNEL_ERR_AFTER_READY',
      'tap after ready': 'KERNEL_ERR_AFTER_READY',
      'onEvent after ready': 'KERNEL_ERR_AFTER_READY',
      'tool after ready': 'KERNEL_ERR_AFTER_READY',
    });
    expect(k.getTool('late_ready')).toBeUndefined();
    expect(k.hooks.message_received.taps).toEqual([]);
    expect((await k.dispatchEvent('memory_pressure', {})).results).toEqual({});
  });
});

describe('a plugin whose setup fails or never finishes', () => {
  it('a setup that never settles fails registration naming the plugin, and what it registered is gone', async () => {
    const errors: string[] = [];
    const logger: Logger = { info: () => {}, warn: () => {}, error: (m) => void errors.push(m) };
    const k = scratchpad.kernel(new Kernel({ dataDir: scratchpad.dir(), logger, setupTimeoutMs: 50 }));
    let ctxKept: PluginContext | undefined;
    const tool = defineTool({ name: 'hang_tool', title: 'h', description: 'h', input: z.object({}), annotations: { readOnlyHint: true }, handler: () => ({}) });
    const hanging = plugin('hanging-plugin', (ctx) => {
      ctxKept = ctx;
      ctx.tools.register(tool);
      ctx.hooks.message_received.tapPromise('x', async () => {});
      return new Promise<void>(() => {});
    });
    const started = Date.now();
    const err = await k.register(hanging).catch((e) => e);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_SETUP', plugin: 'hanging-plugin' });
    expect(err.message).toMatch(/Plugin hanging-plugin failed in setup: did not finish within 0\.05 s/);
    expect(k.getTool('hang_tool')).toBeUndefined();
    expect(k.hooks.message_received.taps).toEqual([]);
    expect(k.tiers).not.toContain('hanging_plugin');
    expect(k.pluginNames).toEqual([]);
    // The setup still running cannot add anything once it has failed.
    expect(() => ctxKept!.tools.register(defineTool({ ...tool, name: 'hang_tool_2' }))).toThrow(/failed in setup/);
    expect(() => ctxKept!.hooks.session_ended.tapPromise('x', async (r) => r)).toThrow(/outside its setup/);
  });

  it("a setup that throws after tapping leaves no tap behind", async () => {
    const { k } = kernel();
    const failing = plugin('tap-then-throw', (ctx) => {
      ctx.hooks.message_received.tapPromise('x', async () => {});
      ctx.onEvent('memory_pressure', () => 'stale');
      throw new Error('boom');
    });
    await expect(k.register(failing)).rejects.toMatchObject({ code: 'KERNEL_ERR_PLUGIN_SETUP', plugin: 'tap-then-throw' });
    expect(k.hooks.message_received.taps).toEqual([]);
    await k.ready();
    expect((await k.dispatchEvent('memory_pressure', {})).results).toEqual({});
  });
});

describe('a tap given with tap() whose function answers a promise', () => {
  it('on an async hook is waited for: its rejection fails alone (logged), close() waits for its work', async () => {
    const { k, errors } = kernel();
    const done: string[] = [];
    await k.register(plugin('async-in-tap', (ctx) => ctx.hooks.message_received.tap('x', async () => {
      await sleep(10);
      throw new Error('late failure');
    })));
    await k.register(plugin('slow-in-tap', (ctx) => ctx.hooks.session_consolidation.tap('x', async (s) => {
      await sleep(30);
      done.push(s.session_id);
    })));
    await k.ready();
    // Before, the rejection was unhandled (the process ended) and the parallel hook answered at once.
    await k.hooks.message_received.promise(message);
    expect(errors).toEqual(['async-in-tap failed on hook message_received: late failure']);
    const fired = k.track(k.hooks.session_consolidation.promise({ ...SCOPE, session_id: 's1', summary: 'x' }));
    await k.close();
    expect(done).toEqual(['s1']);
    await fired;
  });

  it('on a lifecycle event hands on the value it resolves to, not the promise', async () => {
    const { k } = kernel();
    // @ts-expect-error: the types take a synchronous function for tap; a JavaScript plugin may give an async one
    await k.register(plugin('async-tapper', (ctx) => ctx.hooks.session_started.tap('x', async (results) => ({ ...results, 'async-tapper': 1 }))));
    await k.register(plugin('after-it', (ctx) => ctx.onEvent('session_started', () => 2)));
    await k.ready();
    expect((await k.dispatchEvent('session_started', {})).results).toEqual({ 'async-tapper': 1, 'after-it': 2 });
  });

  it('on the synchronous importance_gate is refused as an answer: the gate gets the value it had, the rejection is logged', async () => {
    const { k, errors } = kernel();
    await k.register(plugin('async-gate', (ctx) => ctx.hooks.importance_gate.tap('x', (async () => {
      throw new Error('gate rejected');
    }) as unknown as (v: number) => number)));
    await k.ready();
    expect(k.hooks.importance_gate.call(0.4, { ...SCOPE, key: 'k', value: 'v' })).toBe(0.4);
    await sleep(0);
    expect(errors).toEqual([
      'async-gate failed on hook importance_gate: a tap on the synchronous hook importance_gate answered a promise; it must answer at once',
      'async-gate failed on hook importance_gate: gate rejected',
    ]);
  });
});

describe('an importance_gate tap answering something other than a number', () => {
  it('is ignored (the next tap gets the value it was given) and logged once per tap and kind of answer, naming the plugin and the answer', async () => {
    const warnings: string[] = [];
    const logger: Logger = { info: () => {}, warn: (m) => void warnings.push(m), error: () => {} };
    const k = scratchpad.kernel(new Kernel({ dataDir: scratchpad.dir(), logger, clock: new ManualClock() }));
    const answers: unknown[] = [];
    let next: unknown = Number.NaN;
    await k.register(plugin('odd-gate', (ctx) => ctx.hooks.importance_gate.tap(ctx.name, () => next as number)));
    await k.register(plugin('later-gate', (ctx) => ctx.hooks.importance_gate.tap(ctx.name, (importance) => (answers.push(importance), importance + 0.1))));
    await k.ready();
    const fact = { ...SCOPE, key: 'k', value: 'v' };
    expect(k.hooks.importance_gate.call(0.5, fact)).toBe(0.6);
    expect(k.hooks.importance_gate.call(0.5, fact)).toBe(0.6);
    next = 'high';
    expect(k.hooks.importance_gate.call(0.4, fact)).toBeCloseTo(0.5);
    next = Number.POSITIVE_INFINITY;
    k.hooks.importance_gate.call(0.4, fact);
    next = 0.9;
    expect(k.hooks.importance_gate.call(0.4, fact)).toBe(1);
    next = undefined;
    expect(k.hooks.importance_gate.call(0.3, fact)).toBe(0.4);
    expect(answers).toEqual([0.5, 0.5, 0.4, 0.4, 0.9, 0.3]);
    expect(warnings).toEqual([
      "odd-gate's tap on importance_gate answered NaN (not finite), not a finite number (the importance, clamped to 0.05..1.0 when stored): ignored, the next tap and the caller get 0.5 (said once per kind of answer)",
      'odd-gate\'s tap on importance_gate answered "high" (a string), not a finite number (the importance, clamped to 0.05..1.0 when stored): ignored, the next tap and the caller get 0.4 (said once per kind of answer)',
    ]);
  });
});

describe('tapping a synchronous hook with tapPromise or tapAsync', () => {
  it.each(['thought_stored', 'importance_gate', 'nightly_scopes'])('is refused naming the hook and the fix (tap): %s', async (hook) => {
    const { k } = kernel();
    const err = await k.register(plugin('wrong-tap', (ctx) => (ctx.hooks as any)[hook].tapPromise(ctx.name, async () => undefined))).catch((e) => e);
    expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_SETUP', plugin: 'wrong-tap' });
    expect(err.message).toBe(
      `Plugin wrong-tap failed in setup: Plugin wrong-tap: hook ${hook} is synchronous and takes tap only, not tapPromise: use ctx.hooks.${hook}.tap(ctx.name, fn) with a function that answers at once (not async); the synchronous hooks are importance_gate, thought_stored, nightly_scopes`,
    );
  });
});
