import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { add, rows, start, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

async function dreamIds(query: string, extra: Record<string, unknown> = {}): Promise<string[]> {
  return (await s.call('dream', { query, hits: true, ...extra })).hits.map((h: { id: string }) => h.id);
}

describe('wiki_delete', () => {
  it('archives the page in the Shadow Bin, deletes file, row and links; dream and wiki_search no longer find it', async () => {
    s = await start();
    const p = await add(s, 'Quarry notes', 'The flamingo quarry opens at dawn.', { tags: ['t'] });
    await add(s, 'Other', 'Follows the earlier notes.');
    await s.call('wiki_link', { action: 'add', title: 'Other', to_title: 'Quarry notes', relation: 'follows' });
    expect(await dreamIds('flamingo quarry')).toEqual([p.page.id]);
    expect((await s.call('wiki_search', { query: 'flamingo' })).count).toBe(1);
    const r = await s.call('wiki_delete', { title: 'Quarry notes' });
    expect(r).toMatchObject({ deleted: true, title: 'Quarry notes', wiki_type: 'diary', path: p.page.path, archived: true, shadow_id: expect.stringMatching(/^bin_/), deleted_links: 1 });
    expect(fs.existsSync(path.join(s.dataDir, p.page.path))).toBe(false);
    expect(await dreamIds('flamingo quarry')).toEqual([]);
    expect((await s.call('wiki_search', { query: 'flamingo' })).count).toBe(0);
    expect((await s.call('wiki_link', { action: 'list', title: 'Other' })).out).toEqual([]);
    expect((await toolError(s.call('wiki_read', { path: p.page.path }))).field).toBe('path');
    const bin = s.kernel.storage.db.prepare('SELECT origin_store, origin_id, content FROM shadow_bin').all() as any[];
    expect(bin).toHaveLength(1);
    expect(bin[0]).toMatchObject({ origin_store: 'wiki', origin_id: 'Quarry notes' });
    expect(JSON.parse(bin[0].content)).toMatchObject({ content: 'The flamingo quarry opens at dawn.', wiki_type: 'diary', tags: ['t'] });
  });

  it('with shadow_bin false deletes without archiving', async () => {
    s = await start();
    await add(s, 'Scratch', 'temporary');
    expect(await s.call('wiki_delete', { title: 'Scratch', shadow_bin: false })).toMatchObject({ archived: false, shadow_id: null });
    expect(rows(s, 'shadow_bin')).toBe(0);
    expect(rows(s, 'wiki_pages')).toBe(0);
  });

  it('a title with no page (or a page of another layer) is an error naming title; bad input names its field', async () => {
    s = await start();
    await add(s, 'Agent only', 'x', { layer: 'agent', wiki_type: 'decision_log' });
    const err = await toolError(s.call('wiki_delete', { title: 'Agent only' }));
    expect(err).toMatchObject({ field: 'title', type: 'NotFoundError' });
    expect((await toolError(s.call('wiki_delete', {}))).field).toBe('title');
    expect((await toolError(s.call('wiki_delete', { title: 'Agent only', layer: 'agent', shadow_bin: 'yes' }))).field).toBe('shadow_bin');
    expect(rows(s, 'wiki_pages')).toBe(1);
    expect(rows(s, 'shadow_bin')).toBe(0);
  });
});
