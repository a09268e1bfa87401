import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, start, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const hook = (event: string, payload: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Promise<any> =>
  s.call('memory_hook', { event, payload, ...extra });

describe('memory_session_list', () => {
  it('lists the sessions memory_hook opened and closed, newest first, with state, times, summary, topics and quality', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    await hook('session_started');
    clock.advance(60_000);
    const ended = await hook('session_ended', { summary: 'We moved billing to Postgres.', topics: ['billing', 'db'] });
    const closedId = ended.results['@memory-service/plugin-primitives'].session_id;
    clock.advance(60_000);
    await hook('session_started');
    const r: any = await s.call('memory_session_list', {});
    expect(r).toMatchObject({ count: 2, total: 2, offset: 0, next_offset: null });
    const [open, closed] = r.sessions;
    expect(open).toMatchObject({ state: 'open', ended: null, summary: null, topics: [], quality: null });
    expect(open.id).toMatch(/^sess_\d+$/);
    expect(closed).toMatchObject({ id: closedId, state: 'closed', summary: 'We moved billing to Postgres.', topics: ['billing', 'db'] });
    expect(closed.quality).toBe(ended.results['@memory-service/plugin-primitives'].quality);
    expect(closed.quality).toBeGreaterThanOrEqual(0);
    expect(closed.quality).toBeLessThanOrEqual(80);
    expect(Date.parse(closed.ended) - Date.parse(closed.started)).toBe(60_000);
    const paged: any = await s.call('memory_session_list', { limit: 1 });
    expect(paged.sessions.map((x: any) => x.id)).toEqual([open.id]);
    expect(paged.next_offset).toBe(1);
    expect(((await s.call('memory_session_list', { limit: 1, offset: 1 })) as any).sessions.map((x: any) => x.id)).toEqual([closedId]);
  });

  it('keeps layers and user_ids apart, and names a bad limit', async () => {
    s = await start();
    await hook('session_started', {}, { user_id: 'bob' });
    expect(((await s.call('memory_session_list', {})) as any).sessions).toEqual([]);
    expect(((await s.call('memory_session_list', { user_id: 'bob' })) as any).count).toBe(1);
    expect(((await s.call('memory_session_list', { user_id: 'bob', layer: 'agent' })) as any).count).toBe(0);
    expect((await toolError(s.call('memory_session_list', { limit: 500 }))).field).toBe('limit');
  });
});
