import { afterEach, expect, it } from 'vitest';
import { definePlugin } from '@memory-service/kernel';
import { start, type TestServer } from './helpers.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const brokenInject = definePlugin({
  name: 'broken-inject',
  version: '1.0.0',
  tier: 'broken',
  kernel: '^1.0.0',
  setup(ctx) {
    ctx.hooks.session_inject.tapPromise('broken-inject', async () => {
      throw new Error('inject broke');
    });
  },
});

it("a third-party session_inject tap that throws does not break session_started's inject, nor is it blamed on the primitives", async () => {
  s = await start({ plugins: [brokenInject] });
  await s.call('think', { text: 'I prefer tea over coffee, always', layer: 'user' });
  const out = await s.call('memory_hook', { event: 'session_started', payload: { text: 'tea' } });
  const mine = out.results['@memory-service/plugin-primitives'];
  expect(mine.error).toBeUndefined();
  expect(mine.inject).toContain('I prefer tea over coffee');
});
