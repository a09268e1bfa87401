import { afterEach, describe, expect, it } from 'vitest';
import { dump, ManualClock, start, storesOf, thinkEpisode, toolError, USER, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const q = async (args: Record<string, unknown>): Promise<any> => s.call('memory_query', args);

/** Four user facts a second apart and one of bob, written through the stores (importance varies), plus evolve's agent fact. */
async function seedFacts(clock: ManualClock) {
  const facts = storesOf(s).facts;
  const out = [];
  for (const [key, value, importance] of [
    ['pref:editor', 'Uses Vim at work', 0.9],
    ['pref:shell', 'Uses zsh, 100% of the time', 0.4],
    ['home', 'Lives in Lisbon', 0.7],
    ['a_b', 'underscore key', 0.2],
  ] as const) {
    out.push(facts.upsert(USER, { key, value, importance }));
    clock.advance(1000);
  }
  facts.upsert({ layer: 'user', user_id: 'bob' }, { key: 'pref:editor', value: 'Uses Emacs', importance: 0.9 });
  await s.call('evolve', { instruction: 'Uses short answers.' });
  return out;
}

describe('memory_query over core memory', () => {
  it('filters by importance, key and value substrings and created range, newest first, paged with a total, recording no access', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const [editor, shell, home] = await seedFacts(clock);
    const before = dump(s, 'facts') + dump(s, 'recall_events');
    const keys = async (args: Record<string, unknown>) => (await q(args)).facts.map((f: any) => f.key);
    const all = await q({});
    expect(all).toMatchObject({ target: 'core', episodes: [], count: 4, total: 4, offset: 0, next_offset: null });
    expect(all.facts.map((f: any) => f.key)).toEqual(['a_b', 'home', 'pref:shell', 'pref:editor']);
    expect(all.facts[3]).toMatchObject({ entry_id: editor.entry_id, value: 'Uses Vim at work', importance: 0.9, source: 'manual' });
    expect(await keys({ importance_min: 0.5 })).toEqual(['home', 'pref:editor']);
    expect(await keys({ importance_min: 0.4, importance_max: 0.7 })).toEqual(['home', 'pref:shell']);
    expect(await keys({ key_like: 'PREF:' })).toEqual(['pref:shell', 'pref:editor']);
    expect(await keys({ content_like: 'uses' })).toEqual(['pref:shell', 'pref:editor']);
    expect(await keys({ content_like: '100%' })).toEqual(['pref:shell']);
    expect(await keys({ key_like: '_' })).toEqual(['a_b']);
    expect(await keys({ created_since: shell.created, created_until: home.created })).toEqual(['home', 'pref:shell']);
    expect(await keys({ created_until: '2000-01-01' })).toEqual([]);
    const page = await q({ limit: 2, offset: 1 });
    expect(page).toMatchObject({ count: 2, total: 4, next_offset: 3 });
    expect((await q({ limit: 2, offset: 3 })).next_offset).toBeNull();
    expect(await keys({ user_id: 'bob' })).toEqual(['pref:editor']);
    expect((await q({ layer: 'agent' })).facts.map((f: any) => f.value)).toEqual(['Uses short answers.']);
    expect(dump(s, 'facts') + dump(s, 'recall_events')).toBe(before);
  });

  it('keeps user input out of the SQL', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    await seedFacts(clock);
    for (const text of ["' OR 1=1 --", "%' OR key LIKE '%", "x'); DROP TABLE facts; --", '\\']) {
      expect((await q({ key_like: text })).total, text).toBe(0);
      expect((await q({ content_like: text })).total, text).toBe(0);
    }
    expect((await q({})).total).toBe(4);
  });
});

describe('memory_query over episodes', () => {
  it('filters episodes by summary substring, importance, time and faceted tags', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const thought = await thinkEpisode(s, 'The staging database migrates every Tuesday night after the backup finishes.');
    clock.advance(1000);
    const ep = storesOf(s).episodes;
    const a = ep.add(USER, { summary: 'Hiked the ridge', importance: 0.8, tags: ['place:alps', 'mood:calm'] });
    clock.advance(1000);
    const b = ep.add(USER, { summary: 'Hiked the coast', importance: 0.3, tags: ['place:coast', 'mood:calm'] });
    ep.add({ layer: 'agent', user_id: 'default' }, { summary: 'Hiked as agent', tags: ['place:alps'] });
    const ids = async (args: Record<string, unknown>) => (await q({ target: 'episodes', ...args })).episodes.map((e: any) => e.id);
    const all = await q({ target: 'episodes' });
    expect(all).toMatchObject({ target: 'episodes', facts: [], total: 3 });
    expect(all.episodes.map((e: any) => e.id)).toEqual([b.id, a.id, thought]);
    expect(await ids({ content_like: 'HIKED' })).toEqual([b.id, a.id]);
    expect(await ids({ content_like: 'tuesday night' })).toEqual([thought]);
    expect(await ids({ importance_min: 0.75 })).toEqual([a.id]);
    expect(await ids({ created_since: a.created })).toEqual([b.id, a.id]);
    expect(await ids({ tag: ['place:alps', 'place:coast'] })).toEqual([b.id, a.id]);
    expect(await ids({ tag: ['place:alps', 'place:coast', 'mood:calm'], content_like: 'ridge' })).toEqual([a.id]);
    expect(await ids({ tag: 'place:alps', layer: 'agent' })).toHaveLength(1);
    expect(await ids({ tag: 'place:alps', user_id: 'bob' })).toEqual([]);
  });
});

