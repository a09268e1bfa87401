import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { A, U, U2, makeEnv, type Env } from './test-helpers.js';
import { checkIsoTimestamp } from './wiki-query.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

const HOUR = 3_600_000;

function titles(r: { pages: { title: string }[] }): string[] {
  return r.pages.map((p) => p.title);
}

function fieldOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return (e as { field?: unknown }).field;
  }
  return 'no error';
}

describe('checkIsoTimestamp', () => {
  it('takes a date (midnight UTC) or a date-time with Z or an offset, and answers the stored form', () => {
    expect(checkIsoTimestamp('2026-01-31', 'f')).toBe('2026-01-31T00:00:00.000Z');
    expect(checkIsoTimestamp('2026-01-31T09:30Z', 'f')).toBe('2026-01-31T09:30:00.000Z');
    expect(checkIsoTimestamp('2026-01-31T09:30:05.25+02:00', 'f')).toBe('2026-01-31T07:30:05.250Z');
    expect(checkIsoTimestamp('2026-01-01T00:30:00-0100', 'f')).toBe('2026-01-01T01:30:00.000Z');
    expect(checkIsoTimestamp('2024-02-29T23:59:59.999999Z', 'f')).toBe('2024-02-29T23:59:59.999Z');
  });

  it('refuses anything else, naming the field and the accepted format', () => {
    for (const bad of ['', 'yesterday', '2026-02-30', '2026-13-01', '2026-01-31T24:00Z', '2026-01-31T09:30', '31/01/2026', 'March 7, 2026', 42, null]) {
      let err: any;
      try {
        checkIsoTimestamp(bad, 'created_since');
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(bad)).toMatchObject({ field: 'created_since', accepted: expect.stringContaining('ISO 8601') });
    }
  });
});

