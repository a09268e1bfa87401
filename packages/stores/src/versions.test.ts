import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb, A, U, U2, makeEnv, type Env } from './test-helpers.js';
import { Stores } from './stores.js';
import { storesMigrations } from './migrations/index.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

const ops = (vs: { op: string }[]) => vs.map((v) => v.op);

describe('VersionLog (fact versions written by FactStore)', () => {
  it('records create, each value or importance change, and nothing for a write that changes neither', () => {
    const { facts, versions } = env.stores;
    facts.upsert(U, { key: 'city', value: 'Paris', importance: 0.6, source: 'user_explicit' });
    env.clock.advance(1000);
    facts.upsert(U, { key: 'city', value: 'Paris', importance: 0.6, source: 'user_explicit' });
    facts.upsert(U, { key: 'city', value: 'Lyon', importance: 0.6 }, 'moved');
    env.clock.advance(1000);
    const f = facts.adjustImportance(facts.get(U, 'city')!.entry_id, 0.05, 'agent_feedback')!;
    const h = versions.factHistory(U, { key: 'city' });
    expect(h.total).toBe(3);
    expect(h.versions.map((v) => [v.op, v.value, v.importance, v.reason])).toEqual([
      ['update', 'Lyon', 0.65, 'importance:agent_feedback'],
      ['update', 'Lyon', 0.6, 'moved'],
      ['create', 'Paris', 0.6, 'upsert'],
    ]);
    expect(h.versions[2].source).toBe('user_explicit');
    expect(h.versions[0].ts).toBe('2026-01-01T00:00:02.000Z');
    expect(versions.factHistory(U, { entry_id: f.entry_id }).total).toBe(3);
    // A clamped adjustment that moves nothing writes nothing.
    facts.adjustImportance(f.entry_id, -5, 'x');
    facts.adjustImportance(f.entry_id, -5, 'x');
    expect(versions.factHistory(U, { key: 'city' }).total).toBe(4);
  });

  it('pages newest first', () => {
    for (let i = 0; i < 5; i++) env.stores.facts.upsert(U, { key: 'k', value: `v${i}` });
    const p = env.stores.versions.factHistory(U, { key: 'k' }, 2, 2);
    expect(p.total).toBe(5);
    expect(p.versions.map((v) => v.value)).toEqual(['v2', 'v1']);
  });

  it('a deletion removes the values the fact held and leaves one delete version; a key written again starts a new entry', () => {
    const { facts, versions } = env.stores;
    const first = facts.upsert(U, { key: 'secret', value: 'one' });
    facts.upsert(U, { key: 'secret', value: 'two' });
    facts.delete(U, 'secret', 'forget');
    const h = versions.factHistory(U, { key: 'secret' });
    expect(h.versions.map((v) => [v.op, v.value, v.reason])).toEqual([['delete', '', 'forget']]);
    expect(JSON.stringify(h)).not.toMatch(/"one"|"two"/);
    const again = facts.upsert(U, { key: 'secret', value: 'three' });
    expect(again.entry_id).not.toBe(first.entry_id);
    expect(ops(versions.factHistory(U, { key: 'secret' }).versions)).toEqual(['create', 'delete']);
    expect(ops(versions.factHistory(U, { entry_id: again.entry_id }).versions)).toEqual(['create']);
  });

  it('deleteMatching records deletions; deleteSince leaves no trace of the facts it purges; restore records a create', () => {
    const { facts, versions } = env.stores;
    facts.upsert(U, { key: 'old', value: 'kept fact' });
    facts.upsert(U, { key: 'pat', value: 'purple elephant' });
    facts.deleteMatching(U, 'elephant');
    expect(versions.factHistory(U, { key: 'pat' }).versions.map((v) => [v.op, v.reason])).toEqual([['delete', 'delete_matching']]);
    env.clock.advance(60_000);
    const since = new Date(env.clock.now()).toISOString();
    const gone = facts.upsert(U, { key: 'new', value: 'fresh' });
    facts.upsert(U, { key: 'old', value: 'kept fact, updated' });
    facts.deleteSince(U, since);
    expect(versions.factHistory(U, { key: 'new' }).total).toBe(0);
    expect(ops(versions.factHistory(U, { key: 'old' }).versions)).toEqual(['update', 'create']);
    facts.restore(U, gone);
    expect(versions.factHistory(U, { key: 'new' }).versions.map((v) => [v.op, v.value, v.reason])).toEqual([['create', 'fresh', 'restore']]);
  });

  it('leaves no version behind a rolled-back write', () => {
    expect(() =>
      env.stores.transaction(() => {
        env.stores.facts.upsert(U, { key: 'k', value: 'v' });
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(env.stores.versions.factHistory(U, { key: 'k' }).total).toBe(0);
  });

  it('keeps scopes apart, also for a version id', () => {
    const { facts, versions } = env.stores;
    facts.upsert(U, { key: 'k', value: 'user' });
    facts.upsert(A, { key: 'k', value: 'agent' });
    facts.upsert(U2, { key: 'k', value: 'bob' });
    expect(versions.factHistory(U, { key: 'k' }).versions.map((v) => v.value)).toEqual(['user']);
    expect(versions.factHistory(A, { key: 'k' }).versions.map((v) => v.value)).toEqual(['agent']);
    const id = versions.factHistory(U2, { key: 'k' }).versions[0].version_id;
    expect(versions.factVersion(U2, id)?.value).toBe('bob');
    expect(versions.factVersion(U, id)).toBeNull();
    expect(versions.factVersion(U, 'wv_1')).toBeNull();
  });
});

describe('VersionLog (wiki page versions written by WikiStore)', () => {
  it('records create and content, type or tag changes, and a delete that drops the old contents', () => {
    const { wiki, versions } = env.stores;
    wiki.save(U, { title: 'Plan', content: 'v1', wiki_type: 'work_notes' });
    wiki.save(U, { title: 'Plan', content: 'v1', wiki_type: 'work_notes' });
    wiki.save(U, { title: 'Plan', content: 'v2', wiki_type: 'work_notes' }, 'edit');
    wiki.save(U, { title: 'Plan', content: 'v2', wiki_type: 'work_notes', tags: ['x'] });
    const h = versions.wikiHistory(U, 'Plan');
    expect(h.versions.map((v) => [v.op, v.content, v.tags, v.reason])).toEqual([
      ['update', 'v2', ['x'], 'save'],
      ['update', 'v2', [], 'edit'],
      ['create', 'v1', [], 'save'],
    ]);
    expect(versions.wikiVersion(U, h.versions[2].version_id)?.content).toBe('v1');
    expect(versions.wikiVersion(A, h.versions[2].version_id)).toBeNull();
    wiki.delete(U, 'Plan');
    expect(versions.wikiHistory(U, 'Plan').versions.map((v) => [v.op, v.content])).toEqual([['delete', '']]);
  });

  it('deleteSince purges the history of the pages it deletes', () => {
    const { wiki, versions } = env.stores;
    wiki.save(U, { title: 'New', content: 'c', wiki_type: 'diary' });
    wiki.deleteSince(U, new Date(env.clock.now()).toISOString());
    expect(versions.wikiHistory(U, 'New').total).toBe(0);
  });
});

describe('versions migration', () => {
  it('gives the facts and pages older than the history one snapshot version each', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'versions-mig-'));
    const db = openDb(path.join(dir, 'memory.db'));
    try {
      const mig = storesMigrations.find((m) => m.name === 'stores_versions_branches_stashes_procedures')!;
      const byId = [...storesMigrations].sort((a, b) => a.id - b.id);
      // The migrations before it, then it on a fact older than the history, then the later ones (one indexes its table).
      for (const m of byId.filter((m) => m.id < mig.id)) db.transaction(() => m.up(db)).immediate();
      db.prepare("INSERT INTO facts (layer, user_id, key, value, importance, source, metadata, created, updated) VALUES ('user', 'default', 'k', 'old', 0.5, 'manual', '{}', 't0', 't1')").run();
      db.transaction(() => mig.up(db)).immediate();
      for (const m of byId.filter((m) => m.id > mig.id)) db.transaction(() => m.up(db)).immediate();
      const stores = new Stores({ db, dataDir: dir, clock: env.clock });
      const h = stores.versions.factHistory(U, { key: 'k' });
      expect(h.versions.map((v) => [v.op, v.value, v.ts])).toEqual([['snapshot', 'old', 't1']]);
      // Running it again adds nothing.
      mig.up(db);
      expect(stores.versions.factHistory(U, { key: 'k' }).total).toBe(1);
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
