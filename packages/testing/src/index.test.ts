import { definePlugin, defineTool, z } from '@memory-service/kernel';
import { describe, expect, it } from 'vitest';
import { createTestServer } from './index.js';

const echo = definePlugin({
  name: 'echo-plugin',
  version: '1.0.0',
  tier: 'echo',
  kernel: '^1.0.0',
  setup(ctx) {
    ctx.tools.register(
      defineTool({
        name: 'echo_say',
        title: 'Say',
        description: 'Echoes its text and logs it.',
        input: z.object({ text: z.string() }),
        output: z.object({ text: z.string() }),
        annotations: { readOnlyHint: true },
        handler: ({ text }) => (ctx.logger.info(`echo ${text}`), { text }),
      }),
    );
  },
});

describe("the test server's logs", () => {
  it('records the warning for an expose token naming no loaded tier, and passes every line to the logger given', async () => {
    const seen: string[] = [];
    const logger = { info: (m: string) => seen.push(`info ${m}`), warn: (m: string) => seen.push(`warn ${m}`), error: (m: string) => seen.push(`error ${m}`) };
    const s = await createTestServer({ plugins: [echo], expose: 'primitives,echo', logger });
    try {
      expect(s.logs).toContainEqual({ level: 'warn', message: expect.stringMatching(/^MEMORY_EXPOSE: ignoring unknown token primitives .*\(@memory-service\/plugin-primitives\)$/) });
      await s.call('echo_say', { text: 'hi' });
      expect(s.logs.at(-1)).toEqual({ level: 'info', message: 'echo-plugin: echo hi' });
      expect(seen).toEqual(s.logs.map((l) => `${l.level} ${l.message}`));
    } finally {
      await s.close();
    }
  });

  it('a call of a tool no plugin given registers says the kit loads only the plugins passed, and where the primitives are', async () => {
    const s = await createTestServer({ plugins: [echo], expose: 'primitives,echo' });
    try {
      const err = await s.call('think', { text: 'hello' }).catch((e) => e);
      expect(err.message).toMatch(/no plugin given to createTestServer registers think: it loads only the plugins you pass \(echo-plugin\); the primitives .* are @memory-service\/plugin-primitives, to pass as well/);
    } finally {
      await s.close();
    }
  });

  it('a call of a tool of a tier not exposed says so', async () => {
    const s = await createTestServer({ plugins: [echo], expose: 'primitives' });
    try {
      const out = await s.callRaw('echo_say', { text: 'x' });
      expect(out.isError).toBe(true);
      expect(out.text).toContain('echo_say is a tool of echo-plugin (tier echo), which expose \\"primitives\\" does not expose');
    } finally {
      await s.close();
    }
  });
});