describe('WikiStore.query', () => {
  it('filters by type, faceted tags, whole words of title and content, and time ranges', () => {
    const w = env.stores.wiki;
    w.save(U, { title: 'Berlin trip', content: 'Trains to Berlin, café near the station.', wiki_type: 'diary', tags: ['place:berlin', 'mood:happy'] });
    env.clock.advance(HOUR);
    w.save(U, { title: 'Paris trip', content: 'A vacation in Paris.', wiki_type: 'diary', tags: ['place:paris', 'mood:tired'] });
    env.clock.advance(HOUR);
    w.save(U, { title: 'Tea', content: 'Prefers green tea; a cat sleeps on the desk.', wiki_type: 'preferences', tags: ['place:berlin', 'drinks'] });
    // Newest updated first.
    expect(titles(w.query(U))).toEqual(['Tea', 'Paris trip', 'Berlin trip']);
    expect(titles(w.query(U, { wiki_type: 'diary' }))).toEqual(['Paris trip', 'Berlin trip']);
    // Same dimension OR, different dimensions AND; a plain tag is its own dimension.
    expect(titles(w.query(U, { tags: ['place:berlin', 'place:paris'] }))).toEqual(['Tea', 'Paris trip', 'Berlin trip']);
    expect(titles(w.query(U, { tags: ['place:berlin', 'mood:happy'] }))).toEqual(['Berlin trip']);
    expect(titles(w.query(U, { tags: ['place:paris', 'place:berlin', 'mood:tired'] }))).toEqual(['Paris trip']);
    expect(titles(w.query(U, { tags: ['drinks'] }))).toEqual(['Tea']);
    expect(titles(w.query(U, { tags: ['drinks', 'mood:happy'] }))).toEqual([]);
    expect(titles(w.query(U, { tags: [] }))).toHaveLength(3);
    // Whole words, folded: "cat" is not in "vacation"; "CAFE" finds "café"; words as a phrase.
    expect(titles(w.query(U, { content: 'cat' }))).toEqual(['Tea']);
    expect(titles(w.query(U, { content: 'CAFE' }))).toEqual(['Berlin trip']);
    expect(titles(w.query(U, { content: 'green tea' }))).toEqual(['Tea']);
    expect(titles(w.query(U, { content: 'tea green' }))).toEqual([]);
    expect(titles(w.query(U, { title: 'TRIP' }))).toEqual(['Paris trip', 'Berlin trip']);
    expect(titles(w.query(U, { title: 'trip', content: 'paris' }))).toEqual(['Paris trip']);
    expect(titles(w.query(U, { title: 'tri' }))).toEqual([]);
    // Ranges include their bounds.
    const t0 = '2026-01-01T00:00:00.000Z';
    expect(titles(w.query(U, { created_since: '2026-01-01T01:00:00Z' }))).toEqual(['Tea', 'Paris trip']);
    expect(titles(w.query(U, { created_until: t0 }))).toEqual(['Berlin trip']);
    expect(titles(w.query(U, { updated_since: '2026-01-01T01:00:00Z', updated_until: '2026-01-01T03:00:00+02:00' }))).toEqual(['Paris trip']);
    // An update moves a page's updated time, not its created time.
    env.clock.advance(HOUR);
    w.save(U, { title: 'Berlin trip', content: 'Trains to Berlin.', wiki_type: 'diary' });
    expect(titles(w.query(U, { updated_since: '2026-01-01T03:00:00Z' }))).toEqual(['Berlin trip']);
    expect(titles(w.query(U, { created_since: '2026-01-01T03:00:00Z' }))).toEqual([]);
  });

  it('never lets % or _ of a pattern act as a LIKE wildcard', () => {
    const w = env.stores.wiki;
    w.save(U, { title: '50% off', content: 'snake_case names', wiki_type: 'work_notes' });
    w.save(U, { title: '50 coins off', content: 'snakeXcase names', wiki_type: 'work_notes' });
    w.save(U, { title: 'Plain', content: 'a back\\slash', wiki_type: 'work_notes' });
    expect(titles(w.query(U, { title: '50%' }))).toEqual(['50% off']);
    expect(titles(w.query(U, { title: '%' }))).toEqual(['50% off']);
    expect(titles(w.query(U, { content: 'snake_case' }))).toEqual(['50% off']);
    expect(titles(w.query(U, { content: '_' }))).toEqual(['50% off']);
    expect(titles(w.query(U, { content: 'back\\slash' }))).toEqual(['Plain']);
  });

  it('pages with limit and offset, the total counting every match', () => {
    const w = env.stores.wiki;
    for (let i = 0; i < 7; i++) {
      env.clock.advance(1000);
      w.save(U, { title: `Day ${i}`, content: i % 2 === 0 ? 'even walrus' : 'odd', wiki_type: 'diary' });
    }
    expect(w.query(U, { limit: 3 })).toMatchObject({ total: 7, pages: [{ title: 'Day 6' }, { title: 'Day 5' }, { title: 'Day 4' }] });
    expect(titles(w.query(U, { limit: 3, offset: 6 }))).toEqual(['Day 0']);
    // With a text filter, paging runs over the matches.
    expect(w.query(U, { content: 'walrus', limit: 2 })).toMatchObject({ total: 4, pages: [{ title: 'Day 6' }, { title: 'Day 4' }] });
    expect(w.query(U, { content: 'walrus', limit: 2, offset: 2 })).toMatchObject({ total: 4, pages: [{ title: 'Day 2' }, { title: 'Day 0' }] });
    expect(w.query(U, { content: 'walrus', offset: 9 })).toEqual({ total: 4, pages: [] });
    // Same updated time: the newest id first.
    const a = env.stores.wiki.save(U2, { title: 'A', content: 'x', wiki_type: 'diary' });
    const b = env.stores.wiki.save(U2, { title: 'B', content: 'x', wiki_type: 'diary' });
    expect(a.updated).toBe(b.updated);
    expect(titles(w.query(U2))).toEqual(['B', 'A']);
  });

  it('reads only its own layer and user_id', () => {
    const w = env.stores.wiki;
    w.save(U, { title: 'Mine', content: 'walrus', wiki_type: 'diary', tags: ['t'] });
    w.save(U2, { title: 'Bob', content: 'walrus', wiki_type: 'diary', tags: ['t'] });
    w.save(A, { title: 'Agent', content: 'walrus', wiki_type: 'diary', tags: ['t'] });
    for (const [scope, title] of [
      [U, 'Mine'],
      [U2, 'Bob'],
      [A, 'Agent'],
    ] as const) {
      expect(w.query(scope, { content: 'walrus', tags: ['t'] })).toMatchObject({ total: 1, pages: [{ title }] });
      expect(w.query(scope).total).toBe(1);
    }
  });

  it('refuses bad filters naming the field', () => {
    const w = env.stores.wiki;
    expect(fieldOf(() => w.query(U, { wiki_type: 'blog' }))).toBe('wiki_type');
    expect(fieldOf(() => w.query(U, { tags: 'a' as never }))).toBe('tags');
    expect(fieldOf(() => w.query(U, { tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }))).toBe('tags');
    expect(fieldOf(() => w.query(U, { title: '  ' }))).toBe('title');
    expect(fieldOf(() => w.query(U, { content: 'x'.repeat(1001) }))).toBe('content');
    expect(fieldOf(() => w.query(U, { updated_since: 'soon' }))).toBe('updated_since');
    // since after until names the since field, as memory_query does (checkTimeRange).
    expect(fieldOf(() => w.query(U, { created_since: '2026-02-01', created_until: '2026-01-01' }))).toBe('created_since');
    expect(fieldOf(() => w.query(U, { updated_since: '2026-02-01', updated_until: '2026-01-31T23:59:59Z' }))).toBe('updated_since');
    // A date-only until is the whole day: since and until on the page's day match it.
    w.save(U, { title: 'New year', content: 'written at 2026-01-01T00:00Z', wiki_type: 'diary' });
    expect(w.query(U, { created_since: '2026-01-01', created_until: '2026-01-01' }).total).toBe(1);
    expect(w.query(U, { created_until: '2025-12-31' }).total).toBe(0);
    // A bound past 9999-12-31 once in UTC is refused, naming its field, not compared as '+010000-...'.
    expect(fieldOf(() => w.query(U, { created_until: '9999-12-31T23:30:00-01:00' }))).toBe('created_until');
    expect(fieldOf(() => w.query(U, { updated_since: '9999-12-31T23:30:00-01:00' }))).toBe('updated_since');
    expect(w.query(U, { created_since: '2026-01-01', created_until: '9999-12-31T23:30:00Z' }).total).toBe(1);
    expect(fieldOf(() => w.query(U, { limit: 0 }))).toBe('limit');
    expect(fieldOf(() => w.query(U, { limit: 201 }))).toBe('limit');
    expect(fieldOf(() => w.query(U, { limit: 1.5 }))).toBe('limit');
    expect(fieldOf(() => w.query(U, { offset: -1 }))).toBe('offset');
    expect(fieldOf(() => w.query({ layer: 'x' as never, user_id: 'default' }))).toBe('layer');
  });

});

describe('WikiStore.query: tags in NFC', () => {
  it('finds a page by a tag sent decomposed, the tag stored precomposed; a new invisible tag is refused, one the page holds kept', () => {
    const w = env.stores.wiki;
    const p = w.save(U, { title: 'Tagged', content: 'x', wiki_type: 'work_notes', tags: ['cafe\u0301'] });
    expect(p.tags).toEqual(['caf\u00e9']);
    for (const tag of ['caf\u00e9', 'cafe\u0301']) expect(titles(w.query(U, { tags: [tag] })), JSON.stringify(tag)).toEqual(['Tagged']);
    expect(() => w.save(U, { title: 'Other', content: 'x', wiki_type: 'work_notes', tags: ['a\u200bb'] })).toThrow(expect.objectContaining({ field: 'tags.0' }));
    expect(w.getByTitle(U, 'Other')).toBeFalsy();
    env.db.prepare('UPDATE wiki_pages SET tags = ? WHERE title = ?').run(JSON.stringify(['a\u200bb']), 'Tagged');
    expect(w.save(U, { title: 'Tagged', content: 'y', wiki_type: 'work_notes', tags: ['a\u200bb'] }).tags).toEqual(['a\u200bb']);
  });
});
