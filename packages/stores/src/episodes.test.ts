import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { matchesFacets } from './tags.js';
import { A, U, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

describe('EpisodeStore', () => {
  it('cuts the neighbouring context at 1000 characters without splitting an emoji', () => {
    const context = `${'a'.repeat(999)}😀${'b'.repeat(50)}`;
    const e = env.stores.episodes.add(U, { summary: 'next thought', context });
    expect(e.context).toBe(`${'a'.repeat(999)}😀`);
    const row = env.db.prepare('SELECT context FROM episodes WHERE id = ?').get(Number(e.id.slice(3))) as { context: string };
    expect(row.context).toBe(`${'a'.repeat(999)}😀`);
  });

  it('adds, gets and isolates episodes by scope', () => {
    const e = env.stores.episodes.add(U, { summary: 'hiked the ridge', emotional_weight: 0.7, tags: ['outdoor'], importance: 0.6 });
    expect(e.id).toMatch(/^ep_\d+$/);
    expect(env.stores.episodes.get(U, e.id)?.summary).toBe('hiked the ridge');
    expect(env.stores.episodes.get(A, e.id)).toBeNull();
    expect(env.stores.episodes.get({ layer: 'user', user_id: 'other' }, e.id)).toBeNull();
    expect(env.stores.episodes.list(A)).toEqual([]);
    expect(env.stores.episodes.count(U)).toBe(1);
    expect(env.stores.audit.forTarget(e.id)[0].action).toBe('create');
  });

  it('latestWithSummary: the newest episode of the scope with exactly that summary and tag, created in the window', () => {
    const window = () => ({ tag: 'auto_save', since: new Date(env.clock.now() - 60_000).toISOString() });
    const old = env.stores.episodes.add(U, { summary: 'I moved to Lisbon', tags: ['auto_save'] });
    env.clock.advance(120_000);
    expect(env.stores.episodes.latestWithSummary(U, 'I moved to Lisbon', window())).toBeNull();
    const first = env.stores.episodes.add(U, { summary: 'I moved to Lisbon', tags: ['auto_save', 'new_message'] });
    const second = env.stores.episodes.add(U, { summary: 'I moved to Lisbon', tags: ['new_message', 'auto_save'] });
    env.stores.episodes.add(U, { summary: 'I moved to Lisbon', tags: ['think'] });
    env.stores.episodes.add(U, { summary: 'i moved to lisbon', tags: ['auto_save'] });
    env.stores.episodes.add(U, { summary: 'I moved to Lisbon ', tags: ['auto_save'] });
    env.stores.episodes.add(A, { summary: 'I moved to Lisbon', tags: ['auto_save'] });
    env.stores.episodes.add({ layer: 'user', user_id: 'other' }, { summary: 'I moved to Lisbon', tags: ['auto_save'] });
    expect(env.stores.episodes.latestWithSummary(U, 'I moved to Lisbon', window())).toEqual(env.stores.episodes.get(U, second.id));
    env.stores.episodes.delete(U, second.id);
    expect(env.stores.episodes.latestWithSummary(U, 'I moved to Lisbon', window())?.id).toBe(first.id);
    // Case and white space count; the tag is matched exactly; the window starts at since, inclusive.
    expect(env.stores.episodes.latestWithSummary(U, 'I MOVED TO LISBON', window())).toBeNull();
    expect(env.stores.episodes.latestWithSummary(U, 'I moved to Lisbon', { ...window(), tag: 'auto' })).toBeNull();
    expect(env.stores.episodes.latestWithSummary(U, 'I moved to Lisbon', { tag: 'auto_save', since: old.created })?.id).toBe(first.id);
    env.stores.episodes.delete(U, first.id);
    expect(env.stores.episodes.latestWithSummary(U, 'I moved to Lisbon', { tag: 'auto_save', since: old.created })?.id).toBe(old.id);
    expect(() => env.stores.episodes.latestWithSummary(U, 'x', { tag: 'auto_save', since: 'yesterday' })).toThrow(/since/);
  });

  // The window ends at now (StoreContext.window): an episode dated after now (the clock stepped back,
  // or an imported future date) was the "recent" save of its text, and the auto-save skipped it.
  it('latestWithSummary: an episode created after now is not in the window', () => {
    const now = env.clock.t;
    env.clock.advance(5 * 60_000);
    const ahead = env.stores.episodes.add(U, { summary: 'I moved to Lisbon', tags: ['auto_save'] });
    env.clock.t = Date.UTC(2099, 0, 1);
    env.stores.episodes.add(U, { summary: 'I moved to Porto', tags: ['auto_save'] });
    env.clock.t = now;
    const since = new Date(now - 10 * 60_000).toISOString();
    expect(env.stores.episodes.latestWithSummary(U, 'I moved to Lisbon', { tag: 'auto_save', since })).toBeNull();
    expect(env.stores.episodes.latestWithSummary(U, 'I moved to Porto', { tag: 'auto_save', since })).toBeNull();
    // Once the clock reaches its time, it is in the window again (the bound is inclusive).
    env.clock.t = Date.parse(ahead.created);
    expect(env.stores.episodes.latestWithSummary(U, 'I moved to Lisbon', { tag: 'auto_save', since })?.id).toBe(ahead.id);
  });

  it('faceted tags: same dimension OR, different dimensions AND, plain tag its own dimension', () => {
    const e1 = env.stores.episodes.add(U, { summary: 'one', tags: ['mood:happy', 'place:home'] });
    const e2 = env.stores.episodes.add(U, { summary: 'two', tags: ['mood:sad', 'place:home', 'work'] });
    const e3 = env.stores.episodes.add(U, { summary: 'three', tags: ['mood:happy', 'place:office', 'work'] });
    env.stores.episodes.add(A, { summary: 'agent', tags: ['mood:happy', 'place:home'] });
    const ids = (tag: string | string[]) => env.stores.episodes.list(U, { tag }).map((e) => e.id).sort();
    expect(ids(['mood:happy', 'mood:sad'])).toEqual([e1.id, e2.id, e3.id].sort());
    expect(ids(['mood:happy', 'place:home'])).toEqual([e1.id]);
    expect(ids(['mood:happy', 'mood:sad', 'place:home'])).toEqual([e1.id, e2.id].sort());
    expect(ids('work')).toEqual([e2.id, e3.id].sort());
    expect(ids(['work', 'mood:happy'])).toEqual([e3.id]);
    expect(ids(['nothing'])).toEqual([]);
    expect(matchesFacets(['mood:happy', 'work'], ['mood:sad', 'mood:happy', 'work'])).toBe(true);
    expect(matchesFacets(['mood:happy'], ['mood:happy', 'work'])).toBe(false);
  });

  it('lists newest first with limit and offset; deletes by id, pattern and time; touches', () => {
    const made = [];
    for (let i = 0; i < 5; i++) {
      made.push(env.stores.episodes.add(U, { summary: `episode ${i} ${i % 2 ? 'odd' : 'even'}` }));
      env.clock.advance(1000);
    }
    expect(env.stores.episodes.list(U, { limit: 2, offset: 1 }).map((e) => e.summary)).toEqual(['episode 3 odd', 'episode 2 even']);
    expect(env.stores.episodes.deleteMatching(U, 'odd').map((e) => e.id)).toEqual([made[1].id, made[3].id]);
    expect(env.stores.episodes.deleteSince(U, made[4].created)).toBe(1);
    expect(env.stores.episodes.delete(U, made[0].id)?.id).toBe(made[0].id);
    expect(env.stores.episodes.delete(U, made[0].id)).toBeNull();
    env.stores.episodes.touch([made[2].id, 'fact_1', 'garbage']);
    expect(env.stores.episodes.get(U, made[2].id)?.access_count).toBe(1);
    expect(env.stores.episodes.count(U)).toBe(1);
    const tagged = env.stores.episodes.setTags(U, made[2].id, ['skill_promoted']);
    expect(env.stores.episodes.list(U, { tag: 'skill_promoted' }).map((e) => e.id)).toEqual([tagged!.id]);
  });

  it('findMatching() matches a long thought\'s link by the thought\'s words, not the page title and path think added after them', () => {
    const path = 'wiki/user/alice/diary/thought-20260101t000000z.md';
    const link = env.stores.episodes.add(U, { summary: `Notes on the caching layer design… [wiki: Thought_20260101T000000Z (${path})]`, meta: { wiki_path: path, origin: 'think' } });
    // The user's own words in the same shape stay theirs where they are not at the end of the text.
    const said = env.stores.episodes.add(U, { summary: 'I keep my diary in wiki/user/alice/diary (private)' });
    for (const p of ['Thought_20260101T000000Z', 'thought', 'md']) expect(env.stores.episodes.findMatching(U, p), p).toEqual([]);
    for (const p of ['alice', 'diary', 'wiki', 'user']) expect(env.stores.episodes.findMatching(U, p).map((e) => e.id), p).toEqual([said.id]);
    expect(env.stores.episodes.findMatching(U, 'caching').map((e) => e.id)).toEqual([link.id]);
    expect(env.stores.episodes.deleteMatching(U, 'thought')).toEqual([]);
    expect(env.stores.episodes.count(U)).toBe(2);
  });

  it('namingWikiPath(): the episodes of the scope whose metadata names the page path, oldest first', () => {
    const path = 'wiki/user/default/diary/thought-1.md';
    const a = env.stores.episodes.add(U, { summary: 'a [wiki: T (x)]', meta: { wiki_path: path, origin: 'think' } });
    env.stores.episodes.add(U, { summary: `says ${path}` });
    env.stores.episodes.add(U, { summary: 'other', meta: { wiki_path: `${path}x` } });
    env.stores.episodes.add(A, { summary: 'agent', meta: { wiki_path: path } });
    const b = env.stores.episodes.add(U, { summary: 'b', meta: { origin: 'think', wiki_path: path } });
    expect(env.stores.episodes.namingWikiPath(U, path).map((e) => e.id)).toEqual([a.id, b.id]);
    expect(env.stores.episodes.namingWikiPath(U, 'wiki/none.md')).toEqual([]);
  });

  it('touch counts each access on the named rows only, twice for an id named twice, with the time', () => {
    const [a, b, c] = ['one', 'two', 'three'].map((summary) => env.stores.episodes.add(U, { summary }));
    env.clock.advance(5000);
    env.stores.episodes.touch([a.id, c.id, a.id, 'ep_999999', 'fact_1', 'ep_x']);
    const got = (id: string) => env.stores.episodes.get(U, id);
    expect([got(a.id)?.access_count, got(b.id)?.access_count, got(c.id)?.access_count]).toEqual([2, 0, 1]);
    expect(got(a.id)?.last_access).toBe(new Date(env.clock.now()).toISOString());
    expect(got(b.id)?.last_access ?? null).toBeNull();
    env.stores.episodes.touch([]);
    env.stores.episodes.touch(['fact_1']);
    expect(got(a.id)?.access_count).toBe(2);
  });

  it('countListed counts the episodes list pages through for the same tag filter', () => {
    const e = env.stores.episodes;
    e.add(U, { summary: 'one', tags: ['area:backend', 'prio:0'] });
    e.add(U, { summary: 'two', tags: ['area:frontend', 'prio:1'] });
    e.add(U, { summary: 'three', tags: ['area:backend', 'prio:1'] });
    e.add(A, { summary: 'agent', tags: ['area:backend'] });
    expect(e.countListed(U)).toBe(3);
    expect(e.countListed(U, { tag: 'area:backend' })).toBe(2);
    expect(e.countListed(U, { tag: ['area:backend', 'prio:1'] })).toBe(1);
    expect(e.countListed(U, { tag: ['area:backend', 'area:frontend', 'prio:1'] })).toBe(2);
    expect(e.countListed(U, { tag: 'none' })).toBe(0);
    expect(e.countListed(U, { tag: 'area:backend' })).toBe(e.list(U, { tag: 'area:backend', limit: 200 }).length);
  });

});

describe('EpisodeStore: tags in NFC', () => {
  it('stores tags in NFC and filters by either spelling; a tag it holds already is kept by setTags, a new invisible one refused', () => {
    const e = env.stores.episodes;
    const nfd = e.add(U, { summary: 'decomposed', tags: ['cafe\u0301'] });
    const nfc = e.add(U, { summary: 'composed', tags: ['caf\u00e9'] });
    expect(nfd.tags).toEqual(['caf\u00e9']);
    for (const tag of ['caf\u00e9', 'cafe\u0301']) {
      expect(e.list(U, { tag }).map((x) => x.id).sort(), JSON.stringify(tag)).toEqual([nfd.id, nfc.id].sort());
      expect(e.countListed(U, { tag })).toBe(2);
      expect(e.query(U, { tag }).episodes.map((x) => x.id).sort()).toEqual([nfd.id, nfc.id].sort());
    }
    expect(() => e.add(U, { summary: 'zw', tags: ['wo\u200brk'] })).toThrow(expect.objectContaining({ field: 'tags.0' }));
    // An episode stored with such a tag before keeps it when a tag is added.
    env.db.prepare('UPDATE episodes SET tags = ? WHERE id = ?').run(JSON.stringify(['wo\u200brk']), Number(nfc.id.slice(3)));
    expect(e.setTags(U, nfc.id, ['wo\u200brk', 'more'])!.tags).toEqual(['wo\u200brk', 'more']);
    expect(() => e.setTags(U, nfc.id, ['a\u202eb'])).toThrow(expect.objectContaining({ field: 'tags.0' }));
  });
});
