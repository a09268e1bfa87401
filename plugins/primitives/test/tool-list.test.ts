import { afterAll, beforeAll, expect, it } from 'vitest';
import { defineTool, definePlugin, z } from '@memory-service/kernel';
import { createTestServer, ManualClock, type TestServer } from '@memory-service/testing';
import primitives from '../src/index.js';

/** The tool list a client sees under the default exposure (MEMORY_EXPOSE unset). */
const PRIMITIVES = ['think', 'dream', 'forget', 'evolve', 'project', 'memory_hook', 'wake_up'];
const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];

/** A tool of another tier, which the default surface must hide. */
const other = definePlugin({
  name: 'test-other-tier',
  version: '0.0.1',
  tier: 'wiki',
  kernel: '^1.0.0',
  setup(ctx) {
    ctx.tools.register(
      defineTool({
        name: 'wiki_extra',
        title: 'Extra',
        description: 'A tool outside the primitives tier.',
        input: z.object({}),
        annotations: { readOnlyHint: true },
        handler: () => ({}),
      }),
    );
  },
});

let s: TestServer;
let tools: Awaited<ReturnType<TestServer['client']['listTools']>>['tools'];
beforeAll(async () => {
  // An empty MEMORY_EXPOSE is the default surface.
  s = await createTestServer({ plugins: [primitives, other], expose: '', clock: new ManualClock() });
  tools = (await s.client.listTools()).tools;
});
afterAll(async () => {
  await s.close();
});

it('lists exactly the 7 primitives', () => {
  expect(tools.map((t) => t.name).sort()).toEqual([...PRIMITIVES].sort());
});

it('gives every tool a title, a description, input and output schemas', () => {
  for (const t of tools) {
    expect(t.title, t.name).toBeTruthy();
    expect(t.description!.length, t.name).toBeGreaterThan(40);
    expect(t.inputSchema.type, t.name).toBe('object');
    expect(Object.keys(t.inputSchema.properties ?? {}).length, t.name).toBeGreaterThan(0);
    expect(t.outputSchema?.type, t.name).toBe('object');
  }
});

it('sets all four annotation hints on every tool', () => {
  for (const t of tools) {
    for (const hint of HINTS) expect(typeof (t.annotations as Record<string, unknown>)?.[hint], `${t.name}.${hint}`).toBe('boolean');
  }
});

it('marks dream and wake_up read-only and forget destructive', () => {
  const byName = Object.fromEntries(tools.map((t) => [t.name, t.annotations!]));
  expect(byName.dream!.readOnlyHint).toBe(true);
  expect(byName.wake_up!.readOnlyHint).toBe(true);
  expect(byName.think!.readOnlyHint).toBe(false);
  expect(byName.forget!.destructiveHint).toBe(true);
  expect(byName.forget!.readOnlyHint).toBe(false);
});

it('requires text for think, query for dream, key for forget, instruction for evolve, event for memory_hook', () => {
  const required = Object.fromEntries(tools.map((t) => [t.name, t.inputSchema.required ?? []]));
  expect(required.think).toContain('text');
  expect(required.dream).toContain('query');
  expect(required.forget).toContain('key');
  expect(required.evolve).toContain('instruction');
  expect(required.memory_hook).toContain('event');
  expect(required.project).toEqual(expect.arrayContaining(['action', 'name']));
});

it('offers layer user/agent/auto on think and user/agent elsewhere', () => {
  const layerOf = (name: string) => (tools.find((t) => t.name === name)!.inputSchema.properties as Record<string, { enum?: string[] }>).layer;
  expect(layerOf('think')!.enum).toEqual(['user', 'agent', 'auto']);
  for (const name of ['dream', 'forget', 'project', 'memory_hook', 'wake_up']) expect(layerOf(name)!.enum, name).toEqual(['user', 'agent']);
});
