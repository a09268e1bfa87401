import { afterEach, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { createTestServer, ManualClock, tempDataDir } from '@memory-service/testing';
import { dreamIds, primitives, type TestServer } from './helpers.js';

/**
 * The retrieval indexes are saved to `<data_dir>/retrieval/<source>.idx` with their terms. A word
 * only forgotten records held must not stay in those files once the forget is saved.
 */
let s: TestServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await s?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  s = undefined;
  dir = undefined;
});

function indexFiles(dataDir: string): Buffer {
  const folder = path.join(dataDir, 'retrieval');
  return Buffer.concat(fs.readdirSync(folder).map((f) => fs.readFileSync(path.join(folder, f))));
}

// Regression guard, fixed: the index kept the term of a removed document (its document frequency
// dropped to 0), so a word forgotten without the Shadow Bin stayed in the saved .idx file.
it('forget without the Shadow Bin leaves no term of the forgotten text in the saved index files', async () => {
  dir = tempDataDir();
  const open = () => createTestServer({ plugins: [primitives], expose: 'primitives', clock: new ManualClock(), dataDir: dir });
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
