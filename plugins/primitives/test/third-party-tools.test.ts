import { afterEach, expect, it } from 'vitest';
import { definePlugin, defineTool, z } from '@memory-service/kernel';
import { start, type TestServer } from './helpers.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const tool = (name: string, handler: () => unknown) =>
  defineTool({ name, title: name, description: `${name} tool`, input: z.object({}), output: z.object({ id: z.number() }), annotations: { readOnlyHint: true }, handler });

const sloppy = definePlugin({
  name: 'sloppy-plugin',
  version: '1.0.0',
  tier: 'sloppy',
  kernel: '^1.0.0',
  setup(ctx) {
    ctx.tools.register(tool('sloppy_wrong_type', () => ({ id: 'seven' })));
    ctx.tools.register(tool('sloppy_async_missing', async () => ({ other: 1 })));
    ctx.tools.register(tool('sloppy_extra_key', () => ({ id: 7, debug: 'internal' })));
  },
});

it("a plugin tool's answer that its output schema refuses is a tool error naming the plugin, not a protocol error", async () => {
  s = await start({ plugins: [sloppy], expose: 'primitives,sloppy' });
  await s.listTools(); // the client now checks structuredContent against each tool's output schema
  for (const name of ['sloppy_wrong_type', 'sloppy_async_missing']) {
    const out = await s.callRaw(name);
    expect(out.isError, name).toBe(true);
    expect(out.structured.error).toMatchObject({ code: 'KERNEL_ERR_TOOL_FAILED', plugin: 'sloppy-plugin' });
    expect(out.structured.error.message).toMatch(new RegExp(`Tool ${name} \\(plugin sloppy-plugin\\) answered with output its output schema refuses: field "id"`));
  }
});

it('keys the output schema does not name are left out, as the published schema allows none', async () => {
  s = await start({ plugins: [sloppy], expose: 'primitives,sloppy' });
  await s.listTools();
  const out = await s.callRaw('sloppy_extra_key');
  expect(out.isError).toBe(false);
  expect(out.structured).toEqual({ id: 7 });
  expect(JSON.parse(out.text)).toEqual({ id: 7 });
});

const unsendable = definePlugin({
  name: 'unsendable-plugin',
  version: '1.0.0',
  tier: 'unsendable',
  kernel: '^1.0.0',
  setup(ctx) {
    const plain = (name: string, handler: () => unknown) =>
      defineTool({ name, title: name, description: `${name} tool`, input: z.object({}), annotations: { readOnlyHint: true }, handler });
    ctx.tools.register(plain('unsendable_bigint', () => ({ n: 10n })));
    ctx.tools.register(
      plain('unsendable_cycle', async () => {
        const o: Record<string, unknown> = {};
        o.self = o;
        return o;
      }),
    );
  },
});

it('an answer that cannot be sent as JSON is a tool error naming the tool and its plugin', async () => {
  s = await start({ plugins: [unsendable], expose: 'primitives,unsendable' });
  for (const name of ['unsendable_bigint', 'unsendable_cycle']) {
    const out = await s.callRaw(name);
    expect(out.isError, name).toBe(true);
    expect(out.structured.error).toMatchObject({ code: 'KERNEL_ERR_TOOL_FAILED', plugin: 'unsendable-plugin' });
    expect(out.structured.error.message).toContain(`Tool ${name} (plugin unsendable-plugin) answered a value that cannot be sent as JSON`);
  }
});

const dated = definePlugin({
  name: 'dated-plugin',
  version: '1.0.0',
  tier: 'dated',
  kernel: '^1.0.0',
  setup(ctx) {
    ctx.tools.register(
      defineTool({ name: 'dated_add', title: 'Add', description: 'Adds a dated entry.', input: z.object({ when: z.date() }), output: z.object({ ok: z.boolean() }), annotations: { readOnlyHint: true }, handler: () => ({ ok: true }) }),
    );
  },
});

it('a tool taking a field JSON cannot carry (z.date()) stops the start, naming the plugin, the tool, the field and what JSON carries', async () => {
  const err = await start({ plugins: [dated], expose: 'primitives,dated' }).catch((e) => e);
  expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_SETUP', plugin: 'dated-plugin' });
  expect(err.message).toMatch(/^Plugin dated-plugin failed in setup: Tool dated_add: input field "when" is a date \(z\.date\(\)\), which no JSON argument can carry .*declare it as a type JSON carries: string, number, boolean, null, array or object/);
});

