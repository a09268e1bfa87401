import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ManualClock, MemoryError, Storage } from '@memory-service/kernel';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BookmarkStore, normalizeTags, normalizeUrl, toFtsQuery } from './bookmark-store.js';
import { migrations } from './migrations.js';

const OWNER = '@memory-service/example-custom-plugin';
const U = { layer: 'user', user_id: 'default' } as const;
const A = { layer: 'agent', user_id: 'default' } as const;
const BOB = { layer: 'user', user_id: 'bob' } as const;

let dir: string;
let storage: Storage;
let clock: ManualClock;
let store: BookmarkStore;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bookmarks-store-'));
  storage = new Storage(dir);
  storage.migrate(OWNER, migrations);
  clock = new ManualClock(Date.UTC(2026, 0, 1));
  store = new BookmarkStore(storage, clock);
});

afterEach(() => {
  storage.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(MemoryError);
    expect((err as MemoryError).code).toBe('KERNEL_ERR_VALIDATION');
    return (err as MemoryError).field;
  }
  throw new Error('expected a validation error');
}

describe('migrations', () => {
  it('creates the table, its unique scope/url key, the FTS table, triggers and index, once', () => {
    const names = (storage.db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'bookmarks_%'").all() as { name: string }[]).map(
      (r) => r.name,
    );
    expect(names).toEqual(
      expect.arrayContaining([
        'bookmarks_items',
        'bookmarks_fts',
        'bookmarks_items_ai',
        'bookmarks_items_ad',
        'bookmarks_items_au',
        'bookmarks_items_scope_recent',
        'bookmarks_items_updated',
      ]),
    );
    const fts = storage.db.prepare("SELECT sql FROM sqlite_master WHERE name = 'bookmarks_fts'").get() as { sql: string };
    expect(fts.sql).toContain("tokenize = 'porter unicode61'");
    expect(storage.migrate(OWNER, migrations)).toEqual([]);
    expect(storage.status().find((s) => s.owner === OWNER)).toMatchObject({ applied: 2, head: 2, pending: [] });
    const insert = storage.db.prepare(
      "INSERT INTO bookmarks_items (layer, user_id, url, title, tags, created_at, updated_at) VALUES ('user', 'u', 'https://a.example/', 't', '[]', 'x', 'x')",
    );
    insert.run();
    expect(() => insert.run()).toThrow(/UNIQUE/);
  });
});

describe('normalizers', () => {
  it('canonicalizes http(s) URLs and refuses anything else, naming the url field', () => {
    expect(normalizeUrl(' HTTPS://Example.COM:443 ')).toBe('https://example.com/');
    expect(normalizeUrl('http://localhost:3000/a?b=1#c')).toBe('http://localhost:3000/a?b=1#c');
    expect(fieldOf(() => normalizeUrl('ftp://example.com/file'))).toBe('url');
    expect(fieldOf(() => normalizeUrl('javascript:alert(1)'))).toBe('url');
    expect(fieldOf(() => normalizeUrl('example.com'))).toBe('url');
  });

  it('trims, lower-cases and de-duplicates tags, within bounds', () => {
    expect(normalizeTags([' Rust ', 'rust', '', 'Docs'])).toEqual(['rust', 'docs']);
    expect(normalizeTags(undefined)).toEqual([]);
    expect(fieldOf(() => normalizeTags(Array.from({ length: 21 }, (_, i) => `t${i}`)))).toBe('tags');
    expect(fieldOf(() => normalizeTags(['x'.repeat(51)]))).toBe('tags');
  });

  it('quotes every word of a search so FTS5 syntax in the text is inert', () => {
    expect(toFtsQuery('Rust async')).toBe('"rust" OR "async"');
    expect(toFtsQuery('title:foo AND "bar" NEAR(')).toBe('"title" OR "foo" OR "and" OR "bar" OR "near"');
    expect(toFtsQuery('café 東京')).toBe('"café" OR "東京"');
    expect(toFtsQuery(' -*:() ')).toBeNull();
  });
});

