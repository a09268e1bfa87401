import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestServer } from '@memory-service/testing';
import { admin, ManualClock, primitives, start, storesOf, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const U = { layer: 'user', user_id: 'default' } as const;
const DAY = 86_400_000;

/** Every row of every table and the backups folder's files: what a dry run must leave as it was. */
function snapshot(): string {
  storesOf(s).flush();
  const db = s.kernel.storage.db;
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck(true).all() as string[];
  const dir = path.join(s.dataDir, 'backups');
  return JSON.stringify([tables.map((t) => [t, db.prepare(`SELECT * FROM "${t}"`).all()]), fs.existsSync(dir) ? fs.readdirSync(dir).sort() : null]);
}

async function seed(user_id = 'default') {
  const st = storesOf(s);
  st.facts.upsert({ ...U, user_id }, { key: 'drink', value: 'green tea', importance: 0.5 });
  st.facts.upsert({ ...U, user_id }, { key: 'favourite drink', value: 'green tea', importance: 0.9 });
  await s.call('think', { text: 'We talked about the harbour renovation plans over lunch on Friday.', user_id });
  await s.call('think', { text: 'we talked about the harbour renovation plans, over lunch on friday', user_id });
}

function backups(n: number) {
  const dir = path.join(s.dataDir, 'backups');
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < n; i++) {
    fs.writeFileSync(path.join(dir, `memory-${i}.db`), 'backup');
    fs.utimesSync(path.join(dir, `memory-${i}.db`), 1000 + i, 1000 + i);
  }
}

