import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, start, storesOf, thinkEpisode, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const EMPTY = { l1: 0, l2: 0, l3: 0, l4: 0, wiki_pages: 0, graph_nodes: 0, recall_count: 0, avg_session_quality: null, avg_session_quality_raw: null };

describe('memory_stats', () => {
  it('counts each store of the scope, the dream calls, and the mean session quality scaled from 0..80 to 0..100', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    expect(await s.call('memory_stats', {})).toEqual(EMPTY);
    await s.call('memory_hook', { event: 'session_started', payload: {} });
    await thinkEpisode(s, 'The staging database migrates every Tuesday night after the backup finishes.');
    await s.call('think', { text: `Long design notes. ${'The event store keeps every change as an append-only record. '.repeat(40)}`, layer: 'user' });
    await s.call('memory_hook', { event: 'new_message', payload: { text: 'I always deploy on Fridays after the review' } });
    const first: any = await s.call('memory_hook', { event: 'session_ended', payload: { summary: 'We moved billing to Postgres and chose the region.', topics: ['billing'] } });
    clock.advance(60_000);
    await s.call('memory_hook', { event: 'session_started', payload: {} });
    const second: any = await s.call('memory_hook', { event: 'session_ended', payload: { summary: 'Short.' } });
    await s.call('dream', { query: 'staging database' });
    await s.call('dream', { query: 'deploy fridays' });
    await s.call('evolve', { instruction: 'Keep answers short.' });

    const st = storesOf(s);
    const U = { layer: 'user' as const, user_id: 'default' };
    const q1 = first.results['@memory-service/plugin-primitives'].quality;
    const q2 = second.results['@memory-service/plugin-primitives'].quality;
    const raw = (q1 + q2) / 2;
    const stats: any = await s.call('memory_stats', {});
    expect(stats).toEqual({
      l1: st.l1.count(U),
      l2: 2,
      l3: st.episodes.count(U),
      l4: st.facts.count(U),
      wiki_pages: 1,
      graph_nodes: st.graph.count(U),
      recall_count: 2,
      avg_session_quality: Math.round(raw * 12.5) / 10,
      avg_session_quality_raw: Math.round(raw * 10) / 10,
    });
    expect(stats.l3).toBeGreaterThanOrEqual(3);
    expect(stats.graph_nodes).toBeGreaterThanOrEqual(1);
    expect(stats.avg_session_quality).toBeLessThanOrEqual(100);
    expect(await s.call('memory_stats', { layer: 'agent' })).toMatchObject({ l4: 1, l3: 0, l2: 0, recall_count: 0, wiki_pages: 0 });
    expect(await s.call('memory_stats', { user_id: 'bob' })).toEqual(EMPTY);
  });

  it('names layer and user_id when they are bad', async () => {
    s = await start();
    expect((await toolError(s.call('memory_stats', { layer: 'team' }))).field).toBe('layer');
    expect((await toolError(s.call('memory_stats', { user_id: '../x' }))).field).toBe('user_id');
  });
});
