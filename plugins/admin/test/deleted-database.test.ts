import fs from 'node:fs';
import path from 'node:path';
import { DB_FILE_CHECK_MS } from '@memory-service/kernel';
import wiki from '@memory-service/plugin-wiki';
import { createTestServer, tempDataDir } from '@memory-service/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { admin, ManualClock, primitives, toolError, type TestServer } from './helpers.js';

const servers: TestServer[] = [];
let dataDir: string | undefined;
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

/** A server of the primitives, the wiki and admin on `dir`, every tool exposed (the dir is kept on close). */
async function serve(dir: string, clock: ManualClock): Promise<TestServer> {
  const s = await createTestServer({ plugins: [primitives, wiki, admin], dataDir: dir, clock });
  servers.push(s);
  return s;
}

const BEFORE = 'The harbour crane inspection happens every second Monday of the month.';
const AFTER = 'The ferry timetable changes to the winter schedule in late October.';

// Regression guard, fixed: with memory.db deleted while the server ran (an `rm -rf` of the data dir),
// think, wiki_add and every other write were acknowledged into the unlinked file and lost at the
// next start. SQLite checks for a moved database (SQLITE_READONLY_DBMOVED) only with a rollback
// journal; the server runs in WAL mode, so Storage checks the file itself.
describe('a memory.db deleted while the server runs', () => {
  it('refuses every write with KERNEL_ERR_STORAGE naming memory.db, still reads, and a backup taken then brings the memory back after a restart', async () => {
    const clock = new ManualClock();
    dataDir = tempDataDir('deleted-db-');
    const s = await serve(dataDir, clock);
    await s.call('think', { text: BEFORE, layer: 'user' });
    const file = path.join(dataDir, 'memory.db');
    for (const f of ['memory.db', 'memory.db-wal', 'memory.db-shm']) fs.rmSync(path.join(dataDir, f), { force: true });
    // The file is checked at most once per DB_FILE_CHECK_MS while it is found in place.
    await new Promise((resolve) => setTimeout(resolve, DB_FILE_CHECK_MS + 50));

    const refused = {
      type: 'StorageError',
      code: 'KERNEL_ERR_STORAGE',
      message: expect.stringContaining(`cannot write to the database ${file}: it was moved, deleted or replaced while the server runs (no file is at its path now)`),
    };
    expect(await toolError(s.call('think', { text: AFTER, layer: 'user' }))).toMatchObject(refused);
    expect(await toolError(s.call('wiki_add', { title: 'Ferry Notes', content: AFTER, wiki_type: 'diary', layer: 'user' }))).toMatchObject(refused);
    // A tool that runs outside the call's transaction (project) writes through the stores' own, which checks the same.
    expect(await toolError(s.call('project', { action: 'init', name: 'harbour', layer: 'user' }))).toMatchObject(refused);
    // Reads go on from the open file.
    expect((await s.call('dream', { query: 'harbour crane inspection', layer: 'user' })).summary).toContain('crane inspection');
    // The way out the message gives: a backup still copies the open database...
    const backup = (await s.call('memory_backup', { action: 'now' })).backup;
    // A restore now would copy into a new file at memory.db's path while the connection writes to the old one.
    expect(await toolError(s.call('memory_backup', { action: 'restore', name: backup.name }))).toMatchObject(refused);
    await s.close();
    servers.splice(0);

    // ...and after a restart (a new, empty memory.db) it is restored.
    const again = await serve(dataDir, clock);
    expect((await again.call('dream', { query: 'harbour crane inspection', layer: 'user' })).result_count).toBe(0);
    await again.call('memory_backup', { action: 'restore', name: backup.name });
    expect((await again.call('dream', { query: 'harbour crane inspection', layer: 'user' })).summary).toContain('crane inspection');
    // Nothing refused was kept anywhere.
    expect((await again.call('dream', { query: 'ferry timetable winter schedule', layer: 'user' })).result_count).toBe(0);
    expect((await again.call('wiki_list', { layer: 'user' })).total).toBe(0);
    // And the restarted server writes as before.
    await again.call('think', { text: AFTER, layer: 'user' });
    expect((await again.call('dream', { query: 'ferry timetable winter schedule', layer: 'user' })).summary).toContain('winter schedule');
  });
});
