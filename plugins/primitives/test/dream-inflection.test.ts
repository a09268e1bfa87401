import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import { createTestServer } from '@memory-service/testing';
import { dreamIds, ManualClock, primitives, thinkApart, type TestServer } from './helpers.js';

/**
 * dream finds a Russian or Arabic note by another inflected form of its words, as an English one by
 * its plural: Russian words are stemmed by the Snowball Russian stemmer, Arabic words by a light
 * stemmer (stores retrieval/stemmer.ts), in the index and the query alike. forget's word match stays
 * by words and spellings, not stems.
 */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const MEMORIES = [
  'Встреча с инвесторами в понедельник в десять утра.',
  'Купить молоко и хлеб по дороге домой.',
  'الكتاب الجديد على الطاولة في المكتبة.',
  'اجتماع الفريق يوم الأحد.',
  'The investors meeting moved to Tuesday.',
  'Книга про историю Москвы лежит на полке.',
];

async function thinkAll(): Promise<string[][]> {
  const { s: server, results } = await thinkApart(MEMORIES);
  s = server;
  return results.map((r) => r.actions.filter((a: { store: string }) => a.store !== 'l1').map((a: { id: string }) => a.id));
}

it('dream finds a Russian or Arabic note first by an inflected form of its words', async () => {
  const ids = await thinkAll();
  for (const [query, want] of [
    ['встречу с инвестором', 0],
    ['встречи инвесторов', 0],
    ['ВСТРЕЧАМИ', 0],
    ['книгу об истории', 5],
    ['книги', 5],
    ['كتاب', 2],
    ['كتابه الجديدة', 2],
    ['بالمكتبة', 2],
    ['الاجتماع', 3],
    // A slip of the keyboard on an inflected form: typo tolerance compares stems.
    ['встручу', 0],
  ] as const) {
    const hits = await dreamIds(s, { query, layer: 'user' });
    expect(hits.length, query).toBeGreaterThan(0);
    expect(ids[want], `${query}: first hit ${hits[0]}`).toContain(hits[0]);
  }
  // English as before: the plural finds the singular.
  expect(ids[4]).toContain((await dreamIds(s, { query: 'investor meetings', layer: 'user' }))[0]);
});

it('forget fuzzy matches words, not stems: the form dream finds a note by deletes nothing', async () => {
  const ids = await thinkAll();
  for (const key of ['كتابه', 'встречу']) {
    expect(ids[key === 'كتابه' ? 2 : 0], key).toContain((await dreamIds(s, { query: key, layer: 'user' }))[0]);
    expect((await s.call('forget', { key, scope: 'fuzzy', layer: 'user' })).deleted_l3, key).toBe(0);
  }
  expect((await s.call('forget', { key: 'Встреча', scope: 'fuzzy', layer: 'user' })).deleted_l3).toBe(1);
});

it('a saved index of format 8 (Russian and Arabic words unstemmed) is rebuilt, not read', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dream-inflection-'));
  const open = () => createTestServer({ plugins: [primitives], expose: 'primitives', clock: new ManualClock(), dataDir: dir });
  try {
    s = await open();
    const note = (await s.call('think', { text: MEMORIES[0]!, layer: 'user' })).actions.find((a: { store: string }) => a.store === 'l3').id;
    expect(await dreamIds(s, { query: 'встречу с инвестором', layer: 'user' })).toEqual([note]);
    await s.close();
    const file = path.join(dir, 'retrieval', 'l3.idx');
    const saved = fs.readFileSync(file);
    const format = /"format":(\d+),/.exec(saved.subarray(0, 4096).toString('latin1'));
    expect(Number(format?.[1])).toBeGreaterThan(8);
    // The same file as a format-8 one, with a checksum that holds: only its format differs.
    const body = Buffer.from(saved.subarray(0, saved.length - 20).toString('latin1').replace(`"format":${format![1]},`, '"format":8,'), 'latin1');
    fs.writeFileSync(file, Buffer.concat([body, createHash('sha1').update(body).digest()]));

    s = await open();
    expect(await dreamIds(s, { query: 'встречу с инвестором', layer: 'user' })).toEqual([note]);
    await s.close();
    // Built again and saved in this version's format.
    expect(fs.readFileSync(file).subarray(0, 4096).toString('latin1')).toContain(`"format":${format![1]},`);
  } finally {
    await s?.close();
    s = undefined as unknown as TestServer;
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
