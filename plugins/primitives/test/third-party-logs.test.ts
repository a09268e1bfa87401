import { afterEach, expect, it, vi } from 'vitest';
import { definePlugin, defineTool, z } from '@memory-service/kernel';
import { start, type TestServer } from './helpers.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const talker = definePlugin({
  name: '@acme/talker-plugin',
  version: '1.0.0',
  tier: 'talker',
  kernel: '^1.0.0',
  setup(ctx) {
    ctx.tools.register(
      defineTool({
        name: 'talker_say',
        title: 'Say',
        description: 'Logs a line through ctx.logger.',
        input: z.object({ text: z.string() }),
        annotations: { readOnlyHint: true },
        handler: ({ text }) => {
          ctx.logger.warn(`said ${text}`);
          return { ok: true };
        },
      }),
    );
    ctx.tools.register(
      defineTool({ name: 'talker_hang', title: 'Hang', description: 'Never answers.', input: z.object({}), annotations: { readOnlyHint: true }, handler: () => new Promise(() => undefined) }),
    );
    ctx.hooks.message_received.tapPromise(ctx.name, () => new Promise(() => undefined));
  },
});

it("a plugin's ctx.logger lines carry its name", async () => {
  s = await start({ plugins: [talker], expose: 'primitives,talker' });
  const warn = vi.spyOn(s.kernel.logger, 'warn');
  await s.call('talker_say', { text: 'hello' });
  expect(warn).toHaveBeenCalledWith('@acme/talker-plugin: said hello');
});

it('the close warning names the tool calls and hook taps that never settled, with their plugins', async () => {
  s = await start({ plugins: [talker], expose: 'primitives,talker' });
  const warn = vi.spyOn(s.kernel.logger, 'warn');
  const pending = [s.callRaw('talker_hang').catch(() => undefined), s.callRaw('think', { text: 'a thought the tap never lets go of' }).catch(() => undefined)];
  await new Promise((r) => setTimeout(r, 100));
  const closing = s;
  s = undefined;
  await closing.close();
  await Promise.all(pending);
  const line = warn.mock.calls.map((c) => String(c[0])).find((m) => m.startsWith('closing with'));
  expect(line).toContain('tool talker_hang (plugin @acme/talker-plugin)');
  expect(line).toContain('tool think (plugin @memory-service/plugin-primitives)');
  expect(line).toContain("@acme/talker-plugin's tap on message_received");
});
