import path from 'node:path';
import { openSqlite } from '@memory-service/kernel';
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { count, hook, snapshot, start, toolError, type TestServer } from './helpers.js';

/**
 * project and memory_hook run outside the call's transaction (`transaction: false`) and write in
 * transactions of their own: while another process holds the write lock, those wait for it without
 * holding up the server (Stores.transactionWhenFree), within the call's busy timeout.
 */
let s: TestServer | undefined;
let other: Database.Database | undefined;
afterEach(async () => {
  if (other?.inTransaction) other.exec('ROLLBACK');
  other?.close();
  other = undefined;
  await s?.close();
  s = undefined;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Another connection on the server's memory.db (another process's) takes the write lock. */
function lock(server: TestServer): Database.Database {
  other = openSqlite(path.join(server.dataDir, 'memory.db'));
  other.exec('BEGIN IMMEDIATE');
  return other;
}

/**
 * Run `call` while another connection holds the write lock for `holdMs` (released by a timer of this
 * process, which fires only while the event loop turns), pinging the server over MCP meanwhile:
 * answers the call's outcome and the longest a ping waited for its answer.
 */
async function whileLocked<T>(server: TestServer, holdMs: number, call: () => Promise<T>): Promise<{ value: T; worstPingMs: number; pings: number }> {
  const holder = lock(server);
  setTimeout(() => holder.exec('COMMIT'), holdMs);
  let settled = false;
  const running = call().finally(() => (settled = true));
  let worst = 0;
  let pings = 0;
  while (!settled) {
    const t = performance.now();
    await server.client.ping();
    worst = Math.max(worst, performance.now() - t);
    pings++;
    await sleep(20);
  }
  return { value: await running, worstPingMs: worst, pings };
}

describe('project while another process holds the write lock', () => {
  it('init, mapping, decision, update and archive wait for it without holding up the server, then write', async () => {
    s = await start();
    // Before, each waited in SQLite's busy handler inside a synchronous call: the server answered nothing, then the call failed.
    s.kernel.storage.db.pragma('busy_timeout = 4000');
    const project = (args: Record<string, unknown>) => s!.call('project', args);
    const init = await whileLocked(s, 1000, () => project({ action: 'init', name: 'Harbour', details: 'Ferry timetables.' }));
    expect(init.value.status).toBe('created');
    expect(init.worstPingMs).toBeLessThan(500);
    expect(init.pings).toBeGreaterThan(5);
    for (const args of [
      { action: 'mapping', details: 'src/timetable.ts', role: 'core' },
      { action: 'decision', details: 'Use SQLite. It is one file.', outcome: 'adopted' },
      { action: 'update', details: 'Now with winter hours.' },
      { action: 'archive' },
    ]) {
      const r = await whileLocked(s, 300, () => project({ name: 'Harbour', ...args }));
      expect(r.worstPingMs, args.action).toBeLessThan(250);
      expect(r.value.project, args.action).toBe('Harbour');
    }
    const recall = await project({ action: 'recall', name: 'Harbour' });
    expect(recall.status).toBe('archived');
    expect(recall.decision_count).toBe(1);
    expect(recall.artifact_count).toBe(1);
    expect(recall.identity.description).toContain('winter hours');
  }, 30_000);

  it('fails KERNEL_ERR_BUSY once the busy timeout has passed, nothing written', async () => {
    s = await start();
    await s.call('project', { action: 'init', name: 'Harbour' });
    s.kernel.storage.db.pragma('busy_timeout = 300');
    const before = snapshot(s);
    lock(s);
    for (const args of [
      { action: 'decision', details: 'Use SQLite. It is one file.' },
      { action: 'mapping', details: 'src/a.ts' },
      { action: 'init', name: 'Lighthouse' },
    ]) {
      const err = await toolError(s.call('project', { name: 'Harbour', ...args }));
      expect(err, args.action).toMatchObject({ code: 'KERNEL_ERR_BUSY' });
      expect(err.message).toContain('another process holds its write lock');
    }
    other!.exec('ROLLBACK');
    expect(snapshot(s)).toEqual(before);
    expect((await s.call('project', { action: 'recall', name: 'Harbour' })).decision_count).toBe(0);
    expect((await toolError(s.call('project', { action: 'recall', name: 'Lighthouse' }))).type).toBe('NotFoundError');
  });
});

describe('memory_hook while another process holds the write lock', () => {
  it('session_started, new_message and session_ended wait for it without holding up the server, then write', async () => {
    s = await start();
    s.kernel.storage.db.pragma('busy_timeout = 4000');
    const started = await whileLocked(s, 1000, () => hook(s!, 'session_started', { text: 'ferry' }));
    expect(started.value.session_id).toMatch(/^sess_/);
    expect(started.worstPingMs).toBeLessThan(500);
    expect(started.pings).toBeGreaterThan(5);
    const text = 'Critical: the ferry to the island leaves at 06:40 sharp, never later, remember it always.';
    const saved = await whileLocked(s, 300, () => hook(s!, 'new_message', { text }));
    expect(saved.worstPingMs).toBeLessThan(250);
    expect(saved.value.saved).toBe(true);
    const ended = await whileLocked(s, 300, () => hook(s!, 'session_ended', { summary: 'Planned the ferry trip.' }));
    expect(ended.worstPingMs).toBeLessThan(250);
    expect(ended.value.saved).toBe(true);
    expect(count(s, 'episodes')).toBe(2);
    expect(count(s, 'l1_items')).toBe(1);
  }, 30_000);

  it('an event whose write gives up after the busy timeout answers KERNEL_ERR_BUSY under the plugin\'s name, nothing written', async () => {
    s = await start();
    s.kernel.storage.db.pragma('busy_timeout = 300');
    const before = snapshot(s);
    lock(s);
    const out = await s.call('memory_hook', { event: 'new_message', payload: { text: 'Critical: the ferry leaves at 06:40 sharp, remember it always.' } });
    expect(out.results['@memory-service/plugin-primitives'].error).toMatchObject({ code: 'KERNEL_ERR_BUSY' });
    other!.exec('ROLLBACK');
    expect(snapshot(s)).toEqual(before);
  });
});
