import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ScopeDocument } from './scope-doc.js';
import type { Stores } from './stores.js';
import { U, U2, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

/**
 * The process "killed" after its next commit: the work after the commit (the files of its rows)
 * stops after the first `hooks` steps, and the database is left as the commit left it.
 */
function killAfterCommit(stores: Stores, hooks = 0): void {
  const ctx = stores.ctx as unknown as { commitHooks: (() => void)[]; owning: boolean; committed(): void };
  ctx.committed = () => {
    ctx.owning = false;
    for (const hook of ctx.commitHooks.splice(0).slice(0, hooks)) hook();
  };
}

/** An export document of `n` pages (and these standing queries) into no particular scope. */
function pagesDoc(n: number, standing: ScopeDocument['standing_queries'] = []): unknown {
  const at = '2026-01-01T00:00:00.000Z';
  return {
    format: 'memory-service-scope-export',
    version: 1,
    layer: 'user',
    user_id: 'default',
    wiki_pages: Array.from({ length: n }, (_, i) => ({ title: `Imported ${i}`, content: `imported page ${i}`, wiki_type: 'diary', created: at, updated: at })),
    standing_queries: standing,
  };
}

const rowsOf = (user: string) =>
  env.db.prepare("SELECT path, content FROM wiki_pages WHERE layer = 'user' AND user_id = ? ORDER BY id").all(user) as { path: string; content: string }[];
const fileText = (rel: string) => (fs.existsSync(path.join(env.dir, rel)) ? fs.readFileSync(path.join(env.dir, rel), 'utf8') : null);
const owed = () => env.db.prepare('SELECT COUNT(*) FROM wiki_file_writes').pluck(true).get() as number;

describe('the files a memory_data import owes, when its process is killed after the commit', () => {
  it('an import of more pages than the repair of the newest saves covers: the next start writes every page file', () => {
    killAfterCommit(env.stores, 40);
    env.stores.scopeData.importScope(U2, pagesDoc(600), 'merge');
    const rows = rowsOf('bob');
    expect(rows).toHaveLength(600);
    expect(rows.filter((r) => fileText(r.path) === null).length).toBeGreaterThan(500);
    const next = env.second().stores;
    expect(next.repairAfterStop().wiki_files).toBeGreaterThan(500);
    expect(rows.filter((r) => fileText(r.path) !== r.content)).toEqual([]);
    expect(owed()).toBe(0);
  });

  it('a whole import clears its notes once its files are written; a single save notes nothing', () => {
    env.stores.scopeData.importScope(U2, pagesDoc(3), 'merge');
    // Written after the commit, a slice at a time: flush finishes them at once.
    expect(owed()).toBe(3);
    env.stores.flush();
    expect(owed()).toBe(0);
    expect(rowsOf('bob').every((r) => fileText(r.path) === r.content)).toBe(true);
    killAfterCommit(env.stores);
    env.stores.wiki.save(U, { title: 'Single', content: 'one page', wiki_type: 'diary' });
    expect(owed()).toBe(0);
  });

  it('the standing queries of an import killed after its commit are written by the next start; those a replace cleared are removed', () => {
    const s = env.stores;
    s.standing.save(U2, 'old', { key_like: 'old:' });
    const at = '2026-01-01T00:00:00.000Z';
    const standing = [
      { name: 'prefs', description: 'preferences', filters: { target: 'core' as const, key_like: 'pref:' }, created: at, updated: at },
      { name: 'trips', description: '', filters: { target: 'episodes' as const, tag: 'trip' }, created: at, updated: at },
    ];
    killAfterCommit(s);
    s.scopeData.importScope(U2, pagesDoc(1, standing), 'replace');
    expect(env.second().stores.standing.list(U2).map((q) => q.name)).toEqual(['old']);
    env.second().stores.repairAfterStop();
    const after = env.second().stores;
    expect(after.standing.list(U2).map((q) => [q.name, q.description, q.filters])).toEqual([
      ['prefs', 'preferences', { target: 'core', key_like: 'pref:' }],
      ['trips', '', { target: 'episodes', tag: 'trip' }],
    ]);
    expect(after.standing.get(U2, 'prefs')?.created).toBe(at);
    expect(env.db.prepare('SELECT COUNT(*) FROM standing_file_writes').pluck(true).get()).toBe(0);
  });

  it('a standing query import that completes leaves no note; a rolled-back one leaves neither note nor file', () => {
    const s = env.stores;
    const at = '2026-01-01T00:00:00.000Z';
    s.scopeData.importScope(U2, pagesDoc(0, [{ name: 'prefs', description: '', filters: { target: 'core', key_like: 'pref:' }, created: at, updated: at }]), 'merge');
    expect(s.standing.list(U2).map((q) => q.name)).toEqual(['prefs']);
    expect(env.db.prepare('SELECT COUNT(*) FROM standing_file_writes').pluck(true).get()).toBe(0);
    expect(() =>
      s.transaction(() => {
        s.scopeData.importScope(U, pagesDoc(0, [{ name: 'other', description: '', filters: { target: 'core' }, created: at, updated: at }]), 'merge');
        throw new Error('rolled back');
      }),
    ).toThrow('rolled back');
    expect(s.standing.list(U)).toEqual([]);
    expect(env.db.prepare('SELECT COUNT(*) FROM standing_file_writes').pluck(true).get()).toBe(0);
  });

  it('a replace import killed after its commit: the next start makes every page file its row, whatever its time, and removes the pages it dropped', () => {
    const s = env.stores;
    for (let i = 0; i < 5; i++) s.wiki.save(U, { title: `Page ${i}`, content: `MONDAY page ${i}`, wiki_type: 'diary' });
    const doc = s.scopeData.exportScope(U);
    env.clock.advance(86_400_000);
    for (let i = 0; i < 5; i++) s.wiki.save(U, { title: `Page ${i}`, content: `TUESDAY page ${i}`, wiki_type: 'diary' });
    const extra = s.wiki.save(U, { title: 'Extra', content: 'written on Tuesday', wiki_type: 'work_notes' });
    killAfterCommit(s);
    s.scopeData.importScope(U, JSON.parse(JSON.stringify(doc)), 'replace');
    const rows = rowsOf('default');
    expect(rows.map((r) => r.content)).toEqual([0, 1, 2, 3, 4].map((i) => `MONDAY page ${i}`));
    // The files hold the replaced text, newer than the rows' exported times.
    expect(rows.map((r) => fileText(r.path))).toEqual([0, 1, 2, 3, 4].map((i) => `TUESDAY page ${i}`));
    const next = env.second().stores;
    next.repairAfterStop();
    expect(rows.map((r) => fileText(r.path))).toEqual(rows.map((r) => r.content));
    expect(rows.map((r) => next.wiki.read(U, r.path)?.content)).toEqual(rows.map((r) => r.content));
    expect(fileText(extra.path)).toBeNull();
    expect(owed()).toBe(0);
  });

  it('a file an import owes that cannot be written keeps its note until the retry writes it', () => {
    const s = env.stores;
    const doc = pagesDoc(2);
    // A folder where the first page's file goes: its write fails.
    const blocked = path.join(env.dir, 'wiki', 'user', 'bob', 'diary', 'imported-0.md');
    fs.mkdirSync(blocked, { recursive: true });
    s.scopeData.importScope(U2, doc, 'merge');
    s.wiki.filesBehind.bulk.drain();
    expect(owed()).toBe(1);
    fs.rmSync(blocked, { recursive: true });
    expect(s.wiki.filesBehind.retry()).toBe(0);
    expect(owed()).toBe(0);
    expect(fileText('wiki/user/bob/diary/imported-0.md')).toBe('imported page 0');
  });

  it("notes whose clearing finds another process holding the lock are cleared on the timer's next try", () => {
    const s = env.stores;
    const other = env.second().db;
    s.scopeData.importScope(U2, pagesDoc(3), 'merge');
    // The files are written after the commit while another process holds the lock.
    other.prepare('BEGIN IMMEDIATE').run();
    try {
      s.wiki.filesBehind.bulk.drain();
    } finally {
      other.prepare('COMMIT').run();
    }
    expect(rowsOf('bob').every((r) => fileText(r.path) === r.content)).toBe(true);
    expect(owed()).toBe(3);
    expect(s.wiki.filesBehind.retry()).toBe(0);
    expect(owed()).toBe(0);
  });
});
