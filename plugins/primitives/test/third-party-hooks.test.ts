import { afterEach, expect, it, vi } from 'vitest';
import { definePlugin, type PluginDefinition } from '@memory-service/kernel';
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

/** A third-party plugin whose session_inject tap answers `answer` (given the blocks it got). */
const injecting = (name: string, answer: (blocks: unknown[]) => unknown) =>
  definePlugin({
    name,
    version: '1.0.0',
    tier: name,
    kernel: '^1.0.0',
    setup(ctx) {
      ctx.hooks.session_inject.tapPromise(name, async (blocks) => answer(blocks) as never);
    },
  });

/**
 * session_started, after one stored thought, on a server with these plugins: the primitives' answer
 * (checked to be no error and to hold the thought) and the error lines logged.
 */
async function sessionStartedWith(plugins: PluginDefinition[]) {
  s = await start({ plugins });
  const errors = vi.spyOn(s.kernel.logger, 'error');
  await s.call('think', { text: 'I prefer tea over coffee, always', layer: 'user' });
  const out = await s.call('memory_hook', { event: 'session_started', payload: { text: 'tea' } });
  const mine = out.results['@memory-service/plugin-primitives'];
  expect(mine.error).toBeUndefined();
  expect(mine.inject).toContain('I prefer tea over coffee');
  return { mine, logged: errors.mock.calls.map((c) => String(c[0])) };
}

/** A well-behaved tap after the bad one: it must get the blocks the bad one was given, not its answer. */
const later = injecting('later-inject', (blocks) => [...blocks, { source: 'later', title: 'Later block', text: 'added after the bad tap' }]);

it("a session_inject tap answering something that is not a list fails alone: session_started's inject is built, the next tap gets the blocks, the log names the plugin", async () => {
  const { mine, logged } = await sessionStartedWith([injecting('oops-inject', () => 'oops'), later]);
  expect(mine.inject).toContain('## Later block\nadded after the bad tap');
  expect(mine.inject).not.toContain('oops');
  expect(mine.blocks.map((b: { source: string }) => b.source).at(-1)).toBe('later');
  expect(mine.blocks.every((b: { source: unknown; title: unknown }) => typeof b.source === 'string' && typeof b.title === 'string')).toBe(true);
  expect(logged.some((m) => m.startsWith('oops-inject failed on hook session_inject') && m.includes('"oops"'))).toBe(true);
  expect(logged.some((m) => m.includes('plugin-primitives'))).toBe(false);
});

it('a malformed session_inject block is left out of the inject, the good blocks stay, the log names the plugin', async () => {
  const malformed = injecting('malformed-inject', (blocks) => [
    ...blocks,
    { title: 5, text: null },
    'not a block',
    { source: 'mal', title: 'Fine block', text: 'a good block from the same tap' },
  ]);
  const { mine, logged } = await sessionStartedWith([malformed, later]);
  expect(mine.inject).toContain('## Fine block\na good block from the same tap');
  expect(mine.inject).toContain('## Later block');
  expect(mine.inject).not.toContain('## 5');
  expect(mine.inject).not.toContain('null');
  expect(mine.inject).not.toContain('not a block');
  const sources = mine.blocks.map((b: { source: string }) => b.source);
  expect(sources.slice(-2)).toEqual(['mal', 'later']);
  expect(mine.blocks.every((b: { source: unknown; title: unknown }) => typeof b.source === 'string' && typeof b.title === 'string')).toBe(true);
  expect(logged.filter((m) => m.startsWith('malformed-inject failed on hook session_inject'))).toHaveLength(1);
  expect(logged.find((m) => m.startsWith('malformed-inject'))).toContain('left out 2 block(s)');
  expect(logged.some((m) => m.startsWith('later-inject'))).toBe(false);
});