describe('memory_query errors', () => {
  it('names the field at fault and what it accepts', async () => {
    s = await start();
    const field = async (args: Record<string, unknown>) => (await toolError(q(args))).field;
    expect(await field({ target: 'wiki' })).toBe('target');
    expect(await field({ limit: 201 })).toBe('limit');
    expect(await field({ limit: 0 })).toBe('limit');
    expect(await field({ offset: -1 })).toBe('offset');
    expect(await field({ importance_min: 1.5 })).toBe('importance_min');
    expect(await field({ importance_max: -1 })).toBe('importance_max');
    expect(await field({ importance_min: 0.9, importance_max: 0.1 })).toBe('importance_min');
    expect(await field({ key_like: '' })).toBe('key_like');
    expect(await field({ content_like: 'x'.repeat(501) })).toBe('content_like');
    expect(await field({ target: 'episodes', key_like: 'x' })).toBe('key_like');
    expect(await field({ tag: 'x' })).toBe('tag');
    const since = await toolError(q({ created_since: 'last week' }));
    expect(since.field).toBe('created_since');
    expect(JSON.stringify(since.accepted)).toContain('ISO 8601');
    expect(await field({ created_until: '2026-02-30' })).toBe('created_until');
    expect(await field({ created_since: '2026-03-01', created_until: '2026-02-01T00:00:00Z' })).toBe('created_since');
    // A bound past 9999-12-31 once in UTC is refused, naming its field and the range.
    for (const f of ['created_since', 'created_until']) {
      const e = await toolError(q({ [f]: '9999-12-31T23:30:00-01:00' }));
      expect(e.field).toBe(f);
      expect(e.message).toContain('9999-12-31T23:59:59.999Z');
    }
  });

  it('reads a date-only created_until as the whole day, and the RFC 3339 variants as their Z form', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 31, 15, 0));
    s = await start({ clock });
    await s.call('think', { text: 'I prefer green tea in the afternoon.' });
    const total = async (args: Record<string, unknown>) => (await q({ target: 'episodes', ...args })).total;
    expect(await total({})).toBe(1);
    expect(await total({ created_since: '2026-01-31', created_until: '2026-01-31' })).toBe(1);
    expect(await total({ created_until: '2026-01-30' })).toBe(0);
    expect(await total({ created_since: '2026-01-31 15:00:00z' })).toBe(1);
    expect(await total({ created_since: '2026-01-31t17:00:00+02' })).toBe(1);
    expect(await total({ created_until: '2026-01-31T14:59:59Z' })).toBe(0);
  });
});

describe('text forms in memory_query and memory_episode_recall (audit R)', () => {
  it('key_like sent decomposed finds the key stored in NFC', async () => {
    s = await start();
    storesOf(s).facts.upsert(USER, { key: 'caf\u00e9 order', value: 'flat white', importance: 0.5 });
    for (const key_like of ['cafe\u0301', 'caf\u00e9']) expect((await q({ key_like })).facts.map((f: any) => f.key), JSON.stringify(key_like)).toEqual(['caf\u00e9 order']);
  });

  it('memory_episode_recall and memory_query find an episode by its tag in either spelling', async () => {
    s = await start();
    const ep = storesOf(s).episodes.add(USER, { summary: 'tagged', tags: ['caf\u00e9'] });
    for (const tag of ['cafe\u0301', 'caf\u00e9']) {
      expect((await s.call('memory_episode_recall', { tag })).episodes.map((e: any) => e.id), JSON.stringify(tag)).toEqual([ep.id]);
      expect((await q({ target: 'episodes', tag })).episodes.map((e: any) => e.id), JSON.stringify(tag)).toEqual([ep.id]);
    }
  });
});
