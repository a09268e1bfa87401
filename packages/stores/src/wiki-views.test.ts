import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { estimateTokens } from './retrieval/budget.js';
import { queryTerms } from './retrieval/query.js';
import { A, U, U2, makeEnv, type Env } from './test-helpers.js';
import { WIKI_DIGEST_MAX_TOKENS, WIKI_PERSPECTIVES, excerptAround } from './wiki-views.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

describe('WikiStore additions', () => {
  it('count() by type, infoByIds() of the scope only', () => {
    const w = env.stores.wiki;
    const a = w.save(U, { title: 'One', content: 'one', wiki_type: 'diary' });
    w.save(U, { title: 'Two', content: 'two', wiki_type: 'preferences' });
    const b = w.save(U2, { title: 'Bob', content: 'bob', wiki_type: 'diary' });
    expect(w.count(U)).toBe(2);
    expect(w.count(U, 'diary')).toBe(1);
    expect(w.count(U2, 'diary')).toBe(1);
    expect(() => w.count(U, 'nope')).toThrow(/wiki_type must be one of/);
    const infos = w.infoByIds(U, [a.id, b.id, 'wiki_999', 'junk']);
    expect([...infos.keys()]).toEqual([a.id]);
    expect(infos.get(a.id)).toMatchObject({ title: 'One', wiki_type: 'diary', path: a.path });
  });

  it('pageAt() reads exactly a listed page of the scope; every other path is an error naming path', () => {
    const w = env.stores.wiki;
    const p = w.save(U, { title: 'Mine', content: 'secret text', wiki_type: 'diary' });
    const other = w.save(U2, { title: 'Bob page', content: 'bob text', wiki_type: 'diary' });
    expect(w.pageAt(U, p.path).content).toBe('secret text');
    const bad = [
      '',
      '/etc/passwd',
      path.join(env.dir, p.path),
      '../memory.db',
      `wiki/user/default/diary/../diary/${path.basename(p.path)}`,
      `./${p.path}`,
      p.path.replace(/\//g, '\\'),
      'memory.db',
      'wiki//user/default/diary/mine.md',
      'C:\\Windows\\win.ini',
      `${p.path}\0`,
    ];
    for (const b of bad) {
      let err: unknown;
      try {
        w.pageAt(U, b);
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(b)).toMatchObject({ field: 'path' });
    }
    // Another user's page, another layer's, a missing page: not found, naming path.
    expect(() => w.pageAt(U, other.path)).toThrow(expect.objectContaining({ code: 'STORES_ERR_NOT_FOUND', field: 'path' }));
    expect(() => w.pageAt(A, p.path)).toThrow(expect.objectContaining({ field: 'path' }));
    expect(() => w.pageAt(U, 'wiki/user/default/diary/none.md')).toThrow(expect.objectContaining({ field: 'path' }));
    expect(() => w.pageAt(U, 42)).toThrow(expect.objectContaining({ field: 'path' }));
  });

  it('link() says whether the link is new and names the field of a missing page', () => {
    const w = env.stores.wiki;
    w.save(A, { title: 'Plan', content: 'plan', wiki_type: 'decision_log' });
    w.save(A, { title: 'Review', content: 'review', wiki_type: 'decision_log' });
    expect(w.link(A, 'Review', 'Plan', 'review_of').created_new).toBe(true);
    expect(w.link(A, 'Review', 'Plan', 'review_of').created_new).toBe(false);
    expect(w.links(A, 'Plan').in).toHaveLength(1);
    expect(() => w.link(A, 'Nope', 'Plan', 'follows', { from: 'title', to: 'to_title' })).toThrow(expect.objectContaining({ field: 'title' }));
    expect(() => w.link(A, 'Review', 'Nope', 'follows', { from: 'title', to: 'to_title' })).toThrow(expect.objectContaining({ field: 'to_title' }));
    expect(() => w.link(U, 'Review', 'Plan', 'follows')).toThrow(expect.objectContaining({ field: 'from_title' }));
  });
});

describe('ShadowBin.deleteWikiPage', () => {
  it('archives then deletes the page, its file and links; restorable', () => {
    const w = env.stores.wiki;
    const p = w.save(U, { title: 'Gone', content: 'the gone page', wiki_type: 'diary', tags: ['x'] });
    w.save(U, { title: 'Stay', content: 'stay', wiki_type: 'diary' });
    w.link(U, 'Stay', 'Gone', 'follows');
    const r = env.stores.shadowBin.deleteWikiPage(U, 'Gone', true)!;
    expect(r.page.content).toBe('the gone page');
    expect(r.links).toBe(1);
    expect(r.entry).toMatchObject({ origin_store: 'wiki', origin_id: 'Gone', reason: 'wiki_delete' });
    expect(w.getByTitle(U, 'Gone')).toBeNull();
    expect(fs.existsSync(path.join(env.dir, p.path))).toBe(false);
    expect(w.links(U, 'Stay').out).toEqual([]);
    expect(env.stores.shadowBin.restore(r.entry!.id).record).toMatchObject({ title: 'Gone', content: 'the gone page', tags: ['x'] });
  });

  it('without archive deletes only; a missing title (or another scope) is null', () => {
    env.stores.wiki.save(U, { title: 'Plain', content: 'p', wiki_type: 'diary' });
    expect(env.stores.shadowBin.deleteWikiPage(U2, 'Plain', true)).toBeNull();
    expect(env.stores.shadowBin.deleteWikiPage(U, 'Plain', false)).toMatchObject({ entry: null, links: 0 });
    expect(env.stores.shadowBin.count(U)).toBe(0);
    expect(env.stores.shadowBin.deleteWikiPage(U, 'Plain', true)).toBeNull();
  });
});

describe('WikiViews', () => {
  it('search() finds wiki pages only, of the scope and type asked, with an excerpt at the first query word', () => {
    const w = env.stores.wiki;
    w.save(U, { title: 'Garden', content: `${'Intro words here. '.repeat(10)}The tomatoes need water every morning.`, wiki_type: 'diary' });
    w.save(U, { title: 'Likes', content: 'Likes tomatoes in salad.', wiki_type: 'preferences' });
    w.save(U2, { title: 'Bob garden', content: 'Bob grows tomatoes too.', wiki_type: 'diary' });
    env.stores.facts.upsert(U, { key: 'veg', value: 'tomatoes' });
    const hits = env.stores.wikiViews.search(U, 'tomatoes');
    expect(hits.map((h) => h.title).sort()).toEqual(['Garden', 'Likes']);
    const garden = hits.find((h) => h.title === 'Garden')!;
    expect(garden.excerpt).toMatch(/^….*tomatoes need water/);
    expect(garden.wiki_type).toBe('diary');
    expect(env.stores.wikiViews.search(U, 'tomatoes', { wiki_type: 'preferences' }).map((h) => h.title)).toEqual(['Likes']);
    expect(env.stores.wikiViews.search(A, 'tomatoes')).toEqual([]);
  });

  it('excerptAround() keeps to the length and never splits an emoji', () => {
    const e = excerptAround(`${'😀'.repeat(300)} needle`, ['needle'], 50);
    expect(Array.from(e).length).toBeLessThanOrEqual(50);
    expect(Array.from(excerptAround(`${'word '.repeat(100)}needle ${'more '.repeat(100)}`, ['needle'])).length).toBeLessThanOrEqual(240);
    expect(e).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(excerptAround('short text', ['zzz'])).toBe('short text');
  });

  it('excerptAround() finds a folded query word in the text as written: accents, Hangul, Cyrillic, ß', () => {
    const filler = 'Lorem ipsum dolor sit amet. '.repeat(8);
    const at = (text: string, query: string) => excerptAround(`${filler}${text}`, queryTerms(query), 60);
    expect(at('Wir fahren nach München im Mai.', 'München')).toMatch(/^….*München im Mai/);
    expect(at('우리는 부산에 갔다.', '부산에')).toMatch(/^….*부산에 갔다/);
    expect(at('Купил йогурт вчера.', 'йогурт')).toMatch(/^….*йогурт вчера/);
    expect(at('Wir wohnen in der Goethestraße 5.', 'goethestrasse')).toMatch(/^….*Goethestraße 5/);
  });

  it('excerptAround() finds a query word matched through another spelling retrieval indexes: joined, split, grouped', () => {
    const filler = 'Lorem ipsum dolor sit amet. '.repeat(8);
    const at = (text: string, query: string) => excerptAround(`${filler}${text}`, queryTerms(query), 100);
    expect(at('The bill was $12,400 in October.', '12400')).toMatch(/^….*\$12,400 in October/);
    expect(at("A fee of 12'400 CHF.", '12400')).toMatch(/^….*12'400 CHF/);
    expect(at('Retries live in fetch_user_profile now.', 'fetchuserprofile')).toMatch(/^….*fetch_user_profile now/);
    expect(at('Send it by e-mail please.', 'email')).toMatch(/^….*e-mail please/);
    expect(at('Retries live in fetchUserProfile now.', 'fetch user profile')).toMatch(/^….*fetchUserProfile now/);
    // The first match, whichever spelling it has: the grouped number before the word as written.
    expect(excerptAround(`${filler}$12,400 ${filler}12400 later`, queryTerms('12400'), 100)).toMatch(/^….*\$12,400 Lorem/);
    // What retrieval keeps apart is no match: the page's start.
    expect(at('It weighs 12.400 kg.', '12400')).toMatch(/^Lorem ipsum/);
  });

  it('excerptAround() finds another form of a query word, of the same stem: Russian case endings, the Arabic article', () => {
    const filler = 'Lorem ipsum dolor sit amet. '.repeat(8);
    const at = (text: string, query: string) => excerptAround(`${filler}${text}`, queryTerms(query), 100);
    expect(at('Встреча с инвесторами в понедельник.', 'встречу')).toMatch(/^….*Встреча с инвесторами/);
    expect(at('قرأت كتابه الجديد أمس.', 'الكتاب')).toMatch(/^….*كتابه الجديد/);
    expect(at('Two meetings on Monday.', 'meeting')).toMatch(/^….*meetings on Monday/);
    // A word as written still comes first, and a word of another stem is no match.
    expect(at('The meeting, then meetings.', 'meetings')).toMatch(/^….*meetings\.$/);
    expect(at('Встреча была долгой.', 'встать')).toMatch(/^Lorem ipsum/);
  });

  it('summarize() reads the canonical layer and type of each perspective', () => {
    const w = env.stores.wiki;
    for (const [name, { layer, wiki_type }] of Object.entries(WIKI_PERSPECTIVES)) {
      w.save({ layer, user_id: 'default' }, { title: `${name} page`, content: `about ${name}`, wiki_type, tags: [name] });
      // The same type on the other layer is not this perspective's.
      w.save({ layer: layer === 'agent' ? 'user' : 'agent', user_id: 'default' }, { title: `${name} elsewhere`, content: 'x', wiki_type });
    }
    for (const [name, { layer, wiki_type }] of Object.entries(WIKI_PERSPECTIVES)) {
      const s = env.stores.wikiViews.summarize(name, 'default');
      expect(s).toMatchObject({ perspective: name, layer, wiki_type, count: 1, truncated: false, digest_pages: 1 });
      expect(s.pages).toEqual([{ title: `${name} page`, type: wiki_type, tags: [name], path: expect.any(String) }]);
      expect(s.digest).toContain(`## ${name} page`);
      expect(s.digest).toContain(`about ${name}`);
    }
    expect(() => env.stores.wikiViews.summarize('cosmic', 'default')).toThrow(expect.objectContaining({ field: 'perspective' }));
    expect(env.stores.wikiViews.summarize('social', 'nobody')).toMatchObject({ count: 0, truncated: false, digest: expect.stringMatching(/No relationships pages/) });
  });

  it('summarize() filters by query, caps pages at limit and the digest at 2000 tokens', () => {
    const w = env.stores.wiki;
    for (let i = 0; i < 12; i++) {
      env.clock.advance(1000);
      w.save(A, { title: `Decision ${i}`, content: `Decision ${i} about ${i % 2 ? 'caching' : 'logging'}. ${'Long reasoning. '.repeat(200)}`, wiki_type: 'decision_log' });
    }
    const all = env.stores.wikiViews.summarize('practical', 'default');
    expect(all.count).toBe(10);
    expect(all.pages[0]!.title).toBe('Decision 11');
    expect(all.truncated).toBe(true);
    expect(estimateTokens(all.digest)).toBeLessThanOrEqual(WIKI_DIGEST_MAX_TOKENS);
    expect(all.estimated_tokens).toBe(estimateTokens(all.digest));
    expect(all.digest_pages).toBeLessThan(all.count);
    const few = env.stores.wikiViews.summarize('practical', 'default', 'caching', 3);
    expect(few.count).toBe(3);
    expect(few.pages.every((p) => Number(p.title.split(' ')[1]) % 2 === 1)).toBe(true);
  });
});
