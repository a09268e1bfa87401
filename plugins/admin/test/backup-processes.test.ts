import fs from 'node:fs';
import path from 'node:path';
import { openSqlite } from '@memory-service/kernel';
import write from '@memory-service/plugin-write';
import { describe, expect, it } from 'vitest';
import { admin, primitives, serversOnOneDir, type TestServer } from './helpers.js';

/** Servers on one data dir, each standing for a server process sharing it. */
const servers = serversOnOneDir([primitives, write, admin]);

/** `s` saves an episode at every turn of the event loop until stopped; answers the summaries it had acknowledged. */
function steadyWriter(s: TestServer): { acked: string[]; stop(): Promise<string[]> } {
  let stopped = false;
  const acked: string[] = [];
  const done = (async () => {
    for (let n = 0; !stopped; n++) {
      const summary = `Written by the other server, note ${n}.`;
      await s.call('memory_episode_save', { summary });
      acked.push(summary);
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  return {
    acked,
    stop: async () => {
      stopped = true;
      await done;
      return acked;
    },
  };
}

describe('memory_backup with other servers on the data dir', () => {
  // Regression guard, fixed (audit-o finding 3): the backup API restarted from the first page whenever
  // another process wrote between its steps: with a steady writer a backup of a large database never finished.
  it('now finishes while another server writes at every turn, and the copy is a whole database', async () => {
    servers.fresh();
    const a = await servers.start();
    const b = await servers.start();
    const db = a.kernel.storage.db;
    db.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    const fill = db.prepare('INSERT INTO filler (body) VALUES (?)');
    db.transaction(() => {
      for (let i = 0; i < 3000; i++) fill.run(`${i} ${'x'.repeat(2000)}`);
    })();
    const writer = steadyWriter(b);
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      a.call('memory_backup', { action: 'now' }),
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), 10_000))),
    ]);
    clearTimeout(timer);
    const acked = await writer.stop();
    expect(outcome, 'memory_backup now did not finish within 10 s while the other server wrote').not.toBeNull();
    expect(acked.length).toBeGreaterThan(5);
    const copy = openSqlite(path.join(a.dataDir, 'backups', outcome.backup.name), { readonly: true, fileMustExist: true });
    try {
      expect(copy.pragma('quick_check', { simple: true })).toBe('ok');
      expect(copy.prepare('SELECT COUNT(*) FROM filler').pluck().get()).toBe(3000);
    } finally {
      copy.close();
    }
  }, 30_000);

  // Regression guard, fixed (audit-o finding 6): two processes taking a backup at the same clock time both
  // answered one name, and the second rename replaced the first backup.
  it('now in two servers at the same clock time answers two names, each its own file', async () => {
    servers.fresh();
    const a = await servers.start();
    const b = await servers.start();
    await a.call('memory_episode_save', { summary: 'The harbour ferry leaves at dawn.' });
    const names: string[] = [];
    for (let round = 0; round < 3; round++) {
      const both = await Promise.all([a.call('memory_backup', { action: 'now' }), b.call('memory_backup', { action: 'now' })]);
      names.push(...both.map((r) => r.backup.name as string));
    }
    expect(new Set(names).size).toBe(6);
    const listed = (await a.call('memory_backup', { action: 'list' })).backups.map((x: { name: string }) => x.name);
    expect([...listed].sort()).toEqual([...names].sort());
    for (const name of names) expect(fs.statSync(path.join(a.dataDir, 'backups', name)).size).toBeGreaterThan(0);
  });
});
