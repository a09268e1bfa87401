import { afterEach, describe, expect, it } from 'vitest';
import { add, ManualClock, rows, start, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const HOUR = 3_600_000;

function titles(r: any): string[] {
  return r.pages.map((p: any) => p.title);
}

describe('wiki_query', () => {
  it('filters by type, faceted tags, title and content words, and created and updated ranges', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    await add(s, 'Berlin trip', 'Trains to Berlin, a café by the station.', { tags: ['place:berlin', 'mood:happy'] });
    clock.advance(HOUR);
    await add(s, 'Paris trip', 'A vacation in Paris.', { tags: ['place:paris', 'mood:tired'] });
    clock.advance(HOUR);
    await add(s, 'Tea', 'Green tea; the cat sleeps on the desk.', { wiki_type: 'preferences', tags: ['place:berlin', 'drinks'] });
    const all = await s.call('wiki_query', {});
    expect(titles(all)).toEqual(['Tea', 'Paris trip', 'Berlin trip']);
    expect(all).toMatchObject({ count: 3, total: 3, offset: 0, next_offset: null });
    expect(all.pages[0]).toEqual({
      id: expect.any(String),
      title: 'Tea',
      wiki_type: 'preferences',
      tags: ['place:berlin', 'drinks'],
      path: 'wiki/user/default/preferences/tea.md',
      created: '2026-01-01T02:00:00.000Z',
      updated: '2026-01-01T02:00:00.000Z',
      size: 38,
    });
    expect(titles(await s.call('wiki_query', { wiki_type: 'diary' }))).toEqual(['Paris trip', 'Berlin trip']);
    expect(titles(await s.call('wiki_query', { tags: ['place:berlin', 'place:paris'] }))).toEqual(['Tea', 'Paris trip', 'Berlin trip']);
    expect(titles(await s.call('wiki_query', { tags: ['place:berlin', 'mood:happy'] }))).toEqual(['Berlin trip']);
    expect(titles(await s.call('wiki_query', { tags: ['drinks', 'mood:happy'] }))).toEqual([]);
    expect(titles(await s.call('wiki_query', { content: 'CAT' }))).toEqual(['Tea']);
    expect(titles(await s.call('wiki_query', { content: 'cafe' }))).toEqual(['Berlin trip']);
    expect(titles(await s.call('wiki_query', { title: 'trip', content: 'paris' }))).toEqual(['Paris trip']);
    expect(titles(await s.call('wiki_query', { created_since: '2026-01-01T01:00:00Z', created_until: '2026-01-01T03:00:00+02:00' }))).toEqual(['Paris trip']);
    clock.advance(HOUR);
    await add(s, 'Berlin trip', 'Trains to Berlin.');
    expect(titles(await s.call('wiki_query', { updated_since: '2026-01-01T03:00:00Z' }))).toEqual(['Berlin trip']);
    expect(titles(await s.call('wiki_query', { updated_until: '2026-01-01T02:59:59.999Z', wiki_type: 'diary' }))).toEqual(['Paris trip']);
  });

  it('takes % and _ literally', async () => {
    s = await start();
    await add(s, '50% off', 'snake_case');
    await add(s, '50 coins off', 'snakeXcase');
    expect(titles(await s.call('wiki_query', { title: '%' }))).toEqual(['50% off']);
    expect(titles(await s.call('wiki_query', { content: 'snake_case' }))).toEqual(['50% off']);
  });

  it('pages through with limit and offset', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    for (let i = 0; i < 5; i++) {
      clock.advance(1000);
      await add(s, `Day ${i}`, i % 2 === 0 ? 'walrus' : 'seal');
    }
    const one = await s.call('wiki_query', { limit: 2 });
    expect(one).toMatchObject({ count: 2, total: 5, next_offset: 2 });
    expect(titles(await s.call('wiki_query', { limit: 2, offset: 2 }))).toEqual(['Day 2', 'Day 1']);
    expect(await s.call('wiki_query', { limit: 2, offset: 4 })).toMatchObject({ count: 1, next_offset: null });
    const w = await s.call('wiki_query', { content: 'walrus', limit: 2 });
    expect(w).toMatchObject({ count: 2, total: 3, next_offset: 2 });
    expect(titles(await s.call('wiki_query', { content: 'walrus', limit: 2, offset: 2 }))).toEqual(['Day 0']);
    expect(await s.call('wiki_query', { offset: 10 })).toMatchObject({ pages: [], count: 0, total: 5, next_offset: null });
  });

  it('refuses bad input naming the field, the accepted format for a time', async () => {
    s = await start();
    expect((await toolError(s.call('wiki_query', { wiki_type: 'blog' }))).field).toBe('wiki_type');
    expect((await toolError(s.call('wiki_query', { tags: 'a' }))).field).toBe('tags');
    expect((await toolError(s.call('wiki_query', { title: ' ' }))).field).toBe('title');
    expect((await toolError(s.call('wiki_query', { content: '' }))).field).toBe('content');
    for (const field of ['created_since', 'created_until', 'updated_since', 'updated_until']) {
      const e = await toolError(s.call('wiki_query', { [field]: '2026-02-30' }));
      expect(e.field).toBe(field);
      expect(e.message).toContain('ISO 8601');
      expect(String(e.accepted)).toContain('2026-01-31T09:30:00Z');
    }
    expect((await toolError(s.call('wiki_query', { created_since: '2026-01-31T09:30' }))).field).toBe('created_since');
    // since after until names the since field, as memory_query does.
    const order = await toolError(s.call('wiki_query', { created_since: '2026-02-01', created_until: '2026-01-01' }));
    expect(order.field).toBe('created_since');
    expect((await toolError(s.call('wiki_query', { updated_since: '2026-02-01', updated_until: '2026-01-01' }))).field).toBe('updated_since');
    // A bound past 9999-12-31 once in UTC is refused, naming its field and the range, not compared as '+010000-...'.
    for (const field of ['created_since', 'created_until', 'updated_since', 'updated_until']) {
      const e = await toolError(s.call('wiki_query', { [field]: '9999-12-31T23:30:00-01:00' }));
      expect(e.field).toBe(field);
      expect(e.message).toContain('9999-12-31T23:59:59.999Z');
    }
    expect((await toolError(s.call('wiki_query', { limit: 0 }))).field).toBe('limit');
    expect((await toolError(s.call('wiki_query', { limit: 201 }))).field).toBe('limit');
    expect((await toolError(s.call('wiki_query', { offset: -1 }))).field).toBe('offset');
    expect((await toolError(s.call('wiki_query', { layer: 'team' }))).field).toBe('layer');
  });
});