describe('BookmarkStore', () => {
  it('creates, then upserts by canonical URL: updated when changed, unchanged otherwise', () => {
    const first = store.add(U, { url: 'https://Example.com', title: ' Example ', note: 'first', tags: ['Web'] });
    expect(first.status).toBe('created');
    expect(first.bookmark).toEqual({
      id: 'bm_1',
      layer: 'user',
      user_id: 'default',
      url: 'https://example.com/',
      title: 'Example',
      note: 'first',
      tags: ['web'],
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    });

    clock.advance(60_000);
    const same = store.add(U, { url: 'https://example.com/', title: 'Example', note: 'first', tags: ['web'] });
    expect(same.status).toBe('unchanged');
    expect(same.bookmark.updated_at).toBe('2026-01-01T00:00:00.000Z');

    const changed = store.add(U, { url: 'https://example.com/', title: 'Example Domain', tags: ['web', 'iana'] });
    expect(changed.status).toBe('updated');
    expect(changed.bookmark).toMatchObject({
      id: 'bm_1',
      title: 'Example Domain',
      note: null,
      tags: ['web', 'iana'],
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:01:00.000Z',
    });
    expect(store.count(U)).toBe(1);
    expect(store.get(U, 'https://EXAMPLE.com')?.title).toBe('Example Domain');
  });

  it('refuses an empty title and a bad URL without writing', () => {
    expect(fieldOf(() => store.add(U, { url: 'https://a.example', title: '   ' }))).toBe('title');
    expect(fieldOf(() => store.add(U, { url: 'mailto:me@a.example', title: 'Mail' }))).toBe('url');
    expect(store.count(U)).toBe(0);
  });

  it('lists most recently saved first, filters by tag, clamps the limit', () => {
    for (let i = 0; i < 5; i++) {
      store.add(U, { url: `https://a.example/${i}`, title: `Page ${i}`, tags: i % 2 ? ['odd'] : ['even'] });
      clock.advance(1000);
    }
    store.add(U, { url: 'https://a.example/0', title: 'Page 0 again', tags: ['even'] });
    expect(store.list(U).map((b) => b.title)).toEqual(['Page 0 again', 'Page 4', 'Page 3', 'Page 2', 'Page 1']);
    expect(store.list(U, { tag: 'ODD' }).map((b) => b.title)).toEqual(['Page 3', 'Page 1']);
    expect(store.count(U, 'odd')).toBe(2);
    expect(store.list(U, { limit: 2 })).toHaveLength(2);
    expect(store.list(U, { limit: 0 })).toHaveLength(1);
    expect(store.recent(U, 3).map((b) => b.title)).toEqual(['Page 0 again', 'Page 4', 'Page 3']);
  });

  it('searches title, note, URL and tags with stemming, best match first, and follows updates', () => {
    store.add(U, { url: 'https://docs.example/deploy', title: 'Deploying services', note: 'blue green rollout' });
    store.add(U, { url: 'https://blog.example/cats', title: 'Cats', tags: ['pets'] });
    store.add(U, { url: 'https://kube.example/', title: 'Kubernetes deployment guide', note: 'deploy deploy', tags: ['deploy'] });

    const hits = store.search(U, 'deploy');
    expect(hits.map((h) => h.url)).toEqual(['https://kube.example/', 'https://docs.example/deploy']);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    expect(store.search(U, 'pets').map((h) => h.title)).toEqual(['Cats']);
    expect(store.search(U, 'blog').map((h) => h.title)).toEqual(['Cats']);
    expect(store.search(U, 'rollouts').map((h) => h.title)).toEqual(['Deploying services']);
    expect(store.search(U, 'cats OR "deploy')).toHaveLength(3);
    expect(store.search(U, 'deploy', 1)).toHaveLength(1);

    store.add(U, { url: 'https://blog.example/cats', title: 'Dogs', tags: ['pets'] });
    expect(store.search(U, 'cats').map((h) => h.url)).toEqual(['https://blog.example/cats']);
    expect(store.search(U, 'dogs').map((h) => h.title)).toEqual(['Dogs']);
    storage.db.prepare("DELETE FROM bookmarks_items WHERE url = 'https://blog.example/cats'").run();
    expect(store.search(U, 'dogs')).toEqual([]);
    expect(fieldOf(() => store.search(U, '***'))).toBe('query');
  });

  it('keeps layers and users apart', () => {
    store.add(U, { url: 'https://same.example/', title: 'user default' });
    store.add(A, { url: 'https://same.example/', title: 'agent default' });
    store.add(BOB, { url: 'https://same.example/', title: 'user bob' });
    expect(store.list(U).map((b) => b.title)).toEqual(['user default']);
    expect(store.list(A).map((b) => b.title)).toEqual(['agent default']);
    expect(store.list(BOB).map((b) => b.title)).toEqual(['user bob']);
    expect(store.search(A, 'default').map((b) => b.title)).toEqual(['agent default']);
    expect(store.search(BOB, 'default')).toEqual([]);
    expect(new Set([store.get(U, 'https://same.example/')!.id, store.get(A, 'https://same.example/')!.id]).size).toBe(2);
  });
});

