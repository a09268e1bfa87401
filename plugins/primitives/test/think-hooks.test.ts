import { afterEach, beforeEach, expect, it } from 'vitest';
import type { MessageInfo } from '@memory-service/kernel';
import { count, start, type TestServer } from './helpers.js';

/** The hooks think fires: message_received always, emotion_trigger on the user layer for emotional text. */
let s: TestServer;
let received: MessageInfo[];
let emotions: MessageInfo[];
beforeEach(async () => {
  s = await start();
  received = [];
  emotions = [];
  s.kernel.hooks.message_received.tapPromise('test', async (m) => {
    received.push(m);
  });
  s.kernel.hooks.emotion_trigger.tapPromise('test', async (m) => {
    emotions.push(m);
  });
});
afterEach(async () => {
  await s.close();
});

const EMOTIONAL = 'I hate this so much, I am furious and sad!';

it('message_received fires once for every think, with the text, scores and ids written', async () => {
  const a = await s.call('think', { text: 'The build uses make', layer: 'user' });
  await s.call('think', { text: 'Remember: my name is Alice', layer: 'agent', user_id: 'x' });
  await s.call('think', { text: 'Shipped the beta', wiki_type: 'decision_log', layer: 'agent' });
  expect(received).toHaveLength(3);
  expect(received[0]).toMatchObject({ layer: 'user', user_id: 'default', text: 'The build uses make', importance: a.routing.importance });
  expect(received[0]!.ids).toEqual(a.actions.map(({ store, id }: { store: string; id: string }) => ({ store, id })));
  expect(received[1]).toMatchObject({ layer: 'agent', user_id: 'x' });
});

it('emotion_trigger fires for emotional text on the user layer', async () => {
  const r = await s.call('think', { text: EMOTIONAL, layer: 'user' });
  expect(r.routing.emotional_weight).toBeGreaterThan(0.5);
  expect(emotions).toHaveLength(1);
  expect(emotions[0]).toMatchObject({ layer: 'user', text: EMOTIONAL, emotional_weight: r.routing.emotional_weight });
});

it('emotion_trigger does not fire on the agent layer', async () => {
  await s.call('think', { text: EMOTIONAL, layer: 'agent' });
  expect(received).toHaveLength(1);
  expect(emotions).toEqual([]);
});

it('emotion_trigger does not fire for neutral text on the user layer', async () => {
  await s.call('think', { text: 'The build uses make', layer: 'user' });
  expect(received).toHaveLength(1);
  expect(emotions).toEqual([]);
});

it('a failing hook handler does not lose the write', async () => {
  s.kernel.hooks.message_received.tapPromise('boom', async () => {
    throw new Error('handler broke');
  });
  const r = await s.call('think', { text: 'The build uses make', layer: 'user' });
  expect(r.actions.length).toBeGreaterThan(0);
  expect(count(s, 'episodes')).toBe(1);
});

it('emotion_trigger alone tapped still fires for emotional text, and think waits for it', async () => {
  const solo = await start();
  try {
    const seen: string[] = [];
    solo.kernel.hooks.emotion_trigger.tapPromise('solo', async (m) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      seen.push(m.text);
    });
    await solo.call('think', { text: EMOTIONAL, layer: 'user' });
    expect(seen).toEqual([EMOTIONAL]);
    // A neutral thought has nothing to wait for: its answer is a value, not a promise.
    expect(solo.kernel.callToolNow('think', { text: 'The build uses make', layer: 'user' })).not.toBeInstanceOf(Promise);
    expect(solo.kernel.callToolNow('think', { text: EMOTIONAL, layer: 'user' })).toBeInstanceOf(Promise);
  } finally {
    await solo.close();
  }
});

it('with nothing tapped, think answers at once (a value the transport can send in the same turn)', async () => {
  const bare = await start();
  try {
    const out = bare.kernel.callToolNow('think', { text: EMOTIONAL, layer: 'user' }) as { actions: { store: string }[] };
    expect(out).not.toBeInstanceOf(Promise);
    expect(out.actions.map((a) => a.store)).toContain('l3');
    expect(count(bare, 'episodes')).toBe(1);
  } finally {
    await bare.close();
  }
});
