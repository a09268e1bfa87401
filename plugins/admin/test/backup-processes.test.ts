import fs from 'node:fs';
import path from 'node:path';
import { openSqlite } from '@memory-service/kernel';
import write from '@memory-service/plugin-write';
import { describe, expect, it } from 'vitest';
import { admin, primitives, serversOnOneDir, type TestServer } from './helpers.js';

/** Servers on one data dir, each standing for a server process sharing it. */
const servers = serversOnOneDir([primitives, write, admin]);

/**
 * `s` saves an episode at every turn of the event loop until stopped; answers the summaries it had
 * acknowledged. With `busyFails`, a save that finds the write lock taken fails at once and is not
 * acknowledged: in one process, a save waiting for the lock another server here holds would block
 * the event loop that server needs to let it go (a process of its own would just wait).
 */
function steadyWriter(s: TestServer, busyFails = false): { acked: string[]; stop(): Promise<string[]> } {
  let stopped = false;
  const acked: string[] = [];
  if (busyFails) s.kernel.storage.db.pragma('busy_timeout = 0');
  const done = (async () => {
    for (let n = 0; !stopped; n++) {
      const summary = `Written by the other server, note ${n}.`;
      const out = await s.callRaw('memory_episode_save', { summary });
      if (!out.isError) acked.push(summary);
      else if (!busyFails || !out.text.includes('KERNEL_ERR_BUSY')) throw new Error(out.text);
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

/** The summaries of `wanted` that the database file holds as episodes. */
function episodesIn(file: string, wanted: readonly string[]): Set<string> {
  const db = openSqlite(file, { readonly: true, fileMustExist: true });
  try {
    const has = db.prepare('SELECT 1 FROM episodes WHERE summary = ?');
    return new Set(wanted.filter((w) => has.get(w) !== undefined));
  } finally {
    db.close();
  }
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

  // Regression guard, fixed (audit-o finding 5): the safety backup was taken before the restore took the
  // write lock, so what another process committed in between was in neither the restored database nor it.
  it('restore: every write another server acknowledged before the answer is in the restored database or in the safety backup', async () => {
    servers.fresh();
    const a = await servers.start();
    const b = await servers.start();
    await a.call('memory_episode_save', { summary: 'The harbour ferry leaves at dawn.' });
    const taken = (await a.call('memory_backup', { action: 'now' })).backup;
    const writer = steadyWriter(b, true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const restored = await a.call('memory_backup', { action: 'restore', name: taken.name });
    const before = [...writer.acked];
    await writer.stop();
    expect(before.length).toBeGreaterThan(0);
    const live = episodesIn(path.join(a.dataDir, 'memory.db'), before);
    const safety = episodesIn(path.join(a.dataDir, 'backups', restored.safety_backup.name), before);
    expect(before.filter((w) => !live.has(w) && !safety.has(w))).toEqual([]);
    // What came before the restore is in its safety backup: undoing the restore brings it back.
    expect(safety.size).toBeGreaterThan(0);
  });
});
