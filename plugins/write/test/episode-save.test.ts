import { afterEach, describe, expect, it } from 'vitest';
import { start, storesOf, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

describe('memory_episode_save', () => {
  it('saves an episode with its weight, faceted tags and importance, and returns it', async () => {
    s = await start();
    const r: any = await s.call('memory_episode_save', {
      summary: '  Shipped the importer after a long debugging night  ',
      emotional_weight: 0.8,
      tags: ['project:atlas', 'mood:relieved', 'release', 'release'],
      importance: 0.9,
    });
    expect(r.episode).toMatchObject({
      summary: 'Shipped the importer after a long debugging night',
      emotional_weight: 0.8,
      importance: 0.9,
      tags: ['project:atlas', 'mood:relieved', 'release'],
    });
    expect(r.episode.id).toMatch(/^ep_\d+$/);
    const stored = storesOf(s).episodes.get({ layer: 'user', user_id: 'default' }, r.episode.id);
    expect(stored?.meta).toMatchObject({ origin: 'memory_episode_save' });
    const byTags = (tag: string[]) => storesOf(s).episodes.list({ layer: 'user', user_id: 'default' }, { tag }).map((e) => e.id);
    expect(byTags(['project:atlas', 'project:other', 'mood:relieved'])).toEqual([r.episode.id]);
    expect(byTags(['project:atlas', 'mood:calm'])).toEqual([]);
  });

  it('defaults the weight to 0 and scores the importance from the summary', async () => {
    s = await start();
    const plain: any = await s.call('memory_episode_save', { summary: 'ok' });
    const strong: any = await s.call('memory_episode_save', { summary: 'Important: we decided to always deploy on Fridays; remember this critical rule' });
    expect(plain.episode).toMatchObject({ emotional_weight: 0, tags: [] });
    expect(strong.episode.importance).toBeGreaterThan(plain.episode.importance);
  });

  it('writes only to the layer and user_id asked for', async () => {
    s = await start();
    const r: any = await s.call('memory_episode_save', { summary: 'agent lesson', layer: 'agent', user_id: 'bob' });
    const st = storesOf(s).episodes;
    expect(st.get({ layer: 'agent', user_id: 'bob' }, r.episode.id)).not.toBeNull();
    expect(st.get({ layer: 'user', user_id: 'bob' }, r.episode.id)).toBeNull();
    expect(st.count({ layer: 'agent', user_id: 'default' })).toBe(0);
  });

  it('names the field of bad input and writes nothing', async () => {
    s = await start();
    expect((await toolError(s.call('memory_episode_save', { summary: '   ' }))).field).toBe('summary');
    expect((await toolError(s.call('memory_episode_save', {}))).field).toBe('summary');
    expect((await toolError(s.call('memory_episode_save', { summary: 'x', emotional_weight: 1.5 }))).field).toBe('emotional_weight');
    expect((await toolError(s.call('memory_episode_save', { summary: 'x', importance: -0.1 }))).field).toBe('importance');
    expect((await toolError(s.call('memory_episode_save', { summary: 'x', tags: 'solo' }))).field).toBe('tags');
    expect((await toolError(s.call('memory_episode_save', { summary: 'x', tags: ['project:'] }))).field).toBe('tags');
    expect((await toolError(s.call('memory_episode_save', { summary: 'x', layer: 'team' }))).field).toBe('layer');
    expect(storesOf(s).episodes.count({ layer: 'user', user_id: 'default' })).toBe(0);
  });

  it('refuses a tag holding a line break or other control character, naming it; a tag of zero-width characters alone is dropped', async () => {
    s = await start();
    const before = storesOf(s).episodes.count({ layer: 'user', user_id: 'default' });
    for (const tag of ['ok\n## Forged heading', 'esc\u001b[31m']) {
      const e = await toolError(s.call('memory_episode_save', { summary: 'A note with a bad tag', tags: ['fine', tag] }));
      expect(e.field).toBe('tags.1');
    }
    expect(storesOf(s).episodes.count({ layer: 'user', user_id: 'default' })).toBe(before);
    const r: any = await s.call('memory_episode_save', { summary: 'A note with an invisible tag', tags: ['\u200b', 'seen'] });
    expect(r.episode.tags).toEqual(['seen']);
  });
});
