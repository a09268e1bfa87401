import { afterEach, expect, it, vi } from 'vitest';
import { definePlugin } from '@memory-service/kernel';
import { start, type TestServer } from './helpers.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

/** A third-party plugin whose message_received tap and session_started handler never settle. */
const hanging = definePlugin({
  name: 'hanging-hooks',
  version: '1.0.0',
  tier: 'hanging',
  kernel: '^1.0.0',
  setup(ctx) {
    ctx.hooks.message_received.tapPromise('hanging-hooks', () => new Promise<void>(() => {}));
    ctx.onEvent('session_started', () => new Promise(() => {}));
  },
});

it('a message_received tap that never settles does not hang think: it answers after the tap limit, the thought stored once', async () => {
  s = await start({ plugins: [hanging], config: { hooks: { tap_timeout_ms: 200 } } });
  const errors = vi.spyOn(s.kernel.logger, 'error');
  const started = Date.now();
  const out = await s.call('think', { text: 'The harbour master counts the boats at dusk', layer: 'user' });
  expect(Date.now() - started).toBeLessThan(3000);
  expect(out.actions.length).toBeGreaterThan(0);
  const found = await s.call('dream', { query: 'harbour master boats', layer: 'user' });
  expect(found.summary.split('The harbour master counts the boats at dusk').length - 1).toBe(1);
  expect(errors.mock.calls.map((c) => String(c[0]))).toEqual([expect.stringMatching(/^hanging-hooks failed on hook message_received: its tap did not settle within 200 ms/)]);
});

it("a session_started handler that never settles does not hang memory_hook: the primitives' answer is there, the plugin's is a timeout error", async () => {
  s = await start({ plugins: [hanging], config: { hooks: { tap_timeout_ms: 200 } } });
  const out = await s.call('memory_hook', { event: 'session_started', payload: {} });
  expect(out.results['@memory-service/plugin-primitives'].error).toBeUndefined();
  expect(out.results['@memory-service/plugin-primitives'].session_id).toEqual(expect.any(String));
  expect(out.results['hanging-hooks']).toMatchObject({ error: { code: 'KERNEL_ERR_HOOK_TIMEOUT', plugin: 'hanging-hooks' } });
});
