import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, start, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

describe('memory_get_smart_context', () => {
  it('fills blocks from the five sources within the budget, with per-source allocations', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 5, 9));
    s = await start({ clock });
    await s.call('think', { text: 'My name is Ada' });
    await s.call('think', { text: 'I went hiking in the Alps last weekend with my sister and we saw ibexes near the ridge.' });
    await s.call('memory_hook', { event: 'session_started', payload: {} });
    await s.call('project', { action: 'init', name: 'Atlas', details: 'The mapping app' });
    const r = await s.call('memory_get_smart_context', { query: 'hiking Alps' });
    expect(r.budget).toBe(2000);
    expect(Object.keys(r.allocations)).toEqual(['important', 'relevant', 'recent', 'day', 'ops']);
    expect(r.allocations.important).toMatchObject({ weight: 30, floor: 600, ceiling: 1200 });
    expect(r.allocations.ops).toMatchObject({ weight: 10, floor: 200, ceiling: 400 });
    const bySource = Object.fromEntries(r.blocks.map((b: any) => [b.source, b]));
    expect(bySource.relevant.text).toContain('ibexes');
    expect(bySource.recent.text).toContain('hiking');
    expect(bySource.ops.text).toContain('project Atlas');
    expect(bySource.ops.text).toContain('open session');
    let total = 0;
    for (const [name, a] of Object.entries<any>(r.allocations)) {
      expect(a.used, name).toBeLessThanOrEqual(a.allocated);
      expect(a.allocated, name).toBeLessThanOrEqual(a.ceiling);
      total += a.allocated;
    }
    expect(total).toBeLessThanOrEqual(2000);
    expect(r.total_tokens).toBe(r.blocks.reduce((n: number, b: any) => n + b.tokens, 0));
  });

  it('leaves the relevant source empty without a query, and shows only today on the day block', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 5, 23));
    s = await start({ clock });
    await s.call('evolve', { instruction: 'Be more formal with clients' });
    clock.set(Date.UTC(2026, 0, 6, 1));
    await s.call('evolve', { instruction: 'Answer in short sentences' });
    const r = await s.call('memory_get_smart_context', { layer: 'agent' });
    expect(r.allocations.relevant).toMatchObject({ demand: 0, allocated: 0, used: 0 });
    const day = r.blocks.find((b: any) => b.source === 'day');
    expect(day.items).toBe(1);
    expect(day.text).toContain('personality_shift');
    expect(day.text).toContain('short sentences');
    expect(day.text).not.toContain('formal');
  });

  it('cuts each source to its allocation: floors first, a ceiling of twice the floor', async () => {
    s = await start();
    for (let i = 0; i < 20; i++) await s.call('think', { text: `Turn ${String.fromCharCode(65 + i)}: ${'a long line about gardening and tomatoes '.repeat(5)}` });
    const r = await s.call('memory_get_smart_context', { budget: 200 });
    // Only recent and (maybe) day have content; recent's floor is 30, its ceiling 60.
    expect(r.allocations.recent).toMatchObject({ floor: 30, ceiling: 60, allocated: 60 });
    expect(r.allocations.recent.used).toBeLessThanOrEqual(60);
    expect(r.blocks.find((b: any) => b.source === 'recent').truncated).toBe(true);
  });

  it('keeps users apart and refuses bad input naming the field', async () => {
    s = await start();
    await s.call('think', { text: 'The vault code is 4512 and only I know it', user_id: 'alice' });
    const bob = await s.call('memory_get_smart_context', { query: 'vault code', user_id: 'bob' });
    expect(JSON.stringify(bob.blocks)).not.toContain('4512');
    expect((await toolError(s.call('memory_get_smart_context', { budget: 99 }))).field).toBe('budget');
    expect((await toolError(s.call('memory_get_smart_context', { query: 7 }))).field).toBe('query');
  });
});
