import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seededRandom } from '@memory-service/kernel';
import { duplicateKeyGroups, episodeKey } from './cleanup.js';
import { foldText } from './retrieval/query.js';
import { derivedNodeIds } from './graph.js';
import { A, U, U2, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv({ recallEventsKeep: 3 });
});
afterEach(() => env.close());

const DAY = 86_400_000;

/** Every row of every table, and the files of the data dir's backups folder. */
function snapshot(): string {
  const tables = env.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck(true).all() as string[];
  const rows = tables.map((t) => [t, env.db.prepare(`SELECT * FROM "${t}"`).all()]);
  const dir = path.join(env.dir, 'backups');
  return JSON.stringify([rows, fs.existsSync(dir) ? fs.readdirSync(dir).sort() : null]);
}

function seed(scope = U) {
  const s = env.stores;
  s.facts.upsert(scope, { key: 'color', value: 'blue', importance: 0.4 });
  s.facts.upsert(scope, { key: 'favourite colour', value: 'blue', importance: 0.9 });
  s.facts.upsert(scope, { key: 'colour again', value: 'blue', importance: 0.4 });
  s.facts.upsert(scope, { key: 'city', value: 'Lyon' });
  s.episodes.add(scope, { summary: 'Met Ana at the café.', tags: ['social'], importance: 0.3 });
  s.episodes.add(scope, { summary: 'met ana at the cafe', tags: ['food'], importance: 0.6 });
  s.episodes.add(scope, { summary: 'Walked the dog' });
}

