import { afterEach, describe, expect, it } from 'vitest';
import { hook, ManualClock, start, type TestServer } from './helpers.js';

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
