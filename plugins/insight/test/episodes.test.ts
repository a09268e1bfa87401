import { afterEach, describe, expect, it } from 'vitest';
import { dump, ManualClock, start, storesOf, thinkEpisode, toolError, USER, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const TEXTS = [
  'The staging database migrates every Tuesday night after the backup finishes.',
  'We agreed that the billing service keeps its own Postgres cluster until spring.',
  'The mobile release slipped a week because the signing certificate had expired.',
];

async function seed(clock: ManualClock): Promise<string[]> {
  const ids: string[] = [];
  for (const t of TEXTS) {
    ids.push(await thinkEpisode(s, t));
    clock.advance(1000);
  }
  return ids;
}

describe('memory_episode_list', () => {
  it('lists the episodes think wrote, newest first, a page at a time, with the total', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const ids = await seed(clock);
    const all: any = await s.call('memory_episode_list', {});
    expect(all.episodes.map((e: any) => e.id)).toEqual([...ids].reverse());
    expect(all).toMatchObject({ count: 3, total: 3, offset: 0, next_offset: null });
    expect(all.episodes[2]).toMatchObject({ id: ids[0], summary: TEXTS[0] });
    expect(Object.keys(all.episodes[0]).sort()).toEqual(['created', 'emotional_weight', 'id', 'importance', 'summary', 'tags']);
    const first: any = await s.call('memory_episode_list', { limit: 2 });
    expect(first.episodes.map((e: any) => e.id)).toEqual([ids[2], ids[1]]);
    expect(first.next_offset).toBe(2);
    const second: any = await s.call('memory_episode_list', { limit: 2, offset: first.next_offset });
    expect(second.episodes.map((e: any) => e.id)).toEqual([ids[0]]);
    expect(second).toMatchObject({ count: 1, next_offset: null, total: 3 });
    expect((await s.call('memory_episode_list', { offset: 5 }) as any).episodes).toEqual([]);
  });

  it('rejects a limit out of 1..200 or a negative offset naming the field', async () => {
    s = await start();
    for (const limit of [0, 201, 1.5]) expect((await toolError(s.call('memory_episode_list', { limit }))).field).toBe('limit');
    expect((await toolError(s.call('memory_episode_list', { offset: -1 }))).field).toBe('offset');
    expect((await toolError(s.call('memory_episode_list', { layer: 'team' }))).field).toBe('layer');
    expect((await toolError(s.call('memory_episode_list', { user_id: '../x' }))).field).toBe('user_id');
  });

  it('keeps layers and user_ids apart', async () => {
    s = await start();
    await thinkEpisode(s, TEXTS[0]);
    await thinkEpisode(s, TEXTS[1], { user_id: 'bob' });
    expect(((await s.call('memory_episode_list', {})) as any).episodes.map((e: any) => e.summary)).toEqual([TEXTS[0]]);
    expect(((await s.call('memory_episode_list', { user_id: 'bob' })) as any).episodes.map((e: any) => e.summary)).toEqual([TEXTS[1]]);
    expect(((await s.call('memory_episode_list', { layer: 'agent' })) as any)).toMatchObject({ episodes: [], total: 0 });
  });
});

describe('memory_episode_get', () => {
  it('fetches an episode by the id think reported, without recording an access', async () => {
    s = await start();
    const id = await thinkEpisode(s, TEXTS[0]);
    const before = dump(s, 'episodes') + dump(s, 'recall_events');
    const got: any = await s.call('memory_episode_get', { episode_id: id });
    expect(got.episode).toMatchObject({ id, summary: TEXTS[0] });
    expect(dump(s, 'episodes') + dump(s, 'recall_events')).toBe(before);
  });

  it('names episode_id for a malformed id, an unknown one, or one of another layer or user_id', async () => {
    s = await start();
    const id = await thinkEpisode(s, TEXTS[0]);
    for (const bad of ['12', 'ep_', 'ep_x', 'node_1', 'ep_0', '']) {
      expect((await toolError(s.call('memory_episode_get', { episode_id: bad }))).field, bad).toBe('episode_id');
    }
    const unknown = await toolError(s.call('memory_episode_get', { episode_id: 'ep_999' }));
    expect(unknown).toMatchObject({ field: 'episode_id' });
    expect(unknown.message).toContain('ep_999');
    expect((await toolError(s.call('memory_episode_get', { episode_id: id, layer: 'agent' }))).field).toBe('episode_id');
    expect((await toolError(s.call('memory_episode_get', { episode_id: id, user_id: 'bob' }))).field).toBe('episode_id');
  });
});

