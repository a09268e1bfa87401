import { afterEach, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { createTestServer, ManualClock, tempDataDir } from '@memory-service/testing';
import { dreamIds, primitives, type TestServer } from './helpers.js';

/**
 * What forget without the Shadow Bin leaves on disk. The retrieval indexes are saved to
 * `<data_dir>/retrieval/<source>.idx` with their terms, and SQLite keeps a deleted row's bytes in
 * its page unless secure_delete is on: a word only forgotten records held must stay in neither once
 * the forget is saved.
 */
let s: TestServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await s?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  s = undefined;
  dir = undefined;
});

const open = () => createTestServer({ plugins: [primitives], expose: 'primitives', clock: new ManualClock(), dataDir: dir });

function indexFiles(dataDir: string): Buffer {
  const folder = path.join(dataDir, 'retrieval');
  return Buffer.concat(fs.readdirSync(folder).map((f) => fs.readFileSync(path.join(folder, f))));
}

// Regression guard, fixed: the index kept the term of a removed document (its document frequency
// dropped to 0), so a word forgotten without the Shadow Bin stayed in the saved .idx file.
it('forget without the Shadow Bin leaves no term of the forgotten text in the saved index files', async () => {
  dir = tempDataDir();
  s = await open();
  await s.call('think', { text: 'The ferry leaves at eight every morning from the north pier', layer: 'user' });
  await s.call('think', { text: 'My savings account nickname is zorblatt, at Quuxbank', layer: 'user' });
  expect(await dreamIds(s, { query: 'zorblatt', layer: 'user' })).toHaveLength(1);
  await s.close();
  expect(indexFiles(dir).includes('zorblatt')).toBe(true);
  s = await open();
  // The index is read (or built) before the forget, as a running server's is.
  expect(await dreamIds(s, { query: 'zorblatt', layer: 'user' })).toHaveLength(1);
  const r = await s.call('forget', { key: 'zorblatt', scope: 'fuzzy', layer: 'user', shadow_bin: false });
  expect(r.deleted_l3).toBe(1);
  expect(await dreamIds(s, { query: 'zorblatt', layer: 'user' })).toEqual([]);
  expect(await dreamIds(s, { query: 'ferry pier', layer: 'user' })).toHaveLength(1);
  await s.close();
  expect(indexFiles(dir).includes('zorblatt')).toBe(false);
  s = await open();
  expect(await dreamIds(s, { query: 'ferry pier', layer: 'user' })).toHaveLength(1);
  await s.call('think', { text: 'Another note: zorblatt was the old nickname', layer: 'user' });
  expect(await dreamIds(s, { query: 'zorblatt', layer: 'user' })).toHaveLength(1);
});

/** Every byte of the database files (the main file, and the WAL and its index when present). */
function databaseBytes(dataDir: string): Buffer {
  return Buffer.concat(
    fs
      .readdirSync(dataDir)
      .filter((f) => f.startsWith('memory.db'))
      .map((f) => fs.readFileSync(path.join(dataDir, f))),
  );
}

// Regression guard, fixed: the deleted rows' text stayed in memory.db's pages (secure_delete off), so
// `strings memory.db` still showed what the user had forgotten.
it('forget without the Shadow Bin leaves no copy of the forgotten text in the database files once closed', async () => {
  dir = tempDataDir();
  s = await open();
  for (let i = 0; i < 20; i++) await s.call('think', { text: `The ferry number ${i} leaves at eight every morning from the north pier`, layer: 'user' });
  await s.call('think', { text: 'My savings account nickname is zorblatt, at Quuxbank', layer: 'user' });
  for (let i = 0; i < 20; i++) await s.call('think', { text: `The bus number ${i} leaves at nine every evening from the south gate`, layer: 'user' });
  // dream records its query (recall_events): the words the user asked with go with what they named.
  await s.call('dream', { query: 'which bank holds zorblatt', layer: 'user' });
  const r = await s.call('forget', { key: 'zorblatt', scope: 'fuzzy', layer: 'user', shadow_bin: false });
  expect(r).toMatchObject({ deleted_l3: 1, deleted_recall_events: 1 });
  await s.close();
  s = undefined;
  const bytes = databaseBytes(dir);
  expect(bytes.includes('north pier')).toBe(true);
  expect(bytes.includes('zorblatt')).toBe(false);
  expect(bytes.includes('Quuxbank')).toBe(false);
});

// Regression guard, fixed: a dream in another server process on the same data dir queues its query
// and writes it up to a second later, after this process's forget had deleted the matching ones.
it('forget in one server leaves no query another server on the same data dir had queued', async () => {
  dir = tempDataDir();
  s = await open();
  const other = await open();
  try {
    await s.call('think', { text: 'My savings account nickname is zorblatt, at Quuxbank', layer: 'user' });
    await other.call('dream', { query: 'which bank holds zorblatt', layer: 'user' });
    const r = await s.call('forget', { key: 'zorblatt', scope: 'fuzzy', layer: 'user', shadow_bin: false });
    expect(r.deleted_l3).toBe(1);
  } finally {
    // Closing writes what the other server still had queued.
    await other.close();
  }
  await s.close();
  s = undefined;
  expect(databaseBytes(dir).includes('zorblatt')).toBe(false);
});
