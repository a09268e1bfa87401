import { afterEach, expect, it } from 'vitest';
import { count, dreamIds, thinkApart, type TestServer } from './helpers.js';

/**
 * dream indexes a hyphenated word also joined up ("e-mail" is found by "email"): what dream finds
 * for a word, fuzzy forget with that word deletes, so forget takes the joined forms too.
 */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

async function thinkAll(texts: string[]): Promise<void> {
  ({ s } = await thinkApart(texts));
}

// Regression guard, fixed: dream "email" found "My private e-mail address ...", and forget fuzzy "email" deleted nothing.
it('fuzzy "email" deletes the memory that says "e-mail", as dream finds it', async () => {
  await thinkAll(['My private e-mail address is anna.k@example.org, please keep it', 'Our e-mail-based workflow is slow.', 'The ferry leaves at eight.']);
  expect(await dreamIds(s, { query: 'email' })).toHaveLength(1);
  const r = await s.call('forget', { key: 'email', scope: 'fuzzy', layer: 'user' });
  expect(r.deleted_l4 + r.deleted_l3).toBe(1);
  expect(r.deleted_l1).toBe(1);
  // No memory holds "email" now: dream searches the words one edit away ("mail" of "e-mail-based"), never the forgotten one.
  const left = await s.call('dream', { query: 'email', hits: true });
  expect(left.summary).toContain('workflow');
  expect(left.summary).not.toContain('anna.k');
  expect(await dreamIds(s, { query: 'anna example' })).toEqual([]);
  // dream indexes "e-mail-based" joined whole ("emailbased"), not as "email": it stays, as for dream.
  expect(await dreamIds(s, { query: 'workflow' })).not.toEqual([]);
  expect(count(s, 'facts') + count(s, 'episodes')).toBe(2);
});

it('fuzzy "e-mail" deletes the memory that says "email", and a phrase matches across the joined form', async () => {
  await thinkAll(['Send the invoice by email on Friday.', 'I would rather de-stress by the sea this weekend.', 'The ferry leaves at eight.']);
  expect((await s.call('forget', { key: 'e-mail', scope: 'fuzzy', layer: 'user' })).deleted_l3).toBe(1);
  expect((await s.call('forget', { key: 'destress by the sea', scope: 'fuzzy', layer: 'user' })).deleted_l3).toBe(1);
  expect(await dreamIds(s, { query: 'invoice' })).toEqual([]);
  expect(await dreamIds(s, { query: 'weekend' })).toEqual([]);
  expect(await dreamIds(s, { query: 'ferry' })).toHaveLength(1);
});
