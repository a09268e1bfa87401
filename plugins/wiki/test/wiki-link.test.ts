import { afterEach, describe, expect, it } from 'vitest';
import { add, rows, start, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

describe('wiki_link', () => {
  it('adds typed links (idempotently) and lists in and out links', async () => {
    s = await start();
    await add(s, 'Plan', 'plan');
    await add(s, 'Plan v2', 'plan again');
    await add(s, 'Retro', 'retro');
    const first = await s.call('wiki_link', { action: 'add', title: 'Plan v2', to_title: 'Plan', relation: 'revises' });
    expect(first).toMatchObject({ action: 'add', title: 'Plan v2', added: { title: 'Plan', relation: 'revises', created_new: true }, in: [], out: [{ title: 'Plan', relation: 'revises' }] });
    const again = await s.call('wiki_link', { action: 'add', title: 'Plan v2', to_title: 'Plan', relation: 'revises' });
    expect(again.added.created_new).toBe(false);
    await s.call('wiki_link', { action: 'add', title: 'Retro', to_title: 'Plan', relation: 'review_of' });
    await s.call('wiki_link', { action: 'add', title: 'Retro', to_title: 'Plan v2', relation: 'follows' });
    const list = await s.call('wiki_link', { action: 'list', title: 'Plan' });
    expect(list).toMatchObject({ action: 'list', title: 'Plan', out: [] });
    expect(list.in.map((l: any) => [l.title, l.relation])).toEqual([
      ['Plan v2', 'revises'],
      ['Retro', 'review_of'],
    ]);
    expect(list).not.toHaveProperty('added');
    expect(rows(s, 'wiki_links')).toBe(3);
  });

  it('refuses an unknown relation naming relation and the accepted values, and missing pages naming the field', async () => {
    s = await start();
    await add(s, 'A', 'a');
    await add(s, 'B', 'b');
    const rel = await toolError(s.call('wiki_link', { action: 'add', title: 'A', to_title: 'B', relation: 'likes' }));
    expect(rel.field).toBe('relation');
    expect(rel.accepted).toEqual(['review_of', 'revises', 'follows']);
    const none = await toolError(s.call('wiki_link', { action: 'add', title: 'A', to_title: 'B' }));
    expect(none).toMatchObject({ field: 'relation', accepted: ['review_of', 'revises', 'follows'] });
    expect((await toolError(s.call('wiki_link', { action: 'add', title: 'A', relation: 'follows' }))).field).toBe('to_title');
    expect((await toolError(s.call('wiki_link', { action: 'add', title: 'Nope', to_title: 'B', relation: 'follows' }))).field).toBe('title');
    expect((await toolError(s.call('wiki_link', { action: 'add', title: 'A', to_title: 'Nope', relation: 'follows' }))).field).toBe('to_title');
    expect((await toolError(s.call('wiki_link', { action: 'add', title: 'A', to_title: ' A ', relation: 'follows' }))).field).toBe('to_title');
    expect((await toolError(s.call('wiki_link', { action: 'list', title: 'Nope' }))).field).toBe('title');
    const act = await toolError(s.call('wiki_link', { action: 'remove', title: 'A' }));
    expect(act.field).toBe('action');
    expect(act.accepted).toEqual(['list', 'add']);
    // B exists only on the user layer: the agent layer cannot link to it.
    await add(s, 'A', 'agent a', { layer: 'agent', wiki_type: 'decision_log' });
    expect((await toolError(s.call('wiki_link', { action: 'add', title: 'A', to_title: 'B', relation: 'follows', layer: 'agent' }))).field).toBe('to_title');
    expect(rows(s, 'wiki_links')).toBe(0);
  });
});
