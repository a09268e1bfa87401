import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ScopeClear, REPLACE_REASON } from './scope-clear.js';
import type { ImportResult } from './scope-data.js';
import { SCOPE_DOC_KINDS } from './scope-doc.js';
import { seedEveryKind } from './scope-export.fixture.js';
import { makeEnv, U, U2, type Env } from './test-helpers.js';
import type { Scope } from './types.js';
import { makeId } from './util.js';

const envs: Env[] = [];
afterEach(() => {
  for (const e of envs.splice(0)) e.close();
});

const result = (): ImportResult => {
  const zero = () => Object.fromEntries(SCOPE_DOC_KINDS.map((k) => [k, 0])) as ImportResult['cleared'];
  return { mode: 'replace', imported: zero(), skipped: zero(), cleared: zero(), cleared_l1: 0, archived: 0, renamed_standing_queries: [] };
};

/** The clear as it was done before ScopeClear: a record at a time through each store's own delete (the reference). */
function clearRecordAtATime(env: Env, scope: Scope, res: ImportResult): void {
  const s = env.stores;
  const c = s.ctx;
  for (const key of c.stmt('SELECT key FROM facts WHERE layer = ? AND user_id = ? ORDER BY id').pluck(true).all(scope.layer, scope.user_id) as string[]) {
    s.shadowBin.archive(scope, { origin_store: 'l4', origin_id: key, content: s.facts.get(scope, key)!, reason: REPLACE_REASON });
    s.facts.delete(scope, key);
    res.cleared.facts++;
    res.archived++;
  }
  for (const n of c.stmt('SELECT id FROM episodes WHERE layer = ? AND user_id = ? ORDER BY id').pluck(true).all(scope.layer, scope.user_id) as number[]) {
    const e = s.episodes.get(scope, makeId('ep', n))!;
    s.shadowBin.archive(scope, { origin_store: 'l3', origin_id: e.id, content: e, reason: REPLACE_REASON });
    s.episodes.delete(scope, e.id);
    res.cleared.episodes++;
    res.archived++;
  }
  res.cleared.graph_edges = c.stmt('SELECT COUNT(*) FROM graph_edges WHERE layer = ? AND user_id = ?').pluck(true).get(scope.layer, scope.user_id) as number;
  for (const n of c.stmt('SELECT id FROM graph_nodes WHERE layer = ? AND user_id = ? ORDER BY id').pluck(true).all(scope.layer, scope.user_id) as number[]) {
    const node = s.graph.getNode(scope, makeId('node', n))!;
    s.shadowBin.archive(scope, { origin_store: 'graph', origin_id: node.node_id, content: node, reason: REPLACE_REASON });
    s.graph.deleteNode(scope, node.node_id);
    res.cleared.graph_nodes++;
    res.archived++;
  }
  res.cleared.wiki_links = c.stmt('SELECT COUNT(*) FROM wiki_links WHERE layer = ? AND user_id = ?').pluck(true).get(scope.layer, scope.user_id) as number;
  for (const title of c.stmt('SELECT title FROM wiki_pages WHERE layer = ? AND user_id = ? ORDER BY id').pluck(true).all(scope.layer, scope.user_id) as string[]) {
    s.shadowBin.deleteWikiPage(scope, title, true, REPLACE_REASON);
    res.cleared.wiki_pages++;
    res.archived++;
  }
}

/** Two data dirs holding the same records (same clock, same writes): the target `U` several times over, with updated facts (versions) and another scope beside it. */
function twin(): Env {
  const env = makeEnv();
  envs.push(env);
  const s = env.stores;
  seedEveryKind(env, U, 4);
  seedEveryKind(env, U2, 2);
  for (let i = 0; i < 700; i++) {
    s.episodes.add(U, { summary: `episode ${i} of the harbour`, tags: [`t${i % 7}`], emotional_weight: 0.1, importance: (i % 10) / 10, meta: { i } });
    if (i % 2 === 0) s.facts.upsert(U, { key: `fact ${i}`, value: `value ${i}`, importance: 0.5, metadata: { i } });
    if (i % 4 === 0) s.facts.upsert(U, { key: `fact ${i}`, value: `value ${i} again`, importance: 0.7 });
    if (i % 3 === 0) s.graph.addNode(U, { content: `node ${i}`, node_type: 'note', tags: ['n'] });
    env.clock.advance(10);
  }
  // A fact of the other scope written last: its versions hold the highest ids.
  s.facts.upsert(U2, { key: 'late', value: 'written after the target' });
  // The target's files read back later from the same clock: pages are archived as a read sees them.
  env.clock.advance(60_000);
  return env;
}

