import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeEnv, A, U, type Env } from './test-helpers.js';
import { isTodoFact } from './daily-brief.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

describe('DailyBrief', () => {
  it('marks todos by key prefix todo: or a value starting with the word TODO', () => {
    expect(isTodoFact({ key: 'todo:call', value: 'call Ann' })).toBe(true);
    expect(isTodoFact({ key: 'x', value: ' todo - renew passport' })).toBe(true);
    expect(isTodoFact({ key: 'x', value: 'Todos are fun' })).toBe(false);
    expect(isTodoFact({ key: 'todolist', value: 'groceries' })).toBe(false);
  });

  it('lists pending todos and scratchpad, the last 24 hours, and suggests the top todo', () => {
    const s = env.stores;
    s.facts.upsert(U, { key: 'todo:call', value: 'Call Ann', importance: 0.4 });
    s.facts.upsert(U, { key: 'x', value: 'TODO: renew passport', importance: 0.9 });
    s.facts.upsert(U, { key: 'plain', value: 'likes tea' });
    s.facts.upsert(A, { key: 'todo:agent', value: 'agent work' });
    s.scratchpad.write(U, 'plan', 'draft');
    env.clock.advance(25 * 3600_000);
    s.episodes.add(U, { summary: 'recent episode' });
    s.timeline.add(U, { type: 'thought', summary: 'a thought' });
    const b = s.dailyBrief.brief(U);
    expect(b.pending).toMatchObject({ todos: { count: 2, items: [{ key: 'x' }, { key: 'todo:call' }] }, scratchpad: { count: 1, items: [{ key: 'plan' }] } });
    expect(b.recent).toMatchObject({ total: 2, facts: { count: 0, newest: [] }, episodes: { count: 1 }, wiki_pages: { count: 0 }, timeline_events: { count: 1, newest: [{ type: 'thought' }] } });
    expect(b.suggested_action).toMatchObject({ tool: 'forget', action: expect.stringContaining('renew passport') });
  });

  it('counts nothing dated after now among the last 24 hours', () => {
    const s = env.stores;
    const now = env.clock.now();
    env.clock.t = Date.UTC(2099, 0, 1); // imported or written while the clock ran ahead
    s.facts.upsert(U, { key: 'ahead', value: 'dated 2099' });
    s.episodes.add(U, { summary: 'episode dated 2099' });
    s.timeline.add(U, { type: 'thought', summary: 'event dated 2099' });
    s.wiki.save(U, { title: 'Ahead', content: 'page dated 2099', wiki_type: 'diary' });
    env.clock.t = now;
    s.facts.upsert(U, { key: 'today', value: 'written now' });
    const b = s.dailyBrief.brief(U);
    expect(b.recent).toMatchObject({
      total: 1,
      facts: { count: 1, newest: [{ key: 'today' }] },
      episodes: { count: 0, newest: [] },
      wiki_pages: { count: 0, newest: [] },
      timeline_events: { count: 0, newest: [] },
    });
  });

  it('answers a failing section as an error entry and still returns the others', () => {
    const s = env.stores;
    s.scratchpad.write(U, 'plan', 'draft');
    const spy = vi.spyOn(s.scratchpad, 'read').mockImplementation(() => {
      throw new Error('disk on fire');
    });
    const b = s.dailyBrief.brief(U);
    expect(b.pending).toEqual({ error: { message: 'disk on fire' } });
    expect(b.recent).toMatchObject({ total: 0 });
    expect(b.suggested_action).toMatchObject({ tool: 'think' });
    spy.mockRestore();
    const t = vi.spyOn(s.timeline, 'latestIn').mockImplementation(() => {
      throw new Error('timeline broken');
    });
    const c = s.dailyBrief.brief(U);
    expect(c.recent).toEqual({ error: { message: 'timeline broken' } });
    expect(c.suggested_action).toMatchObject({ tool: 'memory_scratchpad' });
    t.mockRestore();
  });
});