describe('for the nightly run', () => {
  const at = (iso: string) => clock.set(Date.parse(iso));

  it('lists the scopes with a bookmark created or updated after a time, each once, through the updated_at index', () => {
    at('2026-01-01T08:00:00.000Z');
    store.add(U, { url: 'https://old.example/', title: 'Old' });
    store.add(BOB, { url: 'https://bob.example/', title: 'Bob old' });
    const since = '2026-01-01T12:00:00.000Z';
    at('2026-01-01T13:00:00.000Z');
    store.add(A, { url: 'https://a.example/1', title: 'One' });
    store.add(A, { url: 'https://a.example/2', title: 'Two' });
    store.add(BOB, { url: 'https://bob.example/', title: 'Bob renamed' });
    // Saving the same bookmark again changes nothing, so it brings no scope.
    store.add(U, { url: 'https://old.example/', title: 'Old' });
    expect(store.scopesWrittenSince(since)).toEqual([
      { layer: 'agent', user_id: 'default' },
      { layer: 'user', user_id: 'bob' },
    ]);
    expect(store.scopesWrittenSince('2026-01-01T13:00:00.000Z')).toEqual([]);
    expect(store.scopesWrittenSince('0000-01-01T00:00:00.000Z')).toHaveLength(3);
    // The statement the store ran, as SQLite plans it: a range of the updated_at index, not a scan.
    const sql = storage.db.prepare("SELECT sql FROM sqlite_master WHERE name = 'bookmarks_items_updated'").pluck(true).get();
    expect(sql).toBe('CREATE INDEX bookmarks_items_updated ON bookmarks_items (updated_at, layer, user_id)');
    const spy = vi.spyOn(storage, 'prepare');
    store.scopesWrittenSince(since);
    const ran = spy.mock.calls[0]![0];
    spy.mockRestore();
    const plan = (storage.db.prepare(`EXPLAIN QUERY PLAN ${ran}`).all(since) as { detail: string }[]).map((r) => r.detail).join(' | ');
    expect(plan).toMatch(/^SEARCH bookmarks_items USING COVERING INDEX bookmarks_items_updated \(updated_at>\?\)/);
    expect(plan).not.toContain('SCAN');
  });

  it("digests a scope's bookmarks added and changed after a time, with their most used tags", () => {
    at('2026-01-01T08:00:00.000Z');
    store.add(U, { url: 'https://old.example/', title: 'Old', tags: ['sqlite'] });
    store.add(U, { url: 'https://kept.example/', title: 'Kept', tags: ['sqlite', 'go'] });
    const since = '2026-01-01T12:00:00.000Z';
    at('2026-01-01T13:00:00.000Z');
    store.add(U, { url: 'https://old.example/', title: 'Old, renamed', tags: ['sqlite', 'db'] });
    store.add(U, { url: 'https://new.example/1', title: 'New one', tags: ['db', 'rust'] });
    store.add(U, { url: 'https://new.example/2', title: 'New two', tags: ['DB', 'testing', 'rust'] });
    store.add(BOB, { url: 'https://bob.example/', title: 'Not in this scope', tags: ['db'] });
    expect(store.digest(U, since)).toEqual({
      added: 2,
      updated: 1,
      total: 4,
      top_tags: [
        { tag: 'db', count: 3 },
        { tag: 'rust', count: 2 },
        { tag: 'sqlite', count: 1 },
      ],
    });
    expect(store.digest(U, since, 1).top_tags).toEqual([{ tag: 'db', count: 3 }]);
    expect(store.digest(U, '2026-01-01T13:00:00.000Z')).toEqual({ added: 0, updated: 0, total: 4, top_tags: [] });
    expect(store.digest(A, since)).toEqual({ added: 0, updated: 0, total: 0, top_tags: [] });
    expect(fieldOf(() => store.digest({ layer: 'team' as never, user_id: 'x' }, since))).toBe('layer');
  });
});