describe('Cleanup', () => {
  it('a dry run reports what each task would remove and changes nothing in the database or on disk', async () => {
    seed();
    for (let i = 0; i < 5; i++) env.db.prepare("INSERT INTO recall_events (layer, user_id, query, intent, result_count, ms, created) VALUES ('user', 'default', ?, 'balanced', 0, 1, ?)").run(`q${i}`, env.stores.ctx.iso());
    fs.mkdirSync(path.join(env.dir, 'backups'));
    for (let i = 0; i < 4; i++) {
      const f = path.join(env.dir, 'backups', `b${i}.db`);
      fs.writeFileSync(f, 'x');
      fs.utimesSync(f, 1000 + i, 1000 + i);
    }
    env.clock.advance(100 * DAY);
    env.stores.facts.upsert(U, { key: 'fresh', value: 'new' });
    const before = snapshot();
    const r = await env.stores.cleanup.run(U, { dryRun: true, backupsKeep: 2 });
    expect(snapshot()).toBe(before);
    expect(r.dry_run).toBe(true);
    expect(r.dedup_core).toEqual({ groups: 1, removed: 2, removed_nodes: 0, archived: 0, removed_keys: ['colour again', 'color'] });
    expect(r.compress_episodes).toMatchObject({ groups: 1, removed: 1, archived: 0, retagged: 1, removed_ids: ['ep_1'] });
    expect(r.dream_buffer).toEqual({ rows: 5, keep: 3, removed: 2 });
    expect(r.audit?.removed).toBe(env.db.prepare("SELECT COUNT(*) FROM audit_log WHERE layer = 'user' AND ts < ?").pluck(true).get(r.audit?.cutoff));
    expect(r.audit?.removed).toBeGreaterThan(0);
    expect(r.backups).toMatchObject({ dir_exists: true, files: 4, removed: 2, removed_files: ['b1.db', 'b0.db'], saga_table: true, saga_rows_removed: 0 });
    expect(r.compaction?.vacuum).toBe('none');
  });

  it('applied, archives and removes the duplicates and trims, each task as its dry run said', async () => {
    seed();
    seed(U2);
    for (let i = 0; i < 5; i++) env.stores.recallEvents.record(U, { query: `q${i}`, intent: 'balanced', result_count: 0, ms: 1 });
    const dry = await env.stores.cleanup.run(U, { dryRun: true, tasks: ['dedup_core', 'compress_episodes', 'dream_buffer'] });
    const r = await env.stores.cleanup.run(U, { dryRun: false, tasks: ['dedup_core', 'compress_episodes', 'dream_buffer'] });
    expect(r.dedup_core?.removed).toBe(dry.dedup_core?.removed);
    expect(r.dedup_core?.archived).toBe(2);
    expect(env.stores.facts.holding(U, 'blue').map((f) => f.key)).toEqual(['favourite colour']);
    // The merged episode keeps the most important summary and takes in the other's tags.
    const eps = env.stores.episodes.list(U);
    expect(eps.map((e) => e.summary).sort()).toEqual(['Walked the dog', 'met ana at the cafe']);
    expect(eps.find((e) => e.summary === 'met ana at the cafe')?.tags).toEqual(['food', 'social']);
    expect(env.stores.shadowBin.list(U).map((e) => e.origin_store).sort()).toEqual(['l3', 'l4', 'l4']);
    expect(env.stores.recallEvents.recent(U, 10).map((e) => e.query)).toEqual(['q4', 'q3', 'q2']);
    // Another user_id is untouched.
    expect(env.stores.facts.holding(U2, 'blue')).toHaveLength(3);
    expect(env.stores.episodes.count(U2)).toBe(3);
    // A second run finds nothing more.
    const again = await env.stores.cleanup.run(U, { dryRun: false, tasks: ['dedup_core', 'compress_episodes'] });
    expect([again.dedup_core?.removed, again.compress_episodes?.removed]).toEqual([0, 0]);
  });

  it('dedup_core removes the graph nodes made from a removed fact, archived, unless a remaining record names them', async () => {
    const s = env.stores;
    s.rememberer.remember(U, { key: 'editor', value: 'uses neovim daily', importance: 0.5 });
    const kept = s.rememberer.remember(U, { key: 'tool_pref', value: 'uses neovim daily', importance: 0.8 });
    // An auto-save's fact and episode share one node: the episode stays, so does the node.
    const shared = s.graph.addNode(U, { content: 'uses neovim daily', node_type: 'memory' });
    s.episodes.add(U, { summary: 'uses neovim daily', meta: { derived_nodes: [shared.node_id] } });
    s.facts.upsert(U, { key: 'auto:neovim', value: 'uses neovim daily', importance: 0.3, metadata: { derived_nodes: [shared.node_id] } });
    const editorNode = derivedNodeIds(s.facts.get(U, 'editor')!.metadata)[0]!;
    const dry = await s.cleanup.run(U, { dryRun: true, tasks: ['dedup_core'] });
    expect(dry.dedup_core).toEqual({ groups: 1, removed: 2, removed_nodes: 1, archived: 0, removed_keys: ['editor', 'auto:neovim'] });
    expect(s.graph.getNode(U, editorNode)).not.toBeNull();
    const r = await s.cleanup.run(U, { dryRun: false, tasks: ['dedup_core'] });
    expect(r.dedup_core).toEqual({ ...dry.dedup_core, archived: 3 });
    expect(s.graph.nodes(U).map((n) => n.node_id).sort()).toEqual([kept.node_id, shared.node_id].sort());
    const archived = s.shadowBin.list(U).filter((e) => e.origin_store === 'graph');
    expect(archived.map((e) => e.origin_id)).toEqual([editorNode]);
    // Restored from the Shadow Bin, the fact and its node come back together.
    s.shadowBin.restore(archived[0]!.id);
    expect(s.graph.getNode(U, editorNode)?.content).toBe('editor: uses neovim daily');
  });

  it('dream_buffer counts the dreams still queued in a dry run too: it reports what the applied run removes', async () => {
    env.close();
    // A bound above one trim step, so the rows the writes leave past it are the task's to remove.
    env = makeEnv({ recallEventsKeep: 20 });
    for (let i = 0; i < 22; i++) env.stores.defer(() => env.stores.recallEvents.record(U, { query: `q${i}`, intent: 'balanced', result_count: 0, ms: 1 }));
    const dry = await env.stores.cleanup.run(U, { dryRun: true, tasks: ['dream_buffer'] });
    expect(dry.dream_buffer).toEqual({ rows: 21, keep: 20, removed: 1 });
    const applied = await env.stores.cleanup.run(U, { dryRun: false, tasks: ['dream_buffer'] });
    expect(applied.dream_buffer).toEqual(dry.dream_buffer);
    expect(env.stores.recallEvents.count(U)).toBe(20);
  });

  it('trims audit rows past the retention and backups past the count; compaction vacuums free pages', async () => {
    env.stores.facts.upsert(U, { key: 'old', value: 'x'.repeat(20_000) });
    env.stores.facts.upsert(A, { key: 'agent', value: 'kept' });
    env.clock.advance(10 * DAY);
    env.stores.facts.upsert(U, { key: 'new', value: 'y' });
    env.stores.facts.delete(U, 'old');
    fs.mkdirSync(path.join(env.dir, 'backups', 'sub'), { recursive: true });
    for (let i = 0; i < 3; i++) {
      const f = path.join(env.dir, 'backups', `b${i}.db`);
      fs.writeFileSync(f, 'x');
      fs.utimesSync(f, 1000 + i, 1000 + i);
    }
    const r = await env.stores.cleanup.run(U, { dryRun: false, tasks: ['audit', 'backups', 'compaction'], auditRetentionDays: 5, backupsKeep: 1 });
    expect(r.audit?.removed).toBe(1);
    expect(env.db.prepare("SELECT COUNT(*) FROM audit_log WHERE layer = 'user' AND ts < ?").pluck(true).get(r.audit?.cutoff)).toBe(0);
    expect(env.db.prepare("SELECT COUNT(*) FROM audit_log WHERE layer = 'agent'").pluck(true).get()).toBe(1);
    expect(fs.readdirSync(path.join(env.dir, 'backups')).sort()).toEqual(['b2.db', 'sub']);
    expect(r.backups?.removed_files).toEqual(['b1.db', 'b0.db']);
    expect(r.compaction?.freelist_pages_before).toBeGreaterThan(0);
    expect(r.compaction?.vacuum).toBe('vacuum');
    expect(r.compaction?.freelist_pages_after).toBe(0);
    expect(env.db.prepare('SELECT COUNT(*) FROM retrieval_changes WHERE old IS NOT NULL').pluck(true).get()).toBe(0);
    // The indexes still answer after the compaction.
    expect(env.stores.retrieval.search(A, 'kept').map((h) => h.id)).toEqual([env.stores.facts.get(A, 'agent')?.entry_id]);
  });

  it('backups task counts only backups: a temp copy being taken and journals are not kept in place of a backup, and each removed backup\'s journal goes with it', async () => {
    const dir = path.join(env.dir, 'backups');
    fs.mkdirSync(dir);
    const put = (name: string, t: number) => {
      fs.writeFileSync(path.join(dir, name), 'x');
      fs.utimesSync(path.join(dir, name), t, t);
    };
    put('manual-20260101T000000000Z.db', 1000);
    put('manual-20260101T000000000Z.db-journal', 1000);
    put('manual-20260102T000000000Z.db', 2000);
    put('manual-20260103T000000000Z.db', 3000);
    // Newer than every backup: a copy another process is taking now, with its journal.
    put(`manual-20260104T000000000Z.db.${process.pid}.0123456789ab.tmp`, 4000);
    put(`manual-20260104T000000000Z.db.${process.pid}.0123456789ab.tmp-journal`, 4000);
    const r = await env.stores.cleanup.run(U, { dryRun: false, tasks: ['backups'], backupsKeep: 2 });
    expect(r.backups).toMatchObject({ files: 3, removed: 1, removed_files: ['manual-20260101T000000000Z.db'] });
    expect(fs.readdirSync(dir).sort()).toEqual([
      'manual-20260102T000000000Z.db',
      'manual-20260103T000000000Z.db',
      `manual-20260104T000000000Z.db.${process.pid}.0123456789ab.tmp`,
      `manual-20260104T000000000Z.db.${process.pid}.0123456789ab.tmp-journal`,
    ]);
  });

  it('backups task: removes the saga journal\'s finished runs older than the retention, keeps rollback_failed, unfinished and recent ones', async () => {
    const s = env.stores;
    s.sagas.define('noop', { scoped: true, steps: [{ name: 'a', run: () => 1 }] });
    s.sagas.define('broken', { scoped: true, steps: [{ name: 'a', run: () => 1, compensate: () => { throw new Error('no'); } }, { name: 'b', run: () => { throw new Error('b'); } }] });
    const oldDone = await s.sagas.run('noop', U);
    const oldFailed = await s.sagas.run('broken', U);
    const unfinished = s.sagas.journal.begin('noop', U);
    env.clock.advance(100 * DAY);
    const recent = await s.sagas.run('noop', U2);
    const dry = await s.cleanup.run(U, { dryRun: true, tasks: ['backups'] });
    expect(dry.backups).toMatchObject({ saga_table: true, saga_rows_removed: 1 });
    expect(s.sagas.journal.get(oldDone.run_id)).not.toBeNull();
    const r = await s.cleanup.run(U, { dryRun: false, tasks: ['backups'], auditRetentionDays: 90 });
    expect(r.backups?.saga_rows_removed).toBe(1);
    expect(s.sagas.journal.get(oldDone.run_id)).toBeNull();
    expect(env.db.prepare('SELECT count(*) FROM saga_steps WHERE run_id = ?').pluck(true).get(oldDone.run_id)).toBe(0);
    for (const id of [oldFailed.run_id, unfinished, recent.run_id]) expect(s.sagas.journal.get(id)).not.toBeNull();
  });

  // Regression guard, fixed (audit-s F2): project's audit rows carry no scope, the audit task trims only the
  // caller's scope, and nothing ever removed them.
  it('backups task: removes the audit_log rows of no scope older than the retention, keeps young ones and every scope\'s rows; a dry run only counts', async () => {
    const s = env.stores;
    s.projects.init('apollo');
    s.projects.addDecision('apollo', { decision: 'use sqlite' });
    s.audit.log(U2, 'note', 'fact', 'k', {});
    const scopeless = () => env.db.prepare('SELECT count(*) FROM audit_log WHERE layer IS NULL').pluck(true).get() as number;
    const old = scopeless();
    expect(old).toBeGreaterThanOrEqual(2);
    const ofU2 = () => env.db.prepare("SELECT count(*) FROM audit_log WHERE layer = ? AND user_id = ?").pluck(true).get(U2.layer, U2.user_id) as number;
    const u2Before = ofU2();
    env.clock.advance(100 * DAY);
    s.projects.addDecision('apollo', { decision: 'keep the audit trail short' });
    const before = snapshot();
    const dry = await s.cleanup.run(U, { dryRun: true, tasks: ['backups'], auditRetentionDays: 90 });
    expect(dry.backups?.scopeless_audit_removed).toBe(old);
    expect(snapshot()).toBe(before);
    const r = await s.cleanup.run(U, { dryRun: false, tasks: ['backups'], auditRetentionDays: 90 });
    expect(r.backups?.scopeless_audit_removed).toBe(old);
    expect(scopeless()).toBe(1);
    expect(env.db.prepare("SELECT detail FROM audit_log WHERE layer IS NULL").pluck(true).get()).toMatch(/keep the audit trail short/);
    expect(ofU2()).toBe(u2Before);
    expect((await s.cleanup.run(U, { dryRun: false, tasks: ['backups'], auditRetentionDays: 90 })).backups?.scopeless_audit_removed).toBe(0);
  });

  it('refuses an empty task list and out-of-range options, naming the field', async () => {
    await expect(env.stores.cleanup.run(U, { dryRun: true, tasks: [] })).rejects.toThrow(expect.objectContaining({ field: 'tasks' }));
    await expect(env.stores.cleanup.run(U, { dryRun: true, auditRetentionDays: 0 })).rejects.toThrow(expect.objectContaining({ field: 'audit_retention_days' }));
    await expect(env.stores.cleanup.run(U, { dryRun: true, backupsKeep: 1.5 })).rejects.toThrow(expect.objectContaining({ field: 'backups_keep' }));
  });

  it('episodeKey folds case, accents, punctuation and spacing', () => {
    expect(episodeKey('  Met Ana — at the Café!! ')).toBe(episodeKey('met ana at the cafe'));
    expect(episodeKey('Met Ana')).not.toBe(episodeKey('Met Anna'));
    expect(episodeKey('...')).toBe('');
  });

  it('episodeKey of ASCII text is the Unicode key (folded, runs of other than letters and digits one space), for every ASCII character', () => {
    const reference = (t: string) => foldText(t).replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
    const rand = seededRandom(5);
    for (let i = 0; i < 5000; i++) {
      const t = Array.from({ length: Math.floor(rand() * 40) }, () => String.fromCharCode(Math.floor(rand() * 128))).join('');
      expect(episodeKey(t), JSON.stringify(t)).toBe(reference(t));
    }
    for (const t of ['Café — au LAIT', '\uff23\uff21\uff26\uff25!', 'x\u00a0y', 'Straße 5']) expect(episodeKey(t)).toBe(reference(t));
  });

  it('duplicateKeyGroups groups as keying every summary did, in the same order (seeded random summaries)', () => {
    const reference = (rows: { id: number; summary: string }[]) => {
      const groups = new Map<string, number[]>();
      for (const r of rows) {
        const key = foldText(r.summary).replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
        if (key) groups.set(key, [...(groups.get(key) ?? []), r.id]);
      }
      return [...groups].filter(([, ids]) => ids.length > 1);
    };
    const rand = seededRandom(13);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
    const words = ['Met', 'met', 'ANA', 'Ana', 'at', 'the', 'Café', 'cafe', 'CAFE', '\uff23\uff21\uff26\uff25', 'Zürich', 'zurich', '42', 'x', '...', '', '猫'];
    for (let round = 0; round < 200; round++) {
      const rows = Array.from({ length: Math.floor(rand() * 30) }, (_, i) => ({
        id: i + 1,
        summary: Array.from({ length: Math.floor(rand() * 4) }, () => pick(words)).join(pick([' ', '  ', ', ', ' — ', '!', '\n', ''])),
      }));
      expect([...duplicateKeyGroups(rows)], JSON.stringify(rows)).toEqual(reference(rows));
    }
  });

  it('compress_episodes groups seeded random summaries as the Unicode key groups them, and dedup_core with no duplicate removes nothing', async () => {
    const rand = seededRandom(9);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
    const words = ['Met', 'met', 'ANA', 'Ana', 'at', 'the', 'Café', 'cafe', 'CAFE', 'garden', '42', 'x'];
    const summaries = Array.from({ length: 150 }, () => Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(words)).join(pick([' ', '  ', ', ', ' — ', '!'])));
    const ids = summaries.map((t) => env.stores.episodes.add(U, { summary: t }).id);
    const reference = (t: string) => foldText(t).replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
    const groups = new Map<string, string[]>();
    summaries.forEach((t, i) => groups.set(reference(t), [...(groups.get(reference(t)) ?? []), ids[i]!]));
    const dup = [...groups.values()].filter((g) => g.length > 1);
    const r = await env.stores.cleanup.run(U, { dryRun: true, tasks: ['compress_episodes', 'dedup_core'] });
    expect(r.compress_episodes!.groups).toBe(dup.length);
    expect(r.compress_episodes!.removed).toBe(dup.reduce((n, g) => n + g.length - 1, 0));
    expect(r.dedup_core).toEqual({ groups: 0, removed: 0, removed_nodes: 0, archived: 0, removed_keys: [] });
  });
});

describe('Cleanup: tags stored before they were checked', () => {
  it('compress_episodes merges a duplicate\'s tag holding an invisible format character into the kept episode', async () => {
    const a = env.stores.episodes.add(U, { summary: 'Met Ana at the cafe.', tags: ['social'], importance: 0.3 });
    env.stores.episodes.add(U, { summary: 'met ana at the cafe', tags: ['food'], importance: 0.6 });
    env.db.prepare('UPDATE episodes SET tags = ? WHERE id = ?').run(JSON.stringify(['wo\u200brk']), Number(a.id.slice(3)));
    const r = await env.stores.cleanup.run(U, { dryRun: false, tasks: ['compress_episodes'] });
    expect(r.compress_episodes).toMatchObject({ removed: 1, retagged: 1 });
    expect(env.stores.episodes.list(U).map((e) => e.tags)).toEqual([['food', 'wo\u200brk']]);
  });
});
