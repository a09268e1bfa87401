import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { resolveExposure } from './exposure.js';
import { scratch } from './scratch.fixture.js';
import { Kernel } from './kernel.js';
import { silentLogger } from './logger.js';
import { definePlugin } from './plugin.js';
import { SPEC_TIERS } from './spec-tiers.fixture.js';
import { buildSurface, surfaceCallStats } from './surface.js';
import { defineTool } from './tools.js';

const scratchpad = scratch('ms-kernel-');
afterEach(scratchpad.cleanup);

/** Fake plugins holding the spec's tool names: a tool shared by two tiers is registered once. */
async function specKernel(): Promise<Kernel> {
  const kernel = scratchpad.kernel(new Kernel({ dataDir: scratchpad.dir(), logger: silentLogger() }));
  const seen = new Set<string>();
  for (const [tier, names] of Object.entries(SPEC_TIERS)) {
    await kernel.register(
      definePlugin({
        name: `fake-${tier}`,
        version: '1.0.0',
        tier,
        kernel: '^1.0.0',
        setup(ctx) {
          for (const name of names) {
            if (seen.has(name)) continue;
            seen.add(name);
            const tiers = Object.entries(SPEC_TIERS)
              .filter(([, list]) => list.includes(name))
              .map(([t]) => t);
            ctx.tools.register(
              defineTool({
                name,
                title: name,
                description: `fake ${name}`,
                tiers,
                input: z.object({ x: z.number().optional() }),
                annotations: { readOnlyHint: true },
                handler: (args) => ({ name, args }),
              }),
            );
          }
        },
      }),
    );
  }
  await kernel.ready();
  return kernel;
}

const count = (k: Kernel, expose: string | undefined, meta = false) =>
  buildSurface(k, resolveExposure(expose, k.tiers), meta).tools.length;