describe('wiki_query time bounds', () => {
  it('a date-only until includes that day, and the RFC 3339 variants are read as their Z form', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 31, 15, 0));
    s = await start({ clock });
    await add(s, 'Afternoon', 'written at 15:00');
    const total = async (args: Record<string, unknown>) => (await s.call('wiki_query', args)).total;
    expect(await total({ created_since: '2026-01-31', created_until: '2026-01-31' })).toBe(1);
    expect(await total({ updated_until: '2026-01-31' })).toBe(1);
    expect(await total({ created_until: '2026-01-30' })).toBe(0);
    expect(await total({ created_until: '2026-01-31T14:59:59Z' })).toBe(0);
    expect(await total({ created_since: '2026-01-31 15:00:00z' })).toBe(1);
    expect(await total({ created_since: '2026-01-31t17:00:00+02' })).toBe(1);
    expect(await total({ created_since: '2026-01-31t17:00:00.001+02' })).toBe(0);
    expect(await total({ created_since: '2026-01-01', created_until: '9999-12-31T23:59:59.999Z' })).toBe(1);
  });
});

describe('wiki_reflect', () => {
  it('counts the pages created and updated in the period by type, the boundary included, by the injected clock', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    await add(s, 'Old', 'old');
    await add(s, 'Old untouched', 'old');
    clock.advance(2 * HOUR);
    await add(s, 'Old', 'edited');
    await add(s, 'New', 'new', { wiki_type: 'preferences' });
    clock.advance(HOUR);
    const r = await s.call('wiki_reflect', { period_hours: 1 });
    expect(r).toMatchObject({
      layer: 'user',
      period_hours: 1,
      since: '2026-01-01T02:00:00.000Z',
      until: '2026-01-01T03:00:00.000Z',
      created: 1,
      updated: 1,
      by_type: [
        { wiki_type: 'diary', created: 0, updated: 1 },
        { wiki_type: 'preferences', created: 1, updated: 0 },
      ],
    });
    expect(r.digest).toContain('# Wiki reflection: user layer, last 1 hour');
    expect(r.digest).toContain('- diary: 0 created, 1 updated');
    clock.advance(1);
    const after = await s.call('wiki_reflect', { period_hours: 1 });
    expect(after).toMatchObject({ created: 0, updated: 0, by_type: [], orphans: [], truncated: false });
    expect(after.digest).toContain('No pages were created or updated in the period.');
    // The default period is 24 hours.
    expect(await s.call('wiki_reflect', {})).toMatchObject({ period_hours: 24, created: 3, updated: 0 });
    expect(rows(s, 'wiki_pages')).toBe(3);
  });

  it('lists the most-linked pages (ties by title), the orphans and the pages over their size lint', async () => {
    s = await start();
    for (const t of ['Hub', 'Beta', 'Alpha', 'Leaf', 'Lonely']) await add(s, t, t, { layer: 'agent', wiki_type: 'decision_log' });
    const big = await add(s, 'Big skill', 'x'.repeat(5000), { layer: 'agent', wiki_type: 'skill' });
    await add(s, 'Small skill', 'x'.repeat(4096), { layer: 'agent', wiki_type: 'skill' });
    const link = (title: string, to_title: string, relation: string) => s.call('wiki_link', { action: 'add', title, to_title, relation, layer: 'agent' });
    await link('Leaf', 'Hub', 'follows');
    await link('Big skill', 'Hub', 'review_of');
    await link('Leaf', 'Beta', 'revises');
    await link('Small skill', 'Alpha', 'follows');
    const r = await s.call('wiki_reflect', { layer: 'agent' });
    expect(r.most_linked.map((p: any) => [p.title, p.in_links, p.out_links])).toEqual([
      ['Hub', 2, 0],
      ['Alpha', 1, 0],
      ['Beta', 1, 0],
    ]);
    expect(r.most_linked[0]).toMatchObject({ wiki_type: 'decision_log', path: 'wiki/agent/default/decision_log/hub.md' });
    expect(r.orphans.map((p: any) => p.title)).toEqual(['Lonely']);
    expect(r.orphan_count).toBe(1);
    expect(r.over_size_lint).toEqual([{ ...big.page, lint: big.lint[0] }]);
    expect(r.over_size_lint_count).toBe(1);
    expect(r.digest).toContain('## Most linked\n- Hub (2 in, 0 out)\n- Alpha (1 in, 0 out)\n- Beta (1 in, 0 out)');
    expect(r.digest).toContain('## Orphans (1)\n- Lonely (decision_log)');
    expect(r.digest).toContain(`## Over size lint (1)\n- Big skill: ${big.lint[0]}`);
    expect(r.estimated_tokens).toBeLessThanOrEqual(1000);
    // The same pages and time give the same answer.
    expect(await s.call('wiki_reflect', { layer: 'agent' })).toEqual(r);
  });

  it('refuses a period outside whole hours 1 to 8760', async () => {
    s = await start();
    for (const period_hours of [0, 8761, 1.5, -3, '24']) {
      expect((await toolError(s.call('wiki_reflect', { period_hours }))).field, String(period_hours)).toBe('period_hours');
    }
    expect((await s.call('wiki_reflect', { period_hours: 8760 })).period_hours).toBe(8760);
  });
});

