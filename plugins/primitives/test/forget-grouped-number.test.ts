import { afterEach, expect, it } from 'vitest';
import { count, dreamIds, thinkApart, type TestServer } from './helpers.js';

/**
 * dream indexes a number grouped by thousands also joined ("$12,400" is found by "12400"; stores
 * retrieval/word-delimiter.ts rule 3): what dream finds for a word, fuzzy forget with that word
 * deletes, so forget takes the joined number too, and keeps apart what dream keeps apart.
 */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

async function thinkAll(texts: string[]): Promise<void> {
  ({ s } = await thinkApart(texts));
}

// Regression guard, fixed: dream "12400" found "Our AWS bill was $12,400 in October.", and forget fuzzy "12400" deleted nothing.
it('fuzzy "12400" deletes the episode that says "$12,400", as dream finds it', async () => {
  await thinkAll(['Our AWS bill was $12,400 in October.', 'The crate weighs 12.400 kg on the scale.', 'The ferry leaves at eight.']);
  expect(await dreamIds(s, { query: '12400' })).toHaveLength(1);
  const before = count(s, 'episodes');
  const r = await s.call('forget', { key: '12400', scope: 'fuzzy', layer: 'user' });
  expect(r.deleted_l3).toBe(1);
  expect(r.deleted_l4).toBe(0);
  expect(r.deleted_l1).toBe(1);
  expect(count(s, 'episodes')).toBe(before - 1);
  expect(await dreamIds(s, { query: '12400' })).toEqual([]);
  expect(await dreamIds(s, { query: 'AWS bill October' })).toEqual([]);
  // "12.400" may be a decimal: dream does not join it, nor does forget.
  expect(await dreamIds(s, { query: 'crate' })).toHaveLength(1);
});

it('fuzzy "12,400" deletes the memory that says "12400"', async () => {
  await thinkAll(['The invoice total came to 12400 euros last spring.', 'The ferry leaves at eight.']);
  expect((await s.call('forget', { key: '12,400', scope: 'fuzzy', layer: 'user' })).deleted_l3).toBe(1);
  expect(await dreamIds(s, { query: 'invoice' })).toEqual([]);
  expect(await dreamIds(s, { query: 'ferry' })).toHaveLength(1);
});
