import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Kernel } from './kernel.js';
import { silentLogger } from './logger.js';
import { definePlugin } from './plugin.js';
import { scratch } from './scratch.fixture.js';
import { defineTool } from './tools.js';
import { buildSurface } from './surface.js';
import { resolveExposure } from './exposure.js';

const scratchpad = scratch('ms-reserved-');
afterEach(scratchpad.cleanup);

const kernel = () => scratchpad.kernel(new Kernel({ dataDir: scratchpad.dir(), logger: silentLogger() }));
const tool = (name: string, tiers?: string[]) =>
  defineTool({ name, title: name, description: name, tiers, input: z.object({}), annotations: { readOnlyHint: true }, handler: () => ({ ok: true }) });
const plugin = (name: string, tier: string, tools: ReturnType<typeof tool>[] = []) =>
  definePlugin({ name, version: '1.0.0', tier, kernel: '^1.0.0', setup: (ctx) => tools.forEach((t) => ctx.tools.register(t)) });

describe('names the exposure grammar and MEMORY_META reserve', () => {
  it.each(['memory_catalog', 'memory_tier_notes'])('a plugin tool named %s is refused at setup, naming the plugin', async (name) => {
    const k = kernel();
    const err = await k.register(plugin('shadowing-plugin', 'notes', [tool(name)])).catch((e) => e);
    expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_SETUP', plugin: 'shadowing-plugin' });
    expect(err.message).toContain(`Tool name ${name} is reserved for MEMORY_META`);
  });

  it.each(['agent', 'operator', 'all', 'full', 'brief'])('a plugin tier named %s (a MEMORY_EXPOSE preset token) is refused before setup', async (tier) => {
    const k = kernel();
    const err = await k.register(plugin('preset-tier-plugin', tier, [tool('preset_tool')])).catch((e) => e);
    expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_INVALID', plugin: 'preset-tier-plugin', field: 'tier' });
    expect(err.message).toContain('MEMORY_EXPOSE preset token');
    expect(k.tiers).not.toContain(tier);
    expect(k.pluginNames).toEqual([]);
  });

  it('a tool declaring a preset token among its tiers is refused', async () => {
    const k = kernel();
    await expect(k.register(plugin('tool-tier-plugin', 'notes', [tool('notes_x', ['notes', 'agent'])]))).rejects.toMatchObject({
      code: 'KERNEL_ERR_PLUGIN_SETUP',
      message: expect.stringContaining('tier "agent" is a MEMORY_EXPOSE preset token'),
    });
  });

  it("a tier whose dispatcher name is another tier's is refused, so MEMORY_META never lists one name twice", async () => {
    const k = kernel();
    await k.register(plugin('first-plugin', 'my-notes', [tool('first_tool')]));
    const err = await k.register(plugin('second-plugin', 'my_notes', [tool('second_tool')])).catch((e) => e);
    expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_INVALID', plugin: 'second-plugin' });
    expect(err.message).toContain('memory_tier_my_notes');
    await k.ready();
    const names = buildSurface(k, resolveExposure('all', k.tiers), true).tools.map((t) => t.name);
    expect(names.filter((n) => n === 'memory_tier_my_notes')).toHaveLength(1);
  });
});
