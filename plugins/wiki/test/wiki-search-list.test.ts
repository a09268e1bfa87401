import { afterEach, describe, expect, it } from 'vitest';
import { add, ManualClock, start, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

describe('wiki_search', () => {
  it('finds pages by title and content, best first, with an excerpt; type filter and limit apply', async () => {
    s = await start();
    await add(s, 'Sourdough', 'Feed the starter twice a day; the sourdough loaf needs a long proof.', { tags: ['baking'] });
    await add(s, 'Bread likes', 'Prefers rye to sourdough.', { wiki_type: 'preferences' });
    await add(s, 'Unrelated', 'The bike needs new brakes.');
    // A fact with the word is not a wiki page.
    await s.call('think', { text: 'sourdough', layer: 'user' });
    const r = await s.call('wiki_search', { query: 'sourdough' });
    expect(r.query).toBe('sourdough');
    expect(r.results.map((h: any) => h.title)).toEqual(['Sourdough', 'Bread likes']);
    expect(r.count).toBe(2);
    expect(r.results[0]).toMatchObject({ wiki_type: 'diary', tags: ['baking'], path: 'wiki/user/default/diary/sourdough.md', score: expect.any(Number) });
    expect(r.results[0].excerpt).toContain('sourdough loaf');
    expect((await s.call('wiki_search', { query: 'sourdough', wiki_type: 'preferences' })).results.map((h: any) => h.title)).toEqual(['Bread likes']);
    expect((await s.call('wiki_search', { query: 'sourdough', limit: 1 })).count).toBe(1);
    expect((await s.call('wiki_search', { query: 'the' })).count).toBe(0);
  });

  it('puts the excerpt around the query word as the page writes it, when the query folds it (accents, Hangul)', async () => {
    s = await start();
    const filler = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(6);
    await add(s, 'Trip', `${filler}Im Mai fahren wir nach München zum Konzert.`);
    await add(s, 'Travel', `${filler}우리는 부산에 기차로 갔다.`);
    expect((await s.call('wiki_search', { query: 'München' })).results[0].excerpt).toMatch(/^….*München zum Konzert/);
    expect((await s.call('wiki_search', { query: '부산에' })).results[0].excerpt).toMatch(/^….*부산에 기차로/);
  });

  // Regression guard, fixed: the page was found through a spelling retrieval also indexes, and the
  // excerpt, which looked for the query's words as written, showed the page's start.
  it('puts the excerpt where the match is when the page writes it another way (joined, split, grouped)', async () => {
    s = await start();
    const filler = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(6);
    await add(s, 'Client code', `${filler}The retry logic lives in fetchUserProfile, next to the cache.`);
    await add(s, 'Snake code', `${filler}The old handler was fetch_user_profile in the v1 module.`);
    await add(s, 'Costs', `${filler}Our AWS bill was $12,400 in October.`);
    const excerpt = async (query: string, title: string) =>
      ((await s.call('wiki_search', { query })).results.find((h: any) => h.title === title) ?? { excerpt: `no page ${title}` }).excerpt;
    expect(await excerpt('fetch user profile', 'Client code')).toMatch(/^….*fetchUserProfile, next to/);
    expect(await excerpt('fetchuserprofile', 'Snake code')).toMatch(/^….*fetch_user_profile in the v1/);
    expect(await excerpt('12400', 'Costs')).toMatch(/^….*\$12,400 in October/);
  });

  it('refuses bad input naming the field', async () => {
    s = await start();
    for (const query of ['', '   ', '\u200b\u2060']) expect((await toolError(s.call('wiki_search', { query }))).field).toBe('query');
    expect((await toolError(s.call('wiki_search', {}))).field).toBe('query');
    const t = await toolError(s.call('wiki_search', { query: 'x', wiki_type: 'blog' }));
    expect(t.field).toBe('wiki_type');
    expect(t.accepted).toEqual(expect.arrayContaining(['diary']));
    expect((await toolError(s.call('wiki_search', { query: 'x', limit: 0 }))).field).toBe('limit');
    expect((await toolError(s.call('wiki_search', { query: 'x', limit: 51 }))).field).toBe('limit');
  });
});

describe('wiki_list', () => {
  it('lists newest first, pages through with limit and offset, filters by type', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    for (let i = 0; i < 5; i++) {
      clock.advance(1000);
      await add(s, `Day ${i}`, `entry ${i}`);
    }
    clock.advance(1000);
    await add(s, 'Likes', 'tea', { wiki_type: 'preferences' });
    const all = await s.call('wiki_list', {});
    expect(all.pages.map((p: any) => p.title)).toEqual(['Likes', 'Day 4', 'Day 3', 'Day 2', 'Day 1', 'Day 0']);
    expect(all).toMatchObject({ count: 6, total: 6, offset: 0, next_offset: null });
    expect(all.pages[0]).not.toHaveProperty('content');
    const one = await s.call('wiki_list', { wiki_type: 'diary', limit: 2 });
    expect(one).toMatchObject({ count: 2, total: 5, next_offset: 2 });
    const two = await s.call('wiki_list', { wiki_type: 'diary', limit: 2, offset: one.next_offset });
    expect(two.pages.map((p: any) => p.title)).toEqual(['Day 2', 'Day 1']);
    const last = await s.call('wiki_list', { wiki_type: 'diary', limit: 2, offset: 4 });
    expect(last).toMatchObject({ count: 1, next_offset: null });
    expect(await s.call('wiki_list', { offset: 10 })).toMatchObject({ pages: [], count: 0, total: 6, next_offset: null });
  });

  it('refuses bad input naming the field', async () => {
    s = await start();
    expect((await toolError(s.call('wiki_list', { wiki_type: 'x' }))).field).toBe('wiki_type');
    expect((await toolError(s.call('wiki_list', { limit: 201 }))).field).toBe('limit');
    expect((await toolError(s.call('wiki_list', { offset: -1 }))).field).toBe('offset');
  });
});

describe('layers and user_ids', () => {
  it('never see each other\'s pages, and the same title lives apart in each space', async () => {
    s = await start();
    await add(s, 'Shared title', 'user default walrus');
    await add(s, 'Shared title', 'user bob walrus', { user_id: 'bob' });
    await add(s, 'Shared title', 'agent walrus', { layer: 'agent', wiki_type: 'decision_log' });
    for (const [scope, text] of [
      [{}, 'user default walrus'],
      [{ user_id: 'bob' }, 'user bob walrus'],
      [{ layer: 'agent' }, 'agent walrus'],
    ] as const) {
      const list = await s.call('wiki_list', scope);
      expect(list.total).toBe(1);
      const found = await s.call('wiki_search', { query: 'walrus', ...scope });
      expect(found.results.map((h: any) => h.excerpt)).toEqual([text]);
      expect((await s.call('wiki_read', { path: list.pages[0].path, ...scope })).page.content).toBe(text);
    }
    await s.call('wiki_delete', { title: 'Shared title', user_id: 'bob' });
    expect((await s.call('wiki_list', {})).total).toBe(1);
    expect((await s.call('wiki_list', { layer: 'agent' })).total).toBe(1);
    expect((await toolError(s.call('wiki_link', { action: 'list', title: 'Shared title', user_id: 'bob' }))).field).toBe('title');
  });
});
