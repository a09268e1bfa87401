import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel } from './kernel.js';
import { silentLogger } from './logger.js';
import { definePlugin } from './plugin.js';
import { scratch } from './scratch.fixture.js';
import { defineTool, inputJsonSchema } from './tools.js';

const scratchpad = scratch('ms-lazy-');
afterEach(scratchpad.cleanup);

describe('a tool whose schemas are given as functions', () => {
  it('builds them on first use, once, and validates with them as with eager ones', async () => {
    let inputs = 0;
    let outputs = 0;
    const tool = defineTool({
      name: 'lazy_echo',
      title: 'Lazy echo',
      description: 'Echoes its text.',
      input: () => (inputs++, z.object({ text: z.string().min(1) })),
      output: () => (outputs++, z.object({ text: z.string() })),
      annotations: { readOnlyHint: true },
      handler: (a) => ({ text: a.text }),
    });
    const k = await createKernel({
      dataDir: scratchpad.dir(),
      logger: silentLogger(),
      plugins: [definePlugin({ name: 'lazy', version: '1.0.0', tier: 'lazy', kernel: '^1.0.0', setup: (ctx) => ctx.tools.register(tool) })],
    });
    scratchpad.kernel(k);
    // Registered and set up: nothing built yet.
    expect(k.tools().map((t) => t.name)).toContain('lazy_echo');
    expect([inputs, outputs]).toEqual([0, 0]);
    await expect(k.callTool('lazy_echo', { text: 'hi' })).resolves.toEqual({ text: 'hi' });
    await expect(k.callTool('lazy_echo', { text: '' })).rejects.toMatchObject({ field: 'text' });
    await expect(k.callTool('lazy_echo', { text: 'again' })).resolves.toEqual({ text: 'again' });
    expect([inputs, outputs]).toEqual([1, 1]);
    expect(inputJsonSchema(k.tools().find((t) => t.name === 'lazy_echo')!)).toMatchObject({ type: 'object', required: ['text'] });
  });

  it('refuses a function that does not give a zod object, naming the tool, when it is first used', () => {
    const tool = defineTool({ name: 'bad_lazy', title: 'Bad', description: 'Bad input.', input: () => z.string() as any, annotations: { readOnlyHint: true }, handler: () => ({}) });
    expect(() => tool.input).toThrow(/bad_lazy needs a zod object input schema/);
  });
});