describe('MEMORY_EXPOSE against the spec tier table', () => {
  it('defaults to the 7 primitives', async () => {
    const k = await specKernel();
    expect(count(k, undefined)).toBe(7);
    expect(count(k, '')).toBe(7);
    expect(count(k, 'primitives')).toBe(7);
  });

  it('all, full and operator expose 66 distinct tools', async () => {
    const k = await specKernel();
    expect(count(k, 'all')).toBe(66);
    expect(count(k, 'full')).toBe(66);
    expect(count(k, 'operator')).toBe(66);
  });

  it('agent exposes 59, and 13 schemas with MEMORY_META', async () => {
    const k = await specKernel();
    expect(count(k, 'agent')).toBe(59);
    const surface = buildSurface(k, resolveExposure('agent', k.tiers), true);
    expect(surface.tools.length).toBe(13);
    expect(surface.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['think', 'memory_tier_context', 'memory_tier_insight', 'memory_tier_write', 'memory_tier_wiki', 'memory_tier_review', 'memory_catalog']),
    );
    expect(surface.get('memory_context')).toBeUndefined();
  });

  it('adds tiers one by one and the legacy brief token', async () => {
    const k = await specKernel();
    expect(count(k, 'wiki')).toBe(7 + 9);
    expect(count(k, 'review')).toBe(7 + 4);
    expect(count(k, 'insight,write')).toBe(7 + 17 + 17 - 2);
    expect(count(k, 'primitives,brief')).toBe(8);
  });

  it('ignores unknown tokens with one warning', () => {
    const warnings: string[] = [];
    const e = resolveExposure('wiki, bogus ,nope', ['primitives', 'wiki'], (m) => warnings.push(m));
    expect([...e.tiers].sort()).toEqual(['primitives', 'wiki']);
    expect(e.unknown).toEqual(['bogus', 'nope']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/bogus, nope/);
  });

  it('dispatchers validate the member args and return the member result', async () => {
    const k = await specKernel();
    const surface = buildSurface(k, resolveExposure('agent', k.tiers), true);
    const insight = surface.get('memory_tier_insight')!;
    await expect(insight.invoke({ action: 'memory_stats', args: { x: 2 } })).resolves.toEqual({ name: 'memory_stats', args: { x: 2 } });
    // The member's fields are inside args: its error names them so, and names the member.
    await expect(insight.invoke({ action: 'memory_stats', args: { x: 'no' } })).rejects.toMatchObject({
      field: 'args.x',
      type: 'ValidationError',
      message: expect.stringMatching(/^memory_stats: Invalid input: field "args\.x" /),
    });
    await expect(insight.invoke({ action: 'memory_backup', args: {} })).rejects.toMatchObject({ field: 'action' });
    const listed = (await insight.invoke({ action: 'list' })) as { tools: { name: string; input_schema: unknown }[] };
    expect(listed.tools).toHaveLength(17);
    expect(listed.tools[0]!.input_schema).toMatchObject({ type: 'object' });
    const cat = (await surface.get('memory_catalog')!.invoke({ query: 'graph' })) as { tools: { name: string; call_via: string }[] };
    expect(cat.tools.map((t) => t.name)).toContain('memory_graph_add');
    expect(cat.tools.find((t) => t.name === 'memory_graph_add')!.call_via).toBe('memory_tier_write');
  });

  it('the catalogue scores the words of a request that name something: function words and one-letter words are left out', async () => {
    const k = await specKernel();
    const catalogue = buildSurface(k, resolveExposure('all', k.tiers), true).get('memory_catalog')!;
    const names = async (query: string) => ((await catalogue.invoke({ query })) as { tools: { name: string }[] }).tools.map((t) => t.name);
    // "a" matched every tool name holding the letter, and ranked memory_fact_blame above forget.
    expect((await names('forget a fact'))[0]).toBe('forget');
    expect(await names('forget a fact')).toEqual(await names('forget fact'));
    expect(await names('the graph of my edges')).toEqual(await names('graph edges'));
    const one = (await catalogue.invoke({ tool: 'forget' })) as { tools: Record<string, unknown>[] };
    expect(one.tools[0]).toHaveProperty('output_schema', null);
  });

  it("dispatchers and the catalogue refuse bad input of their own with a coded error naming the field and what it accepts", async () => {
    const k = await specKernel();
    const surface = buildSurface(k, resolveExposure('agent', k.tiers), true);
    const review = surface.get('memory_tier_review')!;
    const members = k.tools().filter((t) => t.tiers.includes('review')).map((t) => t.name);
    await expect(review.invoke({ action: 'nope' })).rejects.toMatchObject({
      code: 'KERNEL_ERR_VALIDATION',
      field: 'action',
      accepted: ['list', ...members],
      message: expect.stringMatching(/^Invalid input: field "action" /),
    });
    await expect(review.invoke({ action: 'list', args: 'no' })).rejects.toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field: 'args', accepted: 'object' });
    await expect(surface.get('memory_catalog')!.invoke({ query: 5 })).rejects.toMatchObject({
      code: 'KERNEL_ERR_VALIDATION',
      field: 'query',
      accepted: 'string',
      message: expect.stringMatching(/^Invalid input: field "query" /),
    });
  });

  it("counts the calls the catalogue and the dispatchers answer themselves, once per kernel; a member call is the member's", async () => {
    const k = await specKernel();
    const counts = () => Object.fromEntries(surfaceCallStats(k).map((s) => [s.name, [s.calls.ok, s.calls.error]]));
    expect(counts()).toEqual({});
    const one = buildSurface(k, resolveExposure('agent', k.tiers), true);
    const two = buildSurface(k, resolveExposure('agent', k.tiers), true);
    await one.get('memory_catalog')!.invoke({ query: 'graph' });
    await two.get('memory_catalog')!.invoke({ tool: 'memory_graph_add' });
    await expect(two.get('memory_catalog')!.invoke({ query: 5 })).rejects.toMatchObject({ field: 'query' });
    await one.get('memory_tier_insight')!.invoke({ action: 'list' });
    await expect(one.get('memory_tier_insight')!.invoke({ action: 'nope' })).rejects.toMatchObject({ field: 'action' });
    await one.get('memory_tier_insight')!.invoke({ action: 'memory_stats', args: { x: 2 } });
    expect(counts()).toEqual({ memory_catalog: [2, 1], memory_tier_insight: [1, 1] });
    expect(k.tools().find((t) => t.name === 'memory_stats')!.calls.ok).toBe(1);
    expect(surfaceCallStats(await specKernel())).toEqual([]);
  });
});

describe('an unknown MEMORY_EXPOSE token', () => {
  it('naming a first-party tier whose plugin is not loaded says so, and which plugin to load', () => {
    const warnings: string[] = [];
    const exposure = resolveExposure('primitives,notes,wikki', ['notes'], (m) => warnings.push(m));
    expect(exposure.unknown).toEqual(['primitives', 'wikki']);
    expect(warnings).toEqual([
      'MEMORY_EXPOSE: ignoring unknown tokens primitives, wikki (known: notes, agent, operator, full, all, brief); primitives is a first-party tier whose plugin is not loaded (@memory-service/plugin-primitives)',
    ]);
  });
});
