import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ManualClock } from './clock.js';
import { MemoryError } from './errors.js';
import { Kernel } from './kernel.js';
import { silentLogger } from './logger.js';
import { definePlugin, type PluginDefinition } from './plugin.js';
import { buildSurface } from './surface.js';
import { resolveExposure } from './exposure.js';
import { scratch } from './scratch.fixture.js';
import { defineTool } from './tools.js';

// The plugin contract held for third-party plugins written in plain JavaScript, which no type checks.
const scratchpad = scratch('ms-contract-');
afterEach(scratchpad.cleanup);

function kernel(over: { closeWaitMs?: number; warnings?: string[] } = {}): Kernel {
  const logger = { ...silentLogger(), warn: (m: string) => over.warnings?.push(m) };
  return scratchpad.kernel(new Kernel({ dataDir: scratchpad.dir(), logger, clock: new ManualClock(), closeWaitMs: over.closeWaitMs }));
}
const plugin = (over: Partial<PluginDefinition> = {}) => ({ name: 'third', version: '1.0.0', tier: 'third', kernel: '^1.0.0', setup() {}, ...over }) as PluginDefinition;
const good = { name: 'third_ok', title: 'Ok', description: 'ok', input: z.object({}), annotations: { readOnlyHint: true }, handler: () => ({}) };

