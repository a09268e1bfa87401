import { afterEach, expect, it } from 'vitest';
import { add, start, type TestServer } from './helpers.js';

/** wiki_search finds a Russian or Arabic page by an inflected form of its words, with the excerpt around that form. */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const filler = 'Lorem ipsum dolor sit amet. '.repeat(10);

it('wiki_search finds a Russian or Arabic page by another form of its words, the excerpt around it', async () => {
  s = await start();
  await add(s, 'Планы', `${filler}Встреча с инвесторами в понедельник.`);
  await add(s, 'Books', `${filler}الكتاب الجديد على الطاولة.`);
  await add(s, 'Other', `${filler}Nothing of either here.`);
  for (const [query, title, around] of [
    ['встречу с инвестором', 'Планы', /Встреча с инвесторами/],
    ['встречи', 'Планы', /Встреча с/],
    ['كتابه', 'Books', /الكتاب الجديد/],
  ] as const) {
    const r = await s.call('wiki_search', { query });
    expect(r.results.map((p: { title: string }) => p.title), query).toEqual([title]);
    expect(r.results[0].excerpt, query).toMatch(around);
  }
});
