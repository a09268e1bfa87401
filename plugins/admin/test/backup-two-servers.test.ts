import write from '@memory-service/plugin-write';
import { describe, expect, it } from 'vitest';
import { admin, primitives, serversOnOneDir, type TestServer } from './helpers.js';

/** Two servers on one data dir (one database, each its own in-memory retrieval index) across a memory_backup restore. */
const servers = serversOnOneDir([primitives, write, admin]);
const { start, close } = servers;
/** The texts of the episodes dream finds for the query (each under its heading in the summary). */
const found = async (s: TestServer, query: string): Promise<string[]> => {
  const r = await s.call('dream', { query, sources: ['l3'] });
  if (r.result_count === 0) return [];
  return (r.summary as string).split('\n\n').map((section) => section.split('\n').slice(1).join('\n'));
};

/**
 * Two servers on one data dir: a takes a backup of the ferry note, writes five weather notes and a
 * kiwi note, which b finds; then a restores the backup. b's index still holds what came after it.
 */
async function restoredBeside(): Promise<{ a: TestServer; b: TestServer }> {
    servers.fresh();
    const a = await start();
    const b = await start();
    await a.call('memory_episode_save', { summary: 'The harbour ferry leaves at dawn.' });
    const taken = (await a.call('memory_backup', { action: 'now' })).backup;
    for (let i = 0; i < 5; i++) await a.call('memory_episode_save', { summary: `Filler note ${i} about the weather.` });
    await a.call('memory_episode_save', { summary: 'Bought a kiwi at the market.' });
    expect(await found(b, 'kiwi')).toEqual(['Bought a kiwi at the market.']);
    await a.call('memory_backup', { action: 'restore', name: taken.name });
  return { a, b };
}

describe('memory_backup restore with another server on the data dir', () => {
  // Regression guard, fixed: the other server's index still described the database from before the
  // restore, and once later writes took the restored change log past its cursor, dream answered
  // "kiwi" with an unrelated episode (the record that now had the id of the kiwi one).
  it("the other server's dream answers from the restored records: never with an unrelated episode, nor one the restore took away", async () => {
    const { a, b } = await restoredBeside();
    for (let i = 0; i < 8; i++) await a.call('memory_episode_save', { summary: `Train timetable ${i} for the valley line.` });
    expect(await found(b, 'kiwi')).toEqual([]);
    expect(await found(b, 'weather')).toEqual([]);
    expect(await found(b, 'harbour ferry')).toEqual(['The harbour ferry leaves at dawn.']);
    expect(await found(b, 'timetable 3')).toContain('Train timetable 3 for the valley line.');
  });

  it('a server started after the restore never reads the index another server saved from before it', async () => {
    const { a, b } = await restoredBeside();
    // b stops without a search after the restore: it saves the index it holds.
    await close(b);
    for (let i = 0; i < 8; i++) await a.call('memory_episode_save', { summary: `Train timetable ${i} for the valley line.` });
    const c = await start();
    expect(await found(c, 'kiwi')).toEqual([]);
    expect(await found(c, 'weather')).toEqual([]);
    expect(await found(c, 'harbour ferry')).toEqual(['The harbour ferry leaves at dawn.']);
  });
});