describe('a third-party plugin', () => {
  // Regression guard, fixed: a plain-object tool skipped defineTool's checks; a bad one was registered and then hung
  // every tools/list (its schema threw there) or failed at its first call naming no plugin.
  it('registering a tool that is not what defineTool makes is a KERNEL_ERR_TOOL_INVALID naming the plugin and the field', async () => {
    const bad: [string, unknown][] = [
      ['tool', null],
      ['name', { ...good, name: 'Bad Name!' }],
      ['description', { ...good, title: '', description: '' }],
      ['input', { ...good, input: { type: 'object' } }],
      ['output', { ...good, output: { ok: true } }],
      ['handler', { ...good, handler: undefined }],
      ['annotations', { ...good, annotations: undefined }],
      ['annotations.destructiveHint', { ...good, annotations: { readOnlyHint: false, destructiveHint: 'no' } }],
      ['tiers', { ...good, tiers: 'admin' }],
      ['tiers', { ...good, tiers: ['Not A Tier!'] }],
    ];
    for (const [field, tool] of bad) {
      const k = kernel();
      const err = await k.register(plugin({ setup: (ctx) => ctx.tools.register(tool as never) })).catch((e) => e);
      expect(err, field).toBeInstanceOf(MemoryError);
      // A setup failure names the plugin; the cause is the tool's coded refusal naming the field.
      expect(err.plugin, field).toBe('third');
      expect(JSON.stringify(err.toJSON()) + String(err.cause?.message) + err.message, field).toContain(field === 'tool' ? 'must be an object' : field.split('.')[0]);
      expect(k.getTool(String((tool as { name?: unknown } | null)?.name)), field).toBeUndefined();
    }
    expect(() => defineTool({ ...good, output: { ok: true } } as never)).toThrow(expect.objectContaining({ code: 'KERNEL_ERR_TOOL_INVALID', field: 'output' }));
  });

  it('a lazy schema that throws or is not zod leaves the list a coded error naming the tool and plugin, not a crash', async () => {
    const k = kernel();
    await k.register(
      plugin({
        setup: (ctx) => {
          ctx.tools.register(defineTool({ ...good, name: 'third_lazy', input: () => { throw new Error('schema boom'); } }));
          ctx.tools.register(defineTool({ ...good, name: 'third_out', output: () => ({ ok: true }) as never }));
        },
      }),
    );
    await k.ready();
    const surface = buildSurface(k, resolveExposure('third', k.tiers), false);
    expect(() => surface.get('third_lazy')!.inputSchema).toThrow(expect.objectContaining({ code: 'KERNEL_ERR_TOOL_INVALID', plugin: 'third', message: expect.stringContaining('schema boom') }));
    expect(() => surface.get('third_out')!.outputSchema).toThrow(expect.objectContaining({ code: 'KERNEL_ERR_TOOL_INVALID', plugin: 'third', field: 'output' }));
  });

  it('an event handler must be a function, and one answering what JSON cannot carry fails alone', async () => {
    const k = kernel();
    const err = await k.register(plugin({ name: 'nofn', setup: (ctx) => ctx.onEvent('memory_pressure', 'not a function' as never) })).catch((e) => e);
    expect(err).toMatchObject({ plugin: 'nofn' });
    expect(String(err.cause?.message ?? err.message)).toMatch(/handler of memory_pressure must be a function/);
    await k.register(plugin({ name: 'big', setup: (ctx) => ctx.onEvent('memory_pressure', () => ({ n: 10n })) }));
    await k.register(plugin({ name: 'fine', setup: (ctx) => ctx.onEvent('memory_pressure', () => 'ok') }));
    await k.ready();
    const res = await k.dispatchEvent('memory_pressure', {});
    expect(res.results.fine).toBe('ok');
    expect(res.results.big).toMatchObject({ error: { code: 'KERNEL_ERR_TOOL_FAILED', plugin: 'big', message: expect.stringMatching(/BigInt/) } });
  });

  // Regression guard, fixed: a close tap that never settled hung close() for ever, the taps after it never ran and the
  // database stayed open.
  it('a close tap that never settles is named and left behind; the taps after it run and the database closes', async () => {
    const warnings: string[] = [];
    const k = kernel({ closeWaitMs: 100, warnings });
    let after = false;
    await k.register(plugin({ name: 'hangs', setup: (ctx) => ctx.hooks.close.tapPromise('hangs', () => new Promise(() => undefined)) }));
    await k.register(plugin({ name: 'later', tier: 'later', setup: (ctx) => ctx.hooks.close.tapPromise('later', async () => void (after = true)) }));
    await k.ready();
    const started = Date.now();
    await k.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(after).toBe(true);
    expect(k.storage.db.open).toBe(false);
    expect(warnings).toContain("closing without hangs's close tap: it did not settle within 100 ms");
  });

  // Regression guard, fixed: the plugin's view of a hook handed out the live list of taps and let interceptors rename them.
  it('cannot remove, replace or rename other plugins\' taps through its view of the hooks', async () => {
    const k = kernel();
    let seen: string[] = [];
    await k.register(plugin({ name: 'first', tier: 'first', setup: (ctx) => ctx.onEvent('memory_pressure', () => 'first') }));
    const err = await k
      .register(
        plugin({
          name: 'meddler',
          setup: (ctx) => {
            const hook = ctx.hooks.memory_pressure as unknown as { taps: { name: string }[]; intercept(i: object): void };
            seen = hook.taps.map((t) => t.name);
            expect(() => hook.taps.splice(0)).toThrow();
            expect(() => ((hook as { taps: unknown }).taps = [])).toThrow(expect.objectContaining({ code: 'KERNEL_ERR_PLUGIN_INVALID', plugin: 'meddler' }));
            hook.intercept({ register: (t: object) => ({ ...t, name: 'renamed' }) });
          },
        }),
      )
      .catch((e) => e);
    expect(seen).toEqual(['first']);
    expect(String(err.cause?.message ?? err.message)).toMatch(/may not rewrite taps/);
    await k.ready();
    expect((await k.dispatchEvent('memory_pressure', {})).results).toEqual({ first: 'first' });
  });

  it('definePlugin refuses a version that is not semver and migrations that are not { id, name, up }, naming the field', () => {
    const def = (over: Partial<PluginDefinition>) => () => definePlugin(plugin(over));
    expect(def({ version: '1.0.0garbage' })).toThrow(expect.objectContaining({ code: 'KERNEL_ERR_PLUGIN_INVALID', field: 'version' }));
    expect(def({ version: '1.2.3-beta.1+build.5' })).not.toThrow();
    expect(def({ migrations: { id: 1 } as never })).toThrow(expect.objectContaining({ field: 'migrations' }));
    expect(def({ migrations: [{ id: 0, name: 'x', up() {} }] })).toThrow(expect.objectContaining({ field: 'migrations[0].id' }));
    expect(def({ migrations: [{ id: 1, name: 'a', up() {} }, { id: 1, name: 'b', up() {} }] })).toThrow(expect.objectContaining({ field: 'migrations[1].id' }));
    expect(def({ migrations: [{ id: 1, name: 'a', up: 5 as never }] })).toThrow(expect.objectContaining({ field: 'migrations[0].up' }));
  });

  it('an error code outside the catalogue is a tool failure naming that code, not a crash of the error handling', () => {
    const err = new MemoryError('EVT_ERR_MINE' as never, 'my own failure');
    expect(err.toJSON()).toMatchObject({ type: 'ToolError', code: 'KERNEL_ERR_TOOL_FAILED', message: 'my own failure (error code "EVT_ERR_MINE" is not in the kernel\'s catalogue)' });
  });
});
