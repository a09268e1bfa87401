import { afterEach, expect, it } from 'vitest';
import { start, storesOf, USER, type TestServer } from './helpers.js';

/** memory_search ranks as dream does: a Russian or Arabic memory is found by another inflected form of its words. */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

it('memory_search finds Russian and Arabic memories by inflected forms', async () => {
  s = await start();
  const st = storesOf(s);
  const ep = st.episodes.add(USER, { summary: 'Встреча с инвесторами в понедельник' });
  const fact = st.facts.upsert(USER, { key: 'book', value: 'الكتاب الجديد على الطاولة', importance: 0.5 });
  st.episodes.add(USER, { summary: 'Купить молоко по дороге домой' });
  const ru = (await s.call('memory_search', { query: 'встречу с инвестором', layer: 'user' })).hits;
  expect(ru[0]).toMatchObject({ source: 'l3', id: ep.id });
  const ar = (await s.call('memory_search', { query: 'كتابه', layer: 'user', sources: ['l4'] })).hits;
  expect(ar.map((h: { id: string }) => h.id)).toEqual([fact.entry_id]);
});
