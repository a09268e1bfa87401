import { asFunction, asValue } from 'awilix/browser';
import { afterEach, describe, expect, it } from 'vitest';
import { Kernel } from './kernel.js';
import { silentLogger } from './logger.js';
import { definePlugin, type PluginContext } from './plugin.js';
import { scratch } from './scratch.fixture.js';

const scratchpad = scratch('ms-plugin-container-');
afterEach(scratchpad.cleanup);

const kernel = (setupTimeoutMs?: number) => scratchpad.kernel(new Kernel({ dataDir: scratchpad.dir(), logger: silentLogger(), setupTimeoutMs }));
const plugin = (name: string, setup: (ctx: PluginContext) => void | Promise<void>) => definePlugin({ name, version: '1.0.0', tier: 'tst', kernel: '^1.0.0', setup });
const boom = () => {
  throw new Error('boom');
};

describe("a failed setup's registrations in the container", () => {
  it('a service it registered before throwing is not resolvable afterwards, and a later plugin may register the name', async () => {
    const k = kernel();
    const err = await k
      .register(
        plugin('failing', (ctx) => {
          ctx.container.register({ notesService: asValue('from failing') });
          expect(ctx.container.resolve('notesService')).toBe('from failing');
          boom();
        }),
      )
      .catch((e) => e);
    expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_SETUP', plugin: 'failing' });
    expect(k.container.hasRegistration('notesService')).toBe(false);
    expect(() => k.container.resolve('notesService')).toThrow(/Could not resolve 'notesService'/);
    await k.register(plugin('later', (ctx) => void ctx.container.register('notesService', asValue('from later'))));
    expect(k.container.resolve('notesService')).toBe('from later');
  });

  it('a name it registered over an earlier registration resolves to the earlier one again (the kernel\'s own included)', async () => {
    const k = kernel();
    await k.register(plugin('earlier', (ctx) => void ctx.container.register('shared', asValue('earlier'))));
    const clock = k.container.resolve('clock');
    await k
      .register(
        plugin('overrider', (ctx) => {
          ctx.container.register({ shared: asValue('overridden'), clock: asValue('not a clock') });
          expect(ctx.container.resolve('shared')).toBe('overridden');
          boom();
        }),
      )
      .catch(() => {});
    expect(k.container.resolve('shared')).toBe('earlier');
    expect(k.container.resolve('clock')).toBe(clock);
  });

  it('a singleton it made and resolved is not kept in the cache: a later singleton of that name is made anew', async () => {
    const k = kernel();
    await k
      .register(
        plugin('failing', (ctx) => {
          ctx.container.register('counter', asFunction(() => ({ by: 'failing' })).singleton());
          expect(ctx.container.resolve('counter')).toEqual({ by: 'failing' });
          boom();
        }),
      )
      .catch(() => {});
    await k.register(plugin('later', (ctx) => void ctx.container.register('counter', asFunction(() => ({ by: 'later' })).singleton())));
    expect(k.container.resolve('counter')).toEqual({ by: 'later' });
  });

  it('a setup still running after its timeout cannot register anything more', async () => {
    const k = kernel(50);
    let late: unknown = 'not tried';
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const err = await k
      .register(
        plugin('slow', async (ctx) => {
          ctx.container.register('early', asValue(1));
          await released;
          try {
            ctx.container.register('late', asValue(2));
            late = 'registered';
          } catch (e) {
            late = e;
          }
        }),
      )
      .catch((e) => e);
    expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_SETUP', plugin: 'slow' });
    release();
    await new Promise((r) => setTimeout(r, 10));
    expect(late).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_SETUP', plugin: 'slow' });
    expect(k.container.hasRegistration('early')).toBe(false);
    expect(k.container.hasRegistration('late')).toBe(false);
  });
});
