import { definePlugin } from '@memory-service/kernel';
import { createTestServer, ManualClock, type TestServer } from '@memory-service/testing';
import { afterEach, expect, it, vi } from 'vitest';
import { primitives, write } from './helpers.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

/** A third-party plugin whose importance_gate tap answers what `answer` gives. */
const gate = (answer: () => unknown) =>
  definePlugin({ name: '@acme/odd-gate', version: '1.0.0', tier: 'oddgate', kernel: '^1.0.0', setup: (ctx) => ctx.hooks.importance_gate.tap(ctx.name, () => answer() as number) });

it('an importance_gate tap answering NaN or a string is ignored and logged once per kind, naming the plugin and the answer', async () => {
  let next: unknown = 'high';
  s = await createTestServer({ plugins: [primitives, write, gate(() => next)], expose: 'write', clock: new ManualClock() });
  const warn = vi.spyOn(s.kernel.logger, 'warn');
  expect((await s.call('memory_remember', { key: 'k1', value: 'v1', importance: 0.4 })).importance).toBe(0.4);
  expect((await s.call('memory_remember', { key: 'k2', value: 'v2', importance: 0.4 })).importance).toBe(0.4);
  next = Number.NaN;
  expect((await s.call('memory_remember', { key: 'k3', value: 'v3', importance: 0.6 })).importance).toBe(0.6);
  next = 0.9;
  expect((await s.call('memory_remember', { key: 'k4', value: 'v4', importance: 0.6 })).importance).toBe(0.9);
  const lines = warn.mock.calls.map((c) => String(c[0])).filter((m) => m.includes('importance_gate'));
  expect(lines).toEqual([
    expect.stringMatching(/^@acme\/odd-gate's tap on importance_gate answered "high" \(a string\), not a finite number .*: ignored, the next tap and the caller get 0\.4/),
    expect.stringMatching(/^@acme\/odd-gate's tap on importance_gate answered NaN \(not finite\), not a finite number .*: ignored, the next tap and the caller get 0\.6/),
  ]);
});