describe('memory_cleanup', () => {
  it('is a dry run by default: it reports per-task counts and leaves the database and backups unchanged', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    await seed();
    backups(3);
    clock.advance(200 * DAY);
    await s.call('think', { text: 'A fresh thought after a long pause, about the new bakery.' });
    const before = snapshot();
    const r = await s.call('memory_cleanup', { backups_keep: 1 });
    expect(snapshot()).toBe(before);
    expect(r).toMatchObject({ layer: 'user', user_id: 'default', dry_run: true, tasks: ['dedup_core', 'compress_episodes', 'dream_buffer', 'audit', 'backups', 'compaction'] });
    expect(r.dedup_core).toEqual({ groups: 1, removed: 1, removed_nodes: 0, archived: 0, removed_keys: ['drink'] });
    expect(r.compress_episodes).toMatchObject({ groups: 1, removed: 1, archived: 0 });
    expect(r.audit.removed).toBeGreaterThan(0);
    expect(r.backups).toMatchObject({ files: 3, removed: 2, removed_files: ['memory-1.db', 'memory-0.db'] });
  });

  it('applied with dry_run false, archives the duplicates to the Shadow Bin and prunes backups; only the chosen tasks run', async () => {
    s = await start();
    await seed();
    await seed('bob');
    backups(3);
    const r = await s.call('memory_cleanup', { dry_run: false, tasks: ['dedup_core', 'compress_episodes', 'backups'], backups_keep: 2 });
    expect(r.tasks).toEqual(['dedup_core', 'compress_episodes', 'backups']);
    expect(r.audit).toBeUndefined();
    expect(r.dedup_core).toMatchObject({ removed: 1, archived: 1 });
    expect(r.compress_episodes).toMatchObject({ removed: 1, archived: 1 });
    const st = storesOf(s);
    expect(st.facts.holding(U, 'green tea').map((f) => f.key)).toEqual(['favourite drink']);
    expect(st.shadowBin.list(U).map((e) => e.origin_store).sort()).toEqual(['l3', 'l4']);
    expect(fs.readdirSync(path.join(s.dataDir, 'backups')).sort()).toEqual(['memory-1.db', 'memory-2.db']);
    // bob's duplicates stay: the scope tasks act on one layer and user_id.
    expect(st.facts.holding({ ...U, user_id: 'bob' }, 'green tea')).toHaveLength(2);
    // The archived fact can be restored.
    const entry = st.shadowBin.list(U).find((e) => e.origin_store === 'l4')!;
    st.shadowBin.restore(entry.id);
    expect(st.facts.get(U, 'drink')?.value).toBe('green tea');
  });

  // Regression guard, fixed (audit-s F2): project's audit rows carry no scope, and no memory_cleanup of any scope removed them.
  it('backups task: trims the audit_log rows of no scope (project) older than audit_retention_days, keeping young ones; a dry run only counts', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    await s.call('project', { action: 'init', name: 'apollo' });
    await s.call('project', { action: 'decision', name: 'apollo', details: 'use sqlite' });
    const scopeless = () => s.kernel.storage.db.prepare('SELECT detail FROM audit_log WHERE layer IS NULL AND user_id IS NULL ORDER BY id').pluck(true).all() as string[];
    const old = scopeless().length;
    expect(old).toBeGreaterThanOrEqual(2);
    clock.advance(100 * DAY);
    await s.call('project', { action: 'decision', name: 'apollo', details: 'keep the audit trail short' });
    const before = snapshot();
    const dry = await s.call('memory_cleanup', { tasks: ['audit', 'backups'], audit_retention_days: 90 });
    expect(dry.backups.scopeless_audit_removed).toBe(old);
    expect(snapshot()).toBe(before);
    const r = await s.call('memory_cleanup', { dry_run: false, tasks: ['audit', 'backups'], audit_retention_days: 90 });
    expect(r.backups.scopeless_audit_removed).toBe(old);
    const left = scopeless();
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/keep the audit trail short/);
  });

  it('trims the dream buffer beyond its bound (retrieval.recall_events_keep) and compacts the database', async () => {
    s = await createTestServer({ plugins: [primitives, admin], expose: 'admin', clock: new ManualClock(), config: { retrieval: { recall_events_keep: 2 } } });
    const st = storesOf(s);
    // Rows beyond the bound, as a table from before a lowered bound holds them.
    const insert = s.kernel.storage.db.prepare("INSERT INTO recall_events (layer, user_id, query, intent, result_count, ms, created) VALUES ('user', 'default', ?, 'balanced', 0, 1, ?)");
    for (let i = 0; i < 5; i++) insert.run(`q${i}`, new Date(0).toISOString());
    for (let i = 0; i < 6; i++) st.facts.upsert(U, { key: `bulky ${i}`, value: `${i} ${'z'.repeat(9000)}` });
    for (let i = 0; i < 6; i++) await s.call('forget', { key: `bulky ${i}` });
    const r = await s.call('memory_cleanup', { dry_run: false, tasks: ['dream_buffer', 'compaction'] });
    expect(r.dream_buffer).toEqual({ rows: 5, keep: 2, removed: 3 });
    expect(st.recallEvents.recent(U, 10).map((e) => e.query)).toEqual(['q4', 'q3']);
    expect(r.compaction).toMatchObject({ vacuum: 'vacuum', indexes_refreshed: true, freelist_pages_after: 0 });
    expect(r.compaction.freelist_pages_before).toBeGreaterThan(0);
    expect(s.kernel.storage.db.prepare('SELECT COUNT(*) FROM retrieval_changes WHERE old IS NOT NULL').pluck(true).get()).toBe(0);
  });

  it('dream_buffer: a dry run right after dreams reports what the applied run then removes', async () => {
    s = await createTestServer({ plugins: [primitives, admin], expose: 'all', clock: new ManualClock(), config: { retrieval: { recall_events_keep: 20 } } });
    await s.call('think', { text: 'Kiwis grow on vines in New Zealand orchards.' });
    for (let i = 0; i < 22; i++) await s.call('dream', { query: `kiwi ${i}` });
    const dry = await s.call('memory_cleanup', { tasks: ['dream_buffer'] });
    const applied = await s.call('memory_cleanup', { tasks: ['dream_buffer'], dry_run: false });
    expect(dry.dream_buffer).toEqual({ rows: 21, keep: 20, removed: 1 });
    expect(applied.dream_buffer).toEqual(dry.dream_buffer);
  });

  it('names the field of a bad option', async () => {
    s = await start();
    expect((await toolError(s.call('memory_cleanup', { tasks: [] }))).field).toBe('tasks');
    expect((await toolError(s.call('memory_cleanup', { tasks: ['defrag'] }))).field).toMatch(/^tasks/);
    expect((await toolError(s.call('memory_cleanup', { audit_retention_days: 0 }))).field).toBe('audit_retention_days');
    expect((await toolError(s.call('memory_cleanup', { backups_keep: 5000 }))).field).toBe('backups_keep');
    expect((await toolError(s.call('memory_cleanup', { dry_run: 'no' }))).field).toBe('dry_run');
  });
});