/**
 * A target with many wiki pages: updated ones (versions), links among them, a page whose file was
 * edited by hand (archived as read: the file's text), one whose file is empty and one whose file is
 * gone; its first page and first fact updated last, so their versions hold the highest ids.
 */
function twinPages(): Env {
  const env = twin();
  const s = env.stores;
  const titles: string[] = [];
  for (let i = 0; i < 120; i++) {
    titles.push(s.wiki.save(U, { title: `Page ${i}`, content: `text of page ${i}\n`.repeat(1 + (i % 5)), wiki_type: ['diary', 'work_notes', 'retrospective'][i % 3]!, tags: [`w${i % 4}`] }).title);
    if (i % 3 === 0) s.wiki.save(U, { title: `Page ${i}`, content: `page ${i} edited`, wiki_type: 'diary', tags: [] });
    if (i > 0 && i % 2 === 0) s.wiki.link(U, titles[i]!, titles[(i * 7) % i]!, 'follows');
    env.clock.advance(10);
  }
  s.wiki.save(U2, { title: 'Page 1', content: 'the other scope keeps its page', wiki_type: 'diary' });
  s.wiki.link(U2, 'Page 1', 'Page 1', 'revises');
  const file = (title: string) => path.join(env.dir, s.wiki.getByTitle(U, title)!.path);
  fs.writeFileSync(file('Page 5'), 'edited by hand');
  fs.writeFileSync(file('Page 6'), '');
  fs.rmSync(file('Page 7'));
  const firstPage = (s.wiki.list(U, { limit: 1000 }) as { title: string; id: string }[]).sort((a, b) => Number(a.id.slice(5)) - Number(b.id.slice(5)))[0]!.title;
  s.wiki.save(U, { title: firstPage, content: 'the first page, saved last', wiki_type: 'diary' });
  const firstFact = s.ctx.stmt('SELECT key FROM facts WHERE layer = ? AND user_id = ? ORDER BY id LIMIT 1').pluck(true).get(U.layer, U.user_id) as string;
  s.facts.upsert(U, { key: firstFact, value: 'the first fact, written last' });
  env.clock.advance(60_000);
  return env;
}

