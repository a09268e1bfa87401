import { afterEach, describe, expect, it } from 'vitest';
import { add, start, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const C = 'caf\u00e9';
const D = 'cafe\u0301';

describe('wiki tags and titles as text forms (audit R)', () => {
  it('a page tagged decomposed is found by wiki_query with the tag precomposed, and the other way round', async () => {
    s = await start();
    const p = await add(s, 'Tagged page', 'x', { tags: [D] });
    expect(p.page.tags).toEqual([C]);
    for (const tag of [C, D]) expect((await s.call('wiki_query', { tags: [tag] })).pages.map((x: any) => x.title), JSON.stringify(tag)).toEqual(['Tagged page']);
  });

  it('refuses a new tag holding an invisible format character and a title holding U+2028 or U+2029, naming the field, writing nothing', async () => {
    s = await start();
    expect(await toolError(add(s, 'Page', 'x', { tags: ['a\u200bb'] }))).toMatchObject({ field: 'tags.0', message: expect.stringMatching(/invisible format characters/) });
    for (const title of ['t\u2028u', 't\u2029u']) expect(await toolError(add(s, title, 'x')), JSON.stringify(title)).toMatchObject({ field: 'title' });
    expect((await s.call('wiki_list', {})).pages).toEqual([]);
  });
});