describe('wiki_query and wiki_reflect across layers and user_ids', () => {
  it('never see another space\'s pages or links', async () => {
    s = await start();
    await add(s, 'Shared', 'walrus', { tags: ['t'] });
    await add(s, 'Shared', 'walrus', { tags: ['t'], user_id: 'bob' });
    await add(s, 'Other', 'seal', { user_id: 'bob' });
    await s.call('wiki_link', { action: 'add', title: 'Other', to_title: 'Shared', relation: 'follows', user_id: 'bob' });
    await add(s, 'Shared', 'walrus', { tags: ['t'], layer: 'agent', wiki_type: 'decision_log' });
    for (const scope of [{}, { user_id: 'bob' }, { layer: 'agent' }]) {
      const q = await s.call('wiki_query', { content: 'walrus', tags: ['t'], ...scope });
      expect(q.total).toBe(1);
      expect(q.pages[0].path).toContain(`wiki/${(scope as any).layer ?? 'user'}/${(scope as any).user_id ?? 'default'}/`);
    }
    expect((await s.call('wiki_reflect', {})).orphans.map((p: any) => p.title)).toEqual(['Shared']);
    const bob = await s.call('wiki_reflect', { user_id: 'bob' });
    expect(bob).toMatchObject({ created: 2, orphans: [], most_linked: [{ title: 'Shared', in_links: 1 }] });
    expect((await s.call('wiki_reflect', { layer: 'agent' })).created).toBe(1);
  });
});