describe('memory_episode_recall', () => {
  it('filters by faceted tags: one dimension any of, different dimensions all of', async () => {
    s = await start();
    const ep = storesOf(s).episodes;
    const a = ep.add(USER, { summary: 'a', tags: ['project:alpha', 'mood:calm'] }).id;
    const b = ep.add(USER, { summary: 'b', tags: ['project:beta', 'mood:calm'] }).id;
    const c = ep.add(USER, { summary: 'c', tags: ['project:alpha', 'mood:tense'] }).id;
    const d = ep.add(USER, { summary: 'd', tags: ['dream_skill'] }).id;
    ep.add({ layer: 'user', user_id: 'bob' }, { summary: 'bob', tags: ['project:alpha', 'mood:calm'] });
    const ids = async (args: Record<string, unknown>) => ((await s.call('memory_episode_recall', args)) as any).episodes.map((e: any) => e.id);
    expect(await ids({})).toEqual([d, c, b, a]);
    expect(await ids({ tag: 'dream_skill' })).toEqual([d]);
    expect(await ids({ tag: ['project:alpha', 'project:beta'] })).toEqual([c, b, a]);
    expect(await ids({ tag: ['project:alpha', 'project:beta', 'mood:calm'] })).toEqual([b, a]);
    expect(await ids({ tag: ['project:alpha', 'mood:calm'] })).toEqual([a]);
    expect(await ids({ tag: ['project:gamma'] })).toEqual([]);
    expect(await ids({ tag: 'project:alpha', layer: 'agent' })).toEqual([]);
    const paged: any = await s.call('memory_episode_recall', { tag: ['mood:calm', 'mood:tense'], limit: 2 });
    expect(paged).toMatchObject({ count: 2, next_offset: 2 });
    expect(await ids({ tag: ['mood:calm', 'mood:tense'], limit: 2, offset: 2 })).toEqual([a]);
  });

  it('answers the total of matching episodes on every page, as memory_episode_list does', async () => {
    s = await start();
    const ep = storesOf(s).episodes;
    for (let i = 0; i < 5; i++) ep.add(USER, { summary: `e${i}`, tags: [i % 2 ? 'area:backend' : 'area:frontend'] });
    ep.add({ layer: 'user', user_id: 'bob' }, { summary: 'bob', tags: ['area:backend'] });
    const first: any = await s.call('memory_episode_recall', { tag: 'area:frontend', limit: 2 });
    expect(first).toMatchObject({ count: 2, next_offset: 2, total: 3 });
    expect(await s.call('memory_episode_recall', { tag: 'area:frontend', limit: 2, offset: 2 })).toMatchObject({ count: 1, next_offset: null, total: 3 });
    expect(await s.call('memory_episode_recall', {})).toMatchObject({ count: 5, total: 5 });
    expect(await s.call('memory_episode_recall', { tag: 'none' })).toMatchObject({ count: 0, total: 0 });
    const tool = (await s.client.listTools()).tools.find((t) => t.name === 'memory_episode_recall');
    expect((tool?.outputSchema as { required?: string[] }).required).toContain('total');
  });

  it('finds the session summaries memory_hook session_ended writes', async () => {
    s = await start();
    await s.call('memory_hook', { event: 'session_started', payload: {} });
    const ended: any = await s.call('memory_hook', { event: 'session_ended', payload: { summary: 'We moved billing to Postgres.' } });
    await thinkEpisode(s, TEXTS[0]);
    const r: any = await s.call('memory_episode_recall', { tag: 'session_summary' });
    expect(r.episodes.map((e: any) => e.id)).toEqual([ended.results['@memory-service/plugin-primitives'].episode_id]);
  });

  it('rejects a bad tag filter naming tag', async () => {
    s = await start();
    expect((await toolError(s.call('memory_episode_recall', { tag: '' }))).field).toBe('tag');
    expect((await toolError(s.call('memory_episode_recall', { tag: [1] }))).field).toBe('tag.0');
    expect((await toolError(s.call('memory_episode_recall', { tag: 'x'.repeat(201) }))).field).toBe('tag');
  });
});
