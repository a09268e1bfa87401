import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock, start, storesOf, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  vi.restoreAllMocks();
  await s?.close();
});

const U = { layer: 'user' as const, user_id: 'default' };

function dump(): string {
  storesOf(s).flush();
  const db = s.kernel.storage.db;
  return ['facts', 'episodes', 'scratchpad', 'audit_log', 'timeline_events', 'recall_events'].map((t) => JSON.stringify(db.prepare(`SELECT * FROM ${t}`).all())).join();
}

describe('daily_brief', () => {
  it('suggests recording progress when nothing is pending or recent', async () => {
    s = await start();
    const b = await s.call('daily_brief', {});
    expect(b.pending).toEqual({ todos: { count: 0, items: [] }, scratchpad: { count: 0, items: [] } });
    expect(b.recent).toMatchObject({ total: 0, facts: { count: 0, newest: [] }, episodes: { count: 0 }, wiki_pages: { count: 0 }, timeline_events: { count: 0 } });
    expect(b.suggested_action).toMatchObject({ tool: 'think' });
  });

  it('lists todo facts and scratchpad entries as pending, the last 24 hours as recent, and suggests the top todo, writing nothing', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const st = storesOf(s);
    st.facts.upsert(U, { key: 'todo:taxes', value: 'File the taxes', importance: 0.5 });
    st.facts.upsert(U, { key: 'x', value: 'TODO renew passport', importance: 0.9 });
    st.facts.upsert(U, { key: 'tea', value: 'Likes green tea' });
    st.scratchpad.write(U, 'plan', 'draft the outline');
    clock.advance(25 * 3600_000);
    await s.call('think', { text: 'We agreed to deploy the billing service on Friday after the final review meeting', layer: 'user' });
    st.wiki.save(U, { title: 'Trip', content: 'Lisbon in May', wiki_type: 'diary' });
    const before = dump();
    const b = await s.call('daily_brief', {});
    expect(b.pending.todos).toMatchObject({ count: 2, items: [{ key: 'x', value: 'TODO renew passport' }, { key: 'todo:taxes' }] });
    expect(b.pending.scratchpad).toMatchObject({ count: 1, items: [{ key: 'plan', content: 'draft the outline' }] });
    expect(b.recent.facts.count).toBe(0);
    expect(b.recent.episodes).toMatchObject({ count: 1, newest: [{ summary: expect.stringContaining('billing service') }] });
    expect(b.recent.wiki_pages).toMatchObject({ count: 1, newest: [{ title: 'Trip', wiki_type: 'diary' }] });
    expect(b.recent.total).toBe(b.recent.facts.count + b.recent.episodes.count + b.recent.wiki_pages.count + b.recent.timeline_events.count);
    expect(b.suggested_action).toMatchObject({ tool: 'forget', action: expect.stringContaining('renew passport') });
    expect(dump()).toBe(before);
    // Once the todos are gone the scratchpad is next; then the recent records.
    st.facts.delete(U, 'x');
    st.facts.delete(U, 'todo:taxes');
    expect((await s.call('daily_brief', {})).suggested_action.tool).toBe('memory_scratchpad');
    st.scratchpad.clear(U);
    expect((await s.call('daily_brief', {})).suggested_action.tool).toBe('memory_remember');
  });

  it('counts nothing dated after now among the last 24 hours (the clock stepped back)', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const now = clock.now();
    clock.set(Date.UTC(2099, 0, 1));
    await s.call('think', { text: 'We agreed to deploy the billing service on Friday after the final review meeting', layer: 'user' });
    storesOf(s).facts.upsert(U, { key: 'ahead', value: 'dated 2099' });
    clock.set(now);
    storesOf(s).facts.upsert(U, { key: 'today', value: 'written now' });
    const b = await s.call('daily_brief', {});
    expect(b.recent).toMatchObject({ total: 1, facts: { count: 1, newest: [{ key: 'today' }] }, episodes: { count: 0 }, timeline_events: { count: 0 } });
  });

  it('answers a failing section as an error entry and still returns the others', async () => {
    s = await start();
    const st = storesOf(s);
    st.facts.upsert(U, { key: 'todo:a', value: 'do a' });
    vi.spyOn(st.scratchpad, 'read').mockImplementation(() => {
      throw new Error('scratchpad unreadable');
    });
    const b = await s.call('daily_brief', {});
    expect(b.pending).toEqual({ error: { message: 'scratchpad unreadable' } });
    expect(b.recent).toMatchObject({ facts: { count: 1 } });
    expect(b.suggested_action).toMatchObject({ tool: 'memory_remember' });
    vi.restoreAllMocks();
    vi.spyOn(st.timeline, 'latestIn').mockImplementation(() => {
      throw new Error('timeline unreadable');
    });
    const c = await s.call('daily_brief', {});
    expect(c.recent).toEqual({ error: { message: 'timeline unreadable' } });
    expect(c.pending.todos.count).toBe(1);
    expect(c.suggested_action.tool).toBe('forget');
  });

  it('reads only its layer and user_id, and names a bad layer', async () => {
    s = await start();
    storesOf(s).facts.upsert({ layer: 'agent', user_id: 'default' }, { key: 'todo:agent', value: 'agent work' });
    storesOf(s).scratchpad.write({ layer: 'user', user_id: 'bob' }, 'bob', 'bob note');
    const b = await s.call('daily_brief', {});
    expect(b.pending).toEqual({ todos: { count: 0, items: [] }, scratchpad: { count: 0, items: [] } });
    expect(b.recent.total).toBe(0);
    expect((await s.call('daily_brief', { layer: 'agent' })).pending.todos.count).toBe(1);
    expect((await toolError(s.call('daily_brief', { layer: 'both' }))).field).toBe('layer');
  });

  it('is exposed alone by the legacy brief token', async () => {
    s = await start({ expose: 'brief' });
    const tools = await s.listTools();
    expect(tools).toContain('daily_brief');
    expect(tools).not.toContain('memory_watch');
  });
});
