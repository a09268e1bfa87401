import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import wiki from '@memory-service/plugin-wiki';
import { createTestServer } from '@memory-service/testing';
import { ManualClock, admin, primitives, storesOf, type TestServer } from './helpers.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const T = { layer: 'user' as const, user_id: 'target' };

describe('memory_data import replace: the page files after the commit (in-process MCP client)', () => {
  it('answers before the files are written, reads answer the imported pages meanwhile, and every file then holds its page; the dropped pages\' files go', async () => {
    s = await createTestServer({ plugins: [primitives, wiki, admin], expose: 'all', clock: new ManualClock() });
    const st = storesOf(s);
    for (let i = 0; i < 300; i++) st.wiki.save(T, { title: `Page ${i}`, content: `old text ${i}`, wiki_type: 'diary' });
    const doc = (await s.call('memory_data', { action: 'export', user_id: 'target' })).data;
    doc.wiki_pages = doc.wiki_pages.slice(0, 200).map((p: { content: string }, i: number) => ({ ...p, content: `new text ${i}` }));
    const paths = doc.wiki_pages.map((p: { path: string }) => p.path as string);
    const dropped = st.wiki.list(T, { limit: 1000 }).map((p) => p.path).filter((p) => !paths.includes(p));
    expect(dropped).toHaveLength(100);
    const file = (rel: string) => (fs.existsSync(path.join(s!.dataDir, rel)) ? fs.readFileSync(path.join(s!.dataDir, rel), 'utf8') : null);

    const r = await s.call('memory_data', { action: 'import', data: doc, mode: 'replace', user_id: 'target' });
    expect(r.cleared.wiki_pages).toBe(300);
    expect(r.imported.wiki_pages).toBe(200);
    // The answer came before the files: they are written a slice at a time after the commit, so
    // the last page's file still holds the replaced text, while a read answers the imported text.
    const last = paths[paths.length - 1]!;
    expect(file(last)).toBe('old text 199');
    expect((await s.call('wiki_read', { path: last, user_id: 'target' })).page.content).toBe('new text 199');

    for (let turns = 0; file(last) !== 'new text 199' || file(dropped[dropped.length - 1]!) !== null; turns++) {
      if (turns > 10_000) throw new Error('the page files were never written');
      await new Promise((resolve) => setImmediate(resolve));
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(paths.map(file)).toEqual(paths.map((_: string, i: number) => `new text ${i}`));
    expect(dropped.map(file)).toEqual(dropped.map(() => null));
    const db = s.kernel.storage.db;
    expect(db.prepare('SELECT COUNT(*) FROM wiki_file_writes').pluck(true).get()).toBe(0);
    expect(db.prepare('SELECT COUNT(*) FROM wiki_file_removals').pluck(true).get()).toBe(0);
    // The replaced pages are in the Shadow Bin as they were read.
    const bin = st.shadowBin.list(T, { origin_store: 'wiki', limit: 1000 });
    expect(bin).toHaveLength(300);
    expect(bin.find((e) => e.origin_id === 'Page 250')!.content).toMatchObject({ content: 'old text 250' });
  });
});
