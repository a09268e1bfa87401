import { afterEach, describe, expect, it } from 'vitest';
import { dump, ManualClock, start, storesOf, toolError, USER, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const r = async (args: Record<string, unknown>): Promise<any> => s.call('memory_reflect', args);

describe('memory_reflect', () => {
  it('writes a deterministic reflection over period_hours (default 24), stores it, and lists the recent ones with a topic filter', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const st = storesOf(s);
    st.facts.upsert(USER, { key: 'old', value: 'An old staging note', importance: 0.5 });
    clock.advance(30 * 3600_000);
    st.facts.upsert(USER, { key: 'deploy', value: 'Deploys go out on Fridays', importance: 0.6 });
    st.episodes.add(USER, { summary: 'The deploy to staging failed twice', tags: ['ops', 'env:staging'] });
    st.episodes.add(USER, { summary: 'Fixed the deploy script', tags: ['ops'] });
    st.episodes.add({ layer: 'user', user_id: 'bob' }, { summary: 'Bob deploy deploy deploy', tags: ['bob'] });
    await s.call('dream', { query: 'deploy staging' });
    st.flush();
    clock.advance(1000);
    const w = await r({ action: 'write' });
    expect(w.action).toBe('write');
    const refl = w.reflection;
    expect(refl).toMatchObject({ id: expect.stringMatching(/^refl_\d+$/), topic: null, period_hours: 24 });
    expect(refl.counts).toEqual({ facts: 1, episodes: 2, wiki_pages: 0, graph_nodes: 0, events: 0, sessions_closed: 0, recalls: 1 });
    expect(refl.top_tags).toEqual([{ tag: 'ops', count: 2 }, { tag: 'env:staging', count: 1 }]);
    expect(refl.most_recalled.length).toBeGreaterThan(0);
    expect(refl.most_recalled.every((m: any) => m.access_count >= 1)).toBe(true);
    expect(refl.recurring_terms[0]).toEqual({ term: 'deploy', records: 4 });
    expect(refl.summary).toContain('1 new facts, 2 new episodes');
    // Deterministic: the same data and clock give the same figures.
    const again = (await r({ action: 'write' })).reflection;
    expect({ ...again, id: 0 }).toEqual({ ...refl, id: 0 });
    // A longer period and a topic.
    expect((await r({ action: 'write', period_hours: 48 })).reflection.counts.facts).toBe(2);
    const topical = (await r({ action: 'write', topic: 'Staging' })).reflection;
    expect(topical).toMatchObject({ topic: 'Staging', counts: { facts: 0, episodes: 1, recalls: 1 } });
    // list: newest first, topic filter ignoring case, limit, per scope.
    const all = await r({ action: 'list' });
    expect(all.count).toBe(4);
    expect(all.reflections[0].id).toBe(topical.id);
    expect(all.reflections[3]).toEqual(refl);
    expect((await r({ action: 'list', topic: 'staging' })).reflections.map((x: any) => x.id)).toEqual([topical.id]);
    expect((await r({ action: 'list', topic: 'nothing' })).reflections).toEqual([]);
    expect((await r({ action: 'list', limit: 2 })).count).toBe(2);
    expect((await r({ action: 'list', user_id: 'bob' })).reflections).toEqual([]);
    const bob = (await r({ action: 'write', user_id: 'bob' })).reflection;
    expect(bob.counts.episodes).toBe(1);
    expect((await r({ action: 'list', layer: 'agent' })).count).toBe(0);
  });

  it('list by topic ignores case beyond ASCII, NFC or NFD and accents, and takes the whole topic', async () => {
    s = await start();
    const cafe = (await r({ action: 'write', topic: 'Caf\u00e9' })).reflection;
    await r({ action: 'write', topic: 'Caf\u00e9 Noir' });
    const ist = (await r({ action: 'write', topic: '\u0130stanbul' })).reflection;
    const ids = async (topic: string) => (await r({ action: 'list', topic })).reflections.map((x: any) => x.id);
    expect(await ids('CAF\u00c9')).toEqual([cafe.id]);
    expect(await ids('cafe\u0301')).toEqual([cafe.id]);
    expect(await ids('ISTANBUL')).toEqual([ist.id]);
    expect(await ids('Caf')).toEqual([]);
  });

  it('counts the recalls of the dreams answered a moment ago, whose telemetry is still queued', async () => {
    s = await start();
    await s.call('think', { text: 'Deploys go out on Fridays after the review.' });
    for (let i = 0; i < 3; i++) await s.call('dream', { query: `deploy ${i}` });
    expect((await r({ action: 'write' })).reflection.counts.recalls).toBe(3);
  });

  it('names the field of a bad period_hours, topic, limit or action, storing nothing', async () => {
    s = await start();
    const field = async (args: Record<string, unknown>) => (await toolError(r(args))).field;
    expect(await field({ action: 'write', period_hours: 0 })).toBe('period_hours');
    expect(await field({ action: 'write', period_hours: 8761 })).toBe('period_hours');
    expect(await field({ action: 'write', period_hours: 1.5 })).toBe('period_hours');
    expect(await field({ action: 'write', topic: '' })).toBe('topic');
    expect(await field({ action: 'write', topic: '   ' })).toBe('topic');
    expect(await field({ action: 'write', topic: 'x'.repeat(201) })).toBe('topic');
    expect(await field({ action: 'list', limit: 51 })).toBe('limit');
    expect(await field({ action: 'think' })).toBe('action');
    expect(dump(s, 'reflections')).toBe('[]');
    expect((await r({ action: 'write', period_hours: 8760 })).reflection.summary).toContain('Nothing was recorded');
  });
});