/** Every row of every table (by rowid, so ids and order count), and every file of the data dir with its bytes. */
function dump(env: Env): Record<string, unknown> {
  const db = env.db;
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%fts%' ORDER BY name").pluck(true).all() as string[];
  const out: Record<string, unknown> = {};
  for (const t of tables) {
    // A WITHOUT ROWID table is read in its primary key's order.
    const withoutRowid = /WITHOUT ROWID/i.test(db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').pluck(true).get(t) as string);
    out[t] = db.prepare(`SELECT * FROM "${t}"${withoutRowid ? '' : ' ORDER BY rowid'}`).raw(true).all();
  }
  const files: Record<string, string> = {};
  for (const f of (fs.readdirSync(env.dir, { recursive: true }) as string[]).sort()) {
    const p = path.join(env.dir, f);
    if (f.startsWith('memory.db') || !fs.statSync(p).isFile()) continue;
    files[f] = fs.readFileSync(p, 'utf8');
  }
  out.files = files;
  return out;
}

describe('ScopeClear (memory_data import replace)', () => {
  it('leaves exactly what the record-at-a-time clear left: every row of every table (ids and order too), Shadow Bin, versions, audit trail, change log, files, counts', () => {
    const old = twin();
    const now = twin();
    const a = result();
    old.stores.ctx.tx(() => old.stores.ctx.bulk(() => old.stores.wiki.withFileWritesRecorded(() => clearRecordAtATime(old, U, a))));
    const b = result();
    now.stores.ctx.tx(() => now.stores.ctx.bulk(() => now.stores.wiki.withFileWritesRecorded(() => new ScopeClear(now.stores).clear(U, b))));
    expect(b).toEqual(a);
    expect(b.cleared.facts).toBeGreaterThan(350);
    expect(b.cleared.episodes).toBeGreaterThan(700);
    expect(b.cleared.graph_edges).toBeGreaterThan(0);
    const [x, y] = [dump(old), dump(now)];
    expect(Object.keys(y)).toEqual(Object.keys(x));
    for (const t of Object.keys(x)) expect(y[t], t).toEqual(x[t]);
    // The target is empty of the kinds it cleared, the other scope untouched.
    expect(now.stores.facts.count(U)).toBe(0);
    expect(now.stores.episodes.count(U)).toBe(0);
    expect(now.stores.facts.count(U2)).toBe(3);
    // What the Shadow Bin holds restores as it did.
    const entry = now.stores.shadowBin.list(U, { origin_store: 'l3', limit: 1 })[0]!;
    expect(now.stores.shadowBin.restore(entry.id).record).toMatchObject({ id: entry.origin_id });
  });

  it('pages go by table with the same rows, Shadow Bin copies (a hand-edited file as read), links, versions (ids too) and audit trail; their files are removed after the commit', () => {
    const old = twinPages();
    const now = twinPages();
    const a = result();
    old.stores.ctx.tx(() => old.stores.ctx.bulk(() => old.stores.wiki.withFileWritesRecorded(() => clearRecordAtATime(old, U, a))));
    const b = result();
    now.stores.ctx.tx(() => now.stores.ctx.bulk(() => now.stores.wiki.withFileWritesRecorded(() => new ScopeClear(now.stores).clear(U, b))));
    expect(b).toEqual(a);
    expect(b.cleared.wiki_pages).toBeGreaterThan(120);
    expect(b.cleared.wiki_links).toBeGreaterThanOrEqual(60);
    const same = () => {
      const [x, y] = [dump(old), dump(now)];
      expect(Object.keys(y)).toEqual(Object.keys(x));
      for (const t of Object.keys(x)) expect(y[t], t).toEqual(x[t]);
      return y;
    };
    same();
    const bin = now.stores.shadowBin.list(U, { origin_store: 'wiki', limit: 1000 });
    expect(bin.find((e) => e.origin_id === 'Page 5')!.content).toMatchObject({ content: 'edited by hand' });
    expect(now.stores.wiki.getByTitle(U2, 'Page 1')!.content).toBe('the other scope keeps its page');
    // The files go once the writer's queue is done (flush finishes it at once), the other scope's stays.
    old.stores.flush();
    now.stores.flush();
    const files = Object.keys(same().files as Record<string, string>);
    expect(files.filter((f) => f.startsWith(`wiki${path.sep}${U.layer}${path.sep}${U.user_id}${path.sep}`))).toEqual([]);
    expect(files.some((f) => f.includes(`${path.sep}${U2.user_id}${path.sep}`))).toBe(true);
    expect(now.db.prepare('SELECT COUNT(*) FROM wiki_file_removals').pluck(true).get()).toBe(0);
  });

  it('a failure after the clear undoes it whole: rows, Shadow Bin, versions, audit trail and files as before', () => {
    const env = twin();
    const before = dump(env);
    expect(() =>
      env.stores.ctx.tx(() =>
        env.stores.ctx.bulk(() =>
          env.stores.wiki.withFileWritesRecorded(() => {
            new ScopeClear(env.stores).clear(U, result());
            expect(env.stores.episodes.count(U)).toBe(0);
            throw new Error('a later record is refused');
          }),
        ),
      ),
    ).toThrow('a later record is refused');
    expect(dump(env)).toEqual(before);
  });
});
