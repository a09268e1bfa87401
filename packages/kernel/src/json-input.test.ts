import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { notJsonField } from './json-input.js';
import { Kernel } from './kernel.js';
import { silentLogger } from './logger.js';
import { definePlugin } from './plugin.js';
import { scratch } from './scratch.fixture.js';
import { defineTool } from './tools.js';

const scratchpad = scratch('ms-json-input-');
afterEach(scratchpad.cleanup);

describe('notJsonField', () => {
  it.each([
    ['z.date()', z.object({ when: z.date() }), 'when', 'a date (z.date())'],
    ['z.bigint()', z.object({ n: z.bigint().optional() }), 'n', 'a bigint (z.bigint())'],
    ['z.map()', z.object({ m: z.map(z.string(), z.string()) }), 'm', 'a Map (z.map())'],
    ['z.set()', z.object({ s: z.set(z.string()).nullable() }), 's', 'a Set (z.set())'],
    ['z.function()', z.object({ f: z.function() }), 'f', 'a function (z.function())'],
    ['z.symbol()', z.object({ y: z.symbol() }), 'y', 'a symbol (z.symbol())'],
    ['z.undefined()', z.object({ u: z.undefined() }), 'u', 'undefined (z.undefined())'],
    ['nested in an object', z.object({ a: z.object({ b: z.date().default(() => new Date()) }) }), 'a.b', 'a date (z.date())'],
    ['in a list', z.object({ items: z.array(z.object({ at: z.date() })) }), 'items[].at', 'a date (z.date())'],
    ["in a record's values", z.object({ meta: z.record(z.string(), z.bigint()) }), 'meta.*', 'a bigint (z.bigint())'],
    ['in every member of a union', z.object({ x: z.union([z.date(), z.bigint()]) }), 'x', 'a date (z.date())'],
    ["in a pipe's input", z.object({ p: z.date().transform((d) => d.getTime()) }), 'p', 'a date (z.date())'],
  ])('finds %s', (_what, schema, path, kind) => {
    expect(notJsonField(schema)).toEqual({ path, kind });
  });

  it('passes what JSON carries: strings (dates as ISO strings), numbers, coerced dates, unions with a JSON member, transforms, recursive schemas', () => {
    type Node = { name: string; children: Node[] };
    const node: z.ZodType<Node> = z.lazy(() => z.object({ name: z.string(), children: z.array(node) }));
    const schema = z.object({
      text: z.string().min(1),
      at: z.iso.datetime().optional(),
      when: z.coerce.date(),
      n: z.number().int().default(1),
      either: z.union([z.date(), z.string()]),
      tags: z.array(z.string()).max(5),
      meta: z.record(z.string(), z.unknown()),
      any: z.any(),
      tree: node,
      trimmed: z.string().transform((s) => s.trim()),
      kind: z.enum(['a', 'b']).nullable(),
    });
    expect(notJsonField(schema)).toBeUndefined();
  });
});

describe('a tool whose input takes a field JSON cannot carry', () => {
  it('is refused at registration, naming the plugin, the tool, the field and the types JSON carries', async () => {
    const k = scratchpad.kernel(new Kernel({ dataDir: scratchpad.dir(), logger: silentLogger() }));
    const p = definePlugin({
      name: 'dated-plugin',
      version: '1.0.0',
      tier: 'dated',
      kernel: '^1.0.0',
      setup: (ctx) =>
        ctx.tools.register(
          defineTool({ name: 'dated_add', title: 'Add', description: 'Adds a dated entry.', input: z.object({ entry: z.object({ when: z.date() }) }), annotations: { readOnlyHint: true }, handler: () => ({}) }),
        ),
    });
    const err = await k.register(p).catch((e) => e);
    expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_SETUP', plugin: 'dated-plugin' });
    expect(err.message).toBe(
      'Plugin dated-plugin failed in setup: Tool dated_add: input field "entry.when" is a date (z.date()), which no JSON argument can carry (tools/list would publish it as {} and every call would be refused); ' +
        'declare it as a type JSON carries: string, number, boolean, null, array or object (z.string(), z.number(), z.boolean(), z.null(), z.array(), z.object(), z.record(), z.enum(), z.literal() and unions of them), e.g. z.iso.datetime() for a date or z.coerce.date() to make one from a string',
    );
    expect(k.tools()).toEqual([]);
  });

  it('given as a function, is refused when it is first built, naming the tool and the field', () => {
    const tool = defineTool({ name: 'lazy_dated', title: 'Lazy', description: 'Lazy dated.', input: () => z.object({ n: z.bigint() }), annotations: { readOnlyHint: true }, handler: () => ({}) });
    expect(() => tool.input).toThrow(/^Tool lazy_dated: input field "n" is a bigint \(z\.bigint\(\)\), which no JSON argument can carry/);
  });
});
