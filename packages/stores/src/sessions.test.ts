import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { A, U, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

describe('SessionStore', () => {
  it('opens one session per scope and closes it with a stored quality score', () => {
    const s = env.stores.sessions.start(U);
    expect(s.status).toBe('open');
    expect(env.stores.sessions.start(U).id).toBe(s.id);
    expect(env.stores.sessions.start(A).id).not.toBe(s.id);
    env.stores.l1.push(U, { text: 'hello' });
    env.stores.episodes.add(U, { summary: 'worked on the parser' });
    env.clock.advance(60_000);
    const closed = env.stores.sessions.end(U, {
      summary: 'We decided to ship the parser. Next step: tests.',
      topics: ['parser'],
      state_deltas: { parser: 'done' },
    });
    expect(closed.id).toBe(s.id);
    expect(closed.status).toBe('closed');
    expect(closed.quality).toBeGreaterThanOrEqual(0);
    expect(closed.quality).toBeLessThanOrEqual(80);
    expect(closed.quality_detail?.score).toBe(closed.quality);
    expect(closed.topics).toEqual(['parser']);
    expect(env.stores.sessions.lastClosed(U)?.id).toBe(s.id);
    expect(env.stores.sessions.lastClosed(A)).toBeNull();
    expect(env.stores.sessions.current(A)?.status).toBe('open');
    expect(env.stores.audit.forTarget(s.id).map((e) => e.action)).toEqual(['session_start', 'session_end']);
  });

  it('end refuses state_deltas that are not an object or a list, state_deltas or topics longer than the text limit as JSON, and leaves the session open', () => {
    const s = env.stores.sessions.start(U);
    for (const state_deltas of ['oops', 7, { blob: 'y'.repeat(env.stores.config.maxTextChars) }]) {
      expect(() => env.stores.sessions.end(U, { summary: 'done', state_deltas }), JSON.stringify(state_deltas).slice(0, 20)).toThrow(
        expect.objectContaining({ field: 'state_deltas' }),
      );
    }
    const half = 'x'.repeat(env.stores.config.maxTextChars / 2);
    expect(() => env.stores.sessions.end(U, { summary: 'done', topics: [half, half] })).toThrow(expect.objectContaining({ field: 'topics' }));
    expect(env.stores.sessions.current(U)?.id).toBe(s.id);
    expect(env.stores.sessions.end(U, { summary: 'done', state_deltas: ['one change'] }).state_deltas).toEqual(['one change']);
  });

  // Regression guard, fixed: memory_session_end took state_deltas of any depth; 5,000 levels
  // overflowed the stack in JSON.stringify ("Maximum call stack size exceeded", no field named).
  it('end refuses state_deltas nested more than 100 levels deep, naming it, and keeps 100 levels', () => {
    const nest = (levels: number): unknown => {
      let v: unknown = [];
      for (let i = 1; i < levels; i++) v = i % 2 ? [v] : { k: v };
      return v;
    };
    const s = env.stores.sessions.start(U);
    for (const levels of [101, 5_000]) {
      expect(() => env.stores.sessions.end(U, { summary: 'done', state_deltas: nest(levels) }), String(levels)).toThrow(
        expect.objectContaining({ field: 'state_deltas', accepted: 'object or list at most 100 levels deep' }),
      );
    }
    expect(env.stores.sessions.current(U)?.id).toBe(s.id);
    expect(env.stores.sessions.end(U, { summary: 'done', state_deltas: nest(100) }).id).toBe(s.id);
  });

  it("counts the user's turns of a session in the L1 ring only, not in rows past its size", () => {
    const small = makeEnv({ l1Size: 5 });
    try {
      const summary = 'We decided to ship the parser. Next step: tests.';
      small.stores.sessions.start(U);
      for (let i = 0; i < 30; i++) small.stores.l1.push(U, { text: `turn ${i}` });
      const counted = small.stores.sessions.end(U, { summary });
      small.stores.sessions.start(A);
      const given = small.stores.sessions.end(A, { summary, user_turns: 5 });
      expect(counted.quality_detail).toEqual(given.quality_detail);
    } finally {
      small.close();
    }
  });

  it('end without an open session creates and closes one', () => {
    const s = env.stores.sessions.end(U, { summary: '' });
    expect(s.status).toBe('closed');
    expect(s.quality).toBe(0);
    expect(env.stores.sessions.list(U, 10)).toHaveLength(1);
    expect(env.stores.sessions.get(s.id)?.id).toBe(s.id);
    expect(env.stores.sessions.get('nope')).toBeNull();
  });
});
