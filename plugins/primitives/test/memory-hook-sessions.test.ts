import { afterEach, describe, expect, it } from 'vitest';
import { count, hook, ManualClock, snapshot, start, type TestServer } from './helpers.js';

/** memory_hook session_started / session_ended: the L2 session each closes and the score stored on it. */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

/** The stored quality components of a session. */
function qualityDetail(s: TestServer, sessionId: string): { linked_entries: number; score: number } {
  const row = s.kernel.storage.db.prepare('SELECT quality_detail FROM sessions WHERE id = ?').get(Number(sessionId.split('_')[1])) as { quality_detail: string };
  return JSON.parse(row.quality_detail);
}

describe('session quality', () => {
  it("the summary episode session_ended writes is not counted as an entry linked to the session it closes", async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    await hook(s, 'session_started');
    const quiet = await hook(s, 'session_ended', { summary: 'Nothing happened.' });
    expect(qualityDetail(s, quiet.session_id).linked_entries).toBe(0);

    clock.advance(1000);
    await hook(s, 'session_started');
    await s.call('think', { text: 'The staging database moved to a new host in the Frankfurt region last week.', layer: 'user' });
    const busy = await hook(s, 'session_ended', { summary: 'Moved staging.' });
    // One episode written during the session: 2 points, not 4.
    expect(qualityDetail(s, busy.session_id).linked_entries).toBe(2);
  });
});

describe('session_ended fired again', () => {
  const payload = { summary: 'We moved the billing service to Postgres.', topics: ['billing'], state_deltas: { db: 'postgres' } };

  it('with no session open, the same summary, topics and state_deltas within 10 minutes answers already saved and writes nothing', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    await hook(s, 'session_started');
    const first = await hook(s, 'session_ended', payload);
    const before = snapshot(s);
    const sessions = count(s, 'sessions');
    clock.advance(9 * 60_000);
    const again = await hook(s, 'session_ended', payload);
    expect(again).toMatchObject({ saved: true, already_saved: true, episode_id: first.episode_id, session_id: first.session_id, quality: first.quality });
    expect(again.reason).toContain(first.session_id);
    expect(snapshot(s)).toEqual(before);
    expect(count(s, 'sessions')).toBe(sessions);
    const brief = (await s.call('wake_up', {})) as { brief: string };
    expect(brief.brief.split(payload.summary).length - 1).toBe(1);
  });

  it('a session that ended after now (the clock stepped back) is not a recent one: the summary is saved again', async () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 29, 1, 30));
    s = await start({ clock });
    await hook(s, 'session_started');
    const first = await hook(s, 'session_ended', payload);
    clock.set(Date.UTC(2026, 2, 29, 0, 30)); // an NTP correction: back by an hour
    const again = await hook(s, 'session_ended', payload);
    expect(again.already_saved).toBeUndefined();
    expect(again.session_id).not.toBe(first.session_id);
    expect(again.episode_id).not.toBe(first.episode_id);
    clock.advance(60_000);
    expect(await hook(s, 'session_ended', payload)).toMatchObject({ already_saved: true, session_id: again.session_id, episode_id: again.episode_id });
  });

  it('after 10 minutes, with other topics or state_deltas, or once a new session is open, it closes a session of its own', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    await hook(s, 'session_started');
    const first = await hook(s, 'session_ended', payload);
    const other = [
      { ...payload, topics: ['billing', 'db'] },
      { ...payload, state_deltas: { db: 'mysql' } },
    ];
    const ids = [first.session_id];
    for (const p of other) {
      const r = await hook(s, 'session_ended', p);
      expect(r.already_saved, JSON.stringify(p)).toBeUndefined();
      ids.push(r.session_id);
    }
    clock.advance(10 * 60_000 + 1);
    ids.push((await hook(s, 'session_ended', other[1]!)).session_id);
    await hook(s, 'session_started');
    ids.push((await hook(s, 'session_ended', other[1]!)).session_id);
    expect(new Set(ids).size).toBe(5);
  });
});
