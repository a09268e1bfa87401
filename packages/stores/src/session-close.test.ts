import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { A, U, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

describe('SessionCloser', () => {
  it('scores and closes the open session, then saves its summary as a session_summary episode', () => {
    const open = env.stores.sessions.start(U);
    env.stores.episodes.add(U, { summary: 'worked on the parser' });
    env.clock.advance(60_000);
    const { session, episode } = env.stores.sessionCloser.close(U, { summary: 'We decided to ship the parser. Next step: docs.', topics: ['parser'] }, { origin: 'test' });
    expect(session).toMatchObject({ id: open.id, status: 'closed', topics: ['parser'] });
    // One linked entry (the episode written during the session): the summary episode is not counted.
    expect(session.quality_detail).toMatchObject({ linked_entries: 2, decision: 10 });
    expect(session.quality).toBe(session.quality_detail!.depth + 10 + 2 + session.quality_detail!.user_engagement);
    expect(episode).toMatchObject({ summary: 'We decided to ship the parser. Next step: docs.', tags: ['session_summary'] });
    expect(episode?.meta).toMatchObject({ origin: 'test', session_id: open.id });
    expect(env.stores.sessions.current(U)).toBeNull();
  });

  it('saves no episode for an empty summary', () => {
    env.stores.sessions.start(U);
    const { session, episode } = env.stores.sessionCloser.close(U, { summary: '  ' });
    expect(session.status).toBe('closed');
    expect(episode).toBeNull();
    expect(env.stores.episodes.count(U)).toBe(0);
  });

  it('with requireOpen refuses, naming session, when the scope has no open session; without, opens and closes one', () => {
    env.stores.sessions.start(A);
    expect(() => env.stores.sessionCloser.close(U, { summary: 'x' }, { requireOpen: true })).toThrow(expect.objectContaining({ field: 'session' }));
    expect(env.stores.sessions.count(U)).toBe(0);
    expect(env.stores.episodes.count(U)).toBe(0);
    expect(env.stores.sessionCloser.close(U, { summary: 'x' }).session.status).toBe('closed');
    expect(env.stores.sessions.current(A)?.status).toBe('open');
  });
});
