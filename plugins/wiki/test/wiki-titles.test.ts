import { afterEach, describe, expect, it } from 'vitest';
import { add, rows, start, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const nfc = (t: string) => t.normalize('NFC');
const nfd = (t: string) => t.normalize('NFD');

describe('wiki titles as identities', () => {
  it('a title sent composed or decomposed is one page: wiki_add updates it, wiki_link and wiki_delete find it', async () => {
    s = await start();
    const first = await add(s, nfc('Café menu'), 'first text NFC');
    const second = await add(s, nfd('Café menu'), 'second text NFD');
    expect(second).toMatchObject({ status: 'updated', page: { id: first.page.id, path: first.page.path, title: nfc('Café menu') } });
    expect((await s.call('wiki_list', {})).pages.map((p: any) => p.title)).toEqual([nfc('Café menu')]);
    await add(s, 'Other', 'x');
    const linked = await s.call('wiki_link', { action: 'add', title: 'Other', to_title: nfd('Café menu'), relation: 'follows' });
    expect(linked.added).toMatchObject({ title: nfc('Café menu'), created_new: true });
    expect((await s.call('wiki_read', { path: first.page.path })).page.content).toBe('second text NFD');
    const deleted = await s.call('wiki_delete', { title: nfd('Café menu') });
    expect(deleted).toMatchObject({ deleted: true, title: nfc('Café menu') });
    expect((await s.call('wiki_list', {})).pages.map((p: any) => p.title)).toEqual(['Other']);
  });

  it('refuses a title holding a bidi override or a zero-width space, naming title, writing nothing', async () => {
    s = await start();
    for (const title of ['invoice\u202Efdp.exe', 'Caf\u200Be menu', 'Hy\u00ADphen']) {
      const err = await toolError(add(s, title, 'x'));
      expect(err, JSON.stringify(title)).toMatchObject({ field: 'title', accepted: expect.stringMatching(/bidi/) });
    }
    expect(rows(s, 'wiki_pages')).toBe(0);
    // A joiner inside a Persian word or an emoji sequence is part of the title.
    expect((await add(s, 'می\u200Cخواهم 👨\u200D👩\u200D👧', 'x')).status).toBe('created');
  });
});
