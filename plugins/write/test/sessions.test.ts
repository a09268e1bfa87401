import { definePlugin } from '@memory-service/kernel';
import { createTestServer } from '@memory-service/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, primitives, start, storesOf, toolError, write, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const U = { layer: 'user' as const, user_id: 'default' };

/** Records every session_consolidation call. */
function consolidationSpy() {
  const seen: { session_id: string; summary: string; layer: string; user_id: string }[] = [];
  const plugin = definePlugin({
    name: 'consolidation-spy',
    version: '1.0.0',
    tier: 'spy',
    kernel: '^1.0.0',
    setup(ctx) {
      ctx.hooks.session_consolidation.tapPromise('consolidation-spy', async (x) => void seen.push({ session_id: x.session_id, summary: x.summary, layer: x.layer, user_id: x.user_id }));
    },
  });
  return { seen, plugin };
}

describe('memory_session_start', () => {
  it('opens a session, and returns the open one (resumed) when called again', async () => {
    s = await start();
    const a: any = await s.call('memory_session_start', {});
    expect(a).toMatchObject({ resumed: false, session: { status: 'open', ended: null, quality: null } });
    expect(a.session.id).toMatch(/^sess_\d+$/);
    const b: any = await s.call('memory_session_start', {});
    expect(b).toMatchObject({ resumed: true, session: { id: a.session.id, status: 'open' } });
    expect(storesOf(s).sessions.count(U)).toBe(1);
    // Another layer or user_id has its own session.
    const agent: any = await s.call('memory_session_start', { layer: 'agent' });
    const bob: any = await s.call('memory_session_start', { user_id: 'bob' });
    expect(new Set([a.session.id, agent.session.id, bob.session.id]).size).toBe(3);
    expect(agent.resumed || bob.resumed).toBe(false);
  });
});

describe('memory_session_end', () => {
  it('closes the open session with its quality score, saves a session_summary episode and fires session_consolidation', async () => {
    const spy = consolidationSpy();
    const clock = new ManualClock();
    s = await createTestServer({ plugins: [primitives, write, spy.plugin], expose: 'write', clock });
    const open: any = await s.call('memory_session_start', {});
    clock.advance(1000);
    await s.call('memory_episode_save', { summary: 'Tried three caching strategies' });
    const r: any = await s.call('memory_session_end', {
      summary: 'We decided to keep the LRU cache. Next step: measure.',
      topics: ['cache', ' perf '],
      state_deltas: { cache: 'lru' },
    });
    expect(r.session).toMatchObject({ id: open.session.id, status: 'closed', topics: ['cache', 'perf'], state_deltas: { cache: 'lru' } });
    const d = r.session.quality_detail;
    expect(d).toMatchObject({ linked_entries: 2, decision: 15 });
    expect(r.session.quality).toBe(d.depth + d.decision + d.linked_entries + d.user_engagement);
    expect(storesOf(s).sessions.get(open.session.id)?.quality).toBe(r.session.quality);
    expect(r.episode).toMatchObject({ summary: 'We decided to keep the LRU cache. Next step: measure.', tags: ['session_summary'] });
    expect(spy.seen).toEqual([{ session_id: open.session.id, summary: 'We decided to keep the LRU cache. Next step: measure.', layer: 'user', user_id: 'default' }]);
    expect(storesOf(s).sessions.current(U)).toBeNull();
  });

  it('scores at most 80, however rich the session', async () => {
    s = await start();
    await s.call('memory_session_start', {});
    for (let i = 0; i < 12; i++) {
      await s.call('memory_episode_save', { summary: `step ${i}` });
      await s.call('memory_hook', { event: 'new_message', payload: { text: `turn ${i}` } });
    }
    const long = 'We decided on the plan. We agreed to ship. We fixed the bug. We will test more. Next steps are clear. '.repeat(6);
    const r: any = await s.call('memory_session_end', { summary: long, topics: ['a', 'b', 'c', 'd', 'e', 'f'], state_deltas: ['x', 'y', 'z'] });
    expect(r.session.quality_detail).toEqual({ score: 80, depth: 20, decision: 20, linked_entries: 20, user_engagement: 20 });
    expect(r.session.quality).toBe(80);
  });

  it('closes without a summary: no episode, a low score', async () => {
    s = await start();
    await s.call('memory_session_start', {});
    const r: any = await s.call('memory_session_end', {});
    expect(r).toMatchObject({ episode: null, session: { status: 'closed', summary: '', quality: 0 } });
    expect(storesOf(s).episodes.count(U)).toBe(0);
  });

  it('is an error naming session when no session is open, and then writes nothing', async () => {
    s = await start();
    expect((await toolError(s.call('memory_session_end', { summary: 'nothing open' }))).field).toBe('session');
    await s.call('memory_session_start', { layer: 'agent' });
    expect((await toolError(s.call('memory_session_end', { summary: 'the agent has one, not the user' }))).field).toBe('session');
    await s.call('memory_session_start', {});
    await s.call('memory_session_end', { summary: 'closed once' });
    expect((await toolError(s.call('memory_session_end', { summary: 'closed once' }))).field).toBe('session');
    expect(storesOf(s).sessions.count(U)).toBe(1);
    expect(storesOf(s).episodes.count(U)).toBe(1);
    expect(storesOf(s).sessions.current({ layer: 'agent', user_id: 'default' })?.status).toBe('open');
  });

  it('names topics and state_deltas of the wrong shape', async () => {
    s = await start();
    await s.call('memory_session_start', {});
    expect((await toolError(s.call('memory_session_end', { topics: 'cache' }))).field).toMatch(/^topics/);
    expect((await toolError(s.call('memory_session_end', { state_deltas: 'changed' }))).field).toMatch(/^state_deltas/);
    // Nested past 100 levels: refused naming it (3,000 levels overflowed the stack, naming no field).
    let deep: unknown = {};
    for (let i = 0; i < 3_000; i++) deep = [deep];
    const err = await toolError(s.call('memory_session_end', { summary: 'deep', state_deltas: deep }));
    expect(err).toMatchObject({ field: 'state_deltas', accepted: 'object or list at most 100 levels deep' });
    expect(storesOf(s).sessions.current(U)?.status).toBe('open');
  });

  it('shares the close with memory_hook session_ended: a session_summary episode, the session scored and closed', async () => {
    s = await start();
    const open: any = await s.call('memory_session_start', {});
    const r: any = await s.call('memory_hook', { event: 'session_ended', payload: { summary: 'Closed through the hook' } });
    const out = r.results['@memory-service/plugin-primitives'];
    expect(out).toMatchObject({ saved: true, session_id: open.session.id });
    const ep = storesOf(s).episodes.get(U, out.episode_id);
    expect(ep).toMatchObject({ summary: 'Closed through the hook', tags: ['session_summary'] });
    expect(ep?.meta).toMatchObject({ origin: 'session_ended', session_id: open.session.id });
    expect((await toolError(s.call('memory_session_end', {}))).field).toBe('session');
  });
});