const oddThrows = definePlugin({
  name: 'odd-throws',
  version: '1.0.0',
  tier: 'oddthrows',
  kernel: '^1.0.0',
  setup(ctx) {
    ctx.tools.register(
      defineTool({
        name: 'odd_throw',
        title: 'Odd throw',
        description: 'Throws a plain object.',
        input: z.object({}),
        annotations: { readOnlyHint: true },
        handler: () => {
          throw { weird: 1, why: 'not an Error' };
        },
      }),
    );
  },
});

it('a handler throwing a value that is not an Error is a tool error showing its JSON, not "[object Object]"', async () => {
  s = await start({ plugins: [oddThrows], expose: 'primitives,oddthrows' });
  const out = await s.callRaw('odd_throw');
  expect(out.isError).toBe(true);
  expect(out.structured.error).toMatchObject({
    code: 'KERNEL_ERR_TOOL_FAILED',
    plugin: 'odd-throws',
    message: 'threw a value that is not an Error: {"weird":1,"why":"not an Error"}',
  });
});

it('tapPromise on a synchronous hook, or onEvent with an unknown event, stops the start naming the hook and the fix, or the events', async () => {
  // @ts-expect-error: the types have no tapPromise on a synchronous hook; a JavaScript plugin may still call it
  const wrongTap = definePlugin({ name: 'wrong-tap', version: '1.0.0', tier: 'wrongtap', kernel: '^1.0.0', setup: (ctx) => ctx.hooks.thought_stored.tapPromise(ctx.name, async () => undefined) });
  const tapErr = await start({ plugins: [wrongTap] }).catch((e) => e);
  expect(tapErr.message).toContain('hook thought_stored is synchronous and takes tap only, not tapPromise: use ctx.hooks.thought_stored.tap(ctx.name, fn)');
  const wrongEvent = definePlugin({ name: 'wrong-event', version: '1.0.0', tier: 'wrongevent', kernel: '^1.0.0', setup: (ctx) => ctx.onEvent('session_begun' as never, () => null) });
  const eventErr = await start({ plugins: [wrongEvent] }).catch((e) => e);
  expect(eventErr.message).toBe(
    'Plugin wrong-event failed in setup: Unknown lifecycle event "session_begun"; known events: session_started, session_ended, new_message, auto_save_candidate, post_context_compression, context_threshold, memory_pressure',
  );
});

/** A tool whose output schema takes anything (z.any()): it writes a row, then answers a BigInt, a cycle or a throwing toJSON. */
const halfWriter = definePlugin({
  name: 'half-writer-plugin',
  version: '1.0.0',
  tier: 'halfw',
  kernel: '^1.0.0',
  migrations: [{ id: 1, name: 'log', up: (db) => db.exec('CREATE TABLE halfw_log (v TEXT)') }],
  setup(ctx) {
    const insert = ctx.db.prepare('INSERT INTO halfw_log (v) VALUES (?)');
    const count = ctx.db.prepare('SELECT COUNT(*) AS n FROM halfw_log');
    ctx.tools.register(
      defineTool({
        name: 'halfw_write',
        title: 'write',
        description: 'writes a row, then answers what it is told',
        input: z.object({ mode: z.enum(['bigint', 'cycle', 'tojson']) }),
        output: z.object({ ok: z.boolean(), v: z.any() }),
        annotations: { readOnlyHint: false },
        handler: ({ mode }) => {
          insert.run(mode);
          const cyc: Record<string, unknown> = {};
          cyc.self = cyc;
          return { ok: true, v: mode === 'bigint' ? 1n : mode === 'cycle' ? cyc : { toJSON: () => { throw new Error('no JSON'); } } };
        },
      }),
    );
    ctx.tools.register(
      defineTool({ name: 'halfw_count', title: 'count', description: 'rows written', input: z.object({}), output: z.object({ n: z.number() }), annotations: { readOnlyHint: true }, handler: () => count.get() as { n: number } }),
    );
  },
});

it('an answer JSON cannot carry that the output schema accepts fails the call and leaves none of its writes', async () => {
  s = await start({ plugins: [halfWriter], expose: 'primitives,halfw' });
  for (const mode of ['bigint', 'cycle', 'tojson']) {
    const out = await s.callRaw('halfw_write', { mode });
    expect(out.isError, mode).toBe(true);
    expect(out.structured.error).toMatchObject({ code: 'KERNEL_ERR_TOOL_FAILED', plugin: 'half-writer-plugin' });
    expect(out.structured.error.message).toContain('Tool halfw_write (plugin half-writer-plugin) answered a value that cannot be sent as JSON: field "v');
  }
  expect(await s.call('halfw_count')).toEqual({ n: 0 });
});
