import { describe, expect, it } from 'vitest';
import { sessionQuality, SESSION_QUALITY_MAX } from './session-quality.js';

describe('sessionQuality', () => {
  it('scores an empty summary with no other input as 0', () => {
    expect(sessionQuality({ summary: '' })).toEqual({
      score: 0,
      depth: 0,
      decision: 0,
      linked_entries: 0,
      user_engagement: 0,
    });
    expect(sessionQuality({ summary: '   ', topics: [' ', ''], state_deltas: {} }).score).toBe(0);
  });

  it('caps at 80 with every component at 20', () => {
    const summary =
      'We decided to migrate the billing service. The plan was agreed with the team. ' +
      'Next steps are listed. The flaky test was fixed. Action items were resolved. ' +
      'x'.repeat(400);
    const q = sessionQuality({
      summary,
      topics: ['billing', 'migration', 'tests', 'ci', 'deploy', 'extra'],
      state_deltas: [{ a: 1 }, { b: 2 }, { c: 3 }],
      linked_entries: 50,
      user_turns: 1000,
    });
    expect(q).toEqual({ score: SESSION_QUALITY_MAX, depth: 20, decision: 20, linked_entries: 20, user_engagement: 20 });
  });

  it('computes each component from its formula', () => {
    const summary = 'We decided to ship on Monday. Tests pass.'; // 41 chars, 2 sentences
    const q = sessionQuality({
      summary,
      topics: ['release', 'Release', 'qa'],
      state_deltas: { version: '1.2' },
      linked_entries: 3,
      user_turns: 4,
    });
    expect(q.depth).toBe(1 + 2 + 2);
    expect(q.decision).toBe(5 + 5);
    expect(q.linked_entries).toBe(6);
    expect(q.user_engagement).toBe(8);
    expect(q.score).toBe(5 + 10 + 6 + 8);
    expect(Number.isInteger(q.score)).toBe(true);
  });

  it('saturates linked entries and user turns at 10', () => {
    expect(sessionQuality({ summary: '', linked_entries: 10 }).linked_entries).toBe(20);
    expect(sessionQuality({ summary: '', linked_entries: 9 }).linked_entries).toBe(18);
    expect(sessionQuality({ summary: '', user_turns: 10 }).user_engagement).toBe(20);
    expect(sessionQuality({ summary: '', user_turns: 9 }).user_engagement).toBe(18);
  });

  it('rewards decisions and state deltas', () => {
    const plain = sessionQuality({ summary: 'Talked about the weather.' });
    expect(plain.decision).toBe(0);
    expect(sessionQuality({ summary: 'We agreed to move the meeting.' }).decision).toBe(5);
    expect(sessionQuality({ summary: 'Talked about the weather.', state_deltas: ['a', 'b'] }).decision).toBe(10);
  });

  it('treats negative, fractional and non-finite counts safely', () => {
    const q = sessionQuality({ summary: '', linked_entries: -4, user_turns: 2.9 });
    expect(q.linked_entries).toBe(0);
    expect(q.user_engagement).toBe(4);
    expect(sessionQuality({ summary: '', user_turns: Number.POSITIVE_INFINITY }).user_engagement).toBe(0);
  });

  it('is deterministic', () => {
    const input = { summary: 'We chose Postgres. It works.', topics: ['db'], linked_entries: 2, user_turns: 3 };
    expect(sessionQuality(input)).toEqual(sessionQuality(input));
  });
});
