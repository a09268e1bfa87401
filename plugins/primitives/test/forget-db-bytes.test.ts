import { afterEach, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { createTestServer, ManualClock, tempDataDir } from '@memory-service/testing';
import { primitives, type TestServer } from './helpers.js';

/**
 * forget without the Shadow Bin must not leave the forgotten text readable in the database file:
 * SQLite keeps a deleted row's bytes in its page unless secure_delete is on.
 */
let s: TestServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await s?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  s = undefined;
  dir = undefined;
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
  s = await createTestServer({ plugins: [primitives], expose: 'primitives', clock: new ManualClock(), dataDir: dir });
  for (let i = 0; i < 20; i++) await s.call('think', { text: `The ferry number ${i} leaves at eight every morning from the north pier`, layer: 'user' });
  await s.call('think', { text: 'My savings account nickname is zorblatt, at Quuxbank', layer: 'user' });
  for (let i = 0; i < 20; i++) await s.call('think', { text: `The bus number ${i} leaves at nine every evening from the south gate`, layer: 'user' });
  const r = await s.call('forget', { key: 'zorblatt', scope: 'fuzzy', layer: 'user', shadow_bin: false });
  expect(r.deleted_l3).toBe(1);
  await s.close();
  s = undefined;
  const bytes = databaseBytes(dir);
  expect(bytes.includes('north pier')).toBe(true);
  expect(bytes.includes('zorblatt')).toBe(false);
  expect(bytes.includes('Quuxbank')).toBe(false);
});
