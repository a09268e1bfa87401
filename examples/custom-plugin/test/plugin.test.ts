import fs from 'node:fs';
import { definePlugin, Storage } from '@memory-service/kernel';
import review from '@memory-service/plugin-review';
import type { Stores } from '@memory-service/stores';
import { createTestServer, ManualClock, tempDataDir, type TestServer } from '@memory-service/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import plugin from '../src/index.js';

const NAME = '@memory-service/example-custom-plugin';
const TOOLS = ['bookmark_add', 'bookmark_list', 'bookmark_search'];

let server: TestServer;
let clock: ManualClock;
beforeEach(async () => {
  clock = new ManualClock(Date.UTC(2026, 0, 1));
  server = await createTestServer({ plugins: [plugin], expose: 'primitives,bookmarks', clock });
});
afterEach(async () => {
  await server?.close();
});

async function toolError(name: string, args: Record<string, unknown>) {
  const out = await server.callRaw(name, args);
  expect(out.isError).toBe(true);
  return JSON.parse(out.text).error as { code: string; field?: string; message: string; accepted?: unknown };
}

describe('surface', () => {
  it('lists the three tools with output schemas and every annotation', async () => {
    expect(await server.listTools()).toEqual(TOOLS);
    const { tools } = await server.client.listTools();
    for (const t of tools) {
      expect(t.title).toBeTruthy();
      expect(t.description!.length).toBeGreaterThan(80);
      expect(t.outputSchema?.type).toBe('object');
      expect(Object.keys(t.annotations!).sort()).toEqual(['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint', 'title']);
    }
    const add = tools.find((t) => t.name === 'bookmark_add')!;
    expect(add.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false });
    expect((add.inputSchema as { required?: string[] }).required).toEqual(['url', 'title']);
    const search = tools.find((t) => t.name === 'bookmark_search')!;
    expect(search.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
  });

  it('hides the tools when the bookmarks tier is not exposed', async () => {
    const primitivesOnly = await createTestServer({ plugins: [plugin], expose: 'primitives' });
    try {
      expect(await primitivesOnly.listTools()).toEqual([]);
    } finally {
      await primitivesOnly.close();
    }
  });
});

describe('bookmarks through MCP', () => {
  it('adds, lists and searches; re-adding a URL updates it', async () => {
    const added = await server.call('bookmark_add', {
      url: 'https://vitest.dev/guide/',
      title: 'Vitest guide',
      note: 'How to write and run tests',
      tags: ['Testing', 'JS'],
    });
    expect(added).toEqual({
      status: 'created',
      bookmark: {
        id: expect.stringMatching(/^bm_\d+$/),
        layer: 'user',
        user_id: 'default',
        url: 'https://vitest.dev/guide/',
        title: 'Vitest guide',
        note: 'How to write and run tests',
        tags: ['testing', 'js'],
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      },
    });
    await server.call('bookmark_add', { url: 'https://sqlite.org/fts5.html', title: 'SQLite FTS5', tags: ['sqlite'] });

    const again = await server.call('bookmark_add', { url: 'https://vitest.dev/guide/', title: 'Vitest guide', tags: ['testing'] });
    expect(again.status).toBe('updated');
    expect(again.bookmark).toMatchObject({ id: added.bookmark.id, note: null, tags: ['testing'] });
    expect((await server.call('bookmark_add', { url: 'https://vitest.dev/guide/', title: 'Vitest guide', tags: ['testing'] })).status).toBe(
      'unchanged',
    );

    const list = await server.call('bookmark_list', {});
    expect(list.total).toBe(2);
    expect(list.count).toBe(2);
    expect(list.bookmarks.map((b: { title: string }) => b.title).sort()).toEqual(['SQLite FTS5', 'Vitest guide']);
    expect((await server.call('bookmark_list', { tag: 'sqlite' })).bookmarks.map((b: { url: string }) => b.url)).toEqual([
      'https://sqlite.org/fts5.html',
    ]);
    expect(await server.call('bookmark_list', { limit: 1 })).toMatchObject({ total: 2, count: 1 });

    const found = await server.call('bookmark_search', { query: 'writing tests' });
    expect(found.query).toBe('writing tests');
    expect(found.results.map((r: { url: string }) => r.url)).toEqual(['https://vitest.dev/guide/']);
    expect(typeof found.results[0].score).toBe('number');
    expect((await server.call('bookmark_search', { query: 'fts5' })).count).toBe(1);
    expect((await server.call('bookmark_search', { query: 'kubernetes' })).results).toEqual([]);
  });

  it('keeps layer and user_id apart', async () => {
    const url = 'https://example.com/shared';
    await server.call('bookmark_add', { url, title: 'alice user', user_id: 'alice' });
    await server.call('bookmark_add', { url, title: 'alice agent', user_id: 'alice', layer: 'agent' });
    await server.call('bookmark_add', { url, title: 'bob user', user_id: 'bob' });

    const titles = async (args: Record<string, unknown>) =>
      (await server.call('bookmark_list', args)).bookmarks.map((b: { title: string }) => b.title);
    expect(await titles({ user_id: 'alice' })).toEqual(['alice user']);
    expect(await titles({ user_id: 'alice', layer: 'agent' })).toEqual(['alice agent']);
    expect(await titles({ user_id: 'bob' })).toEqual(['bob user']);
    expect(await titles({})).toEqual([]);
    const hits = await server.call('bookmark_search', { query: 'alice', user_id: 'bob' });
    expect(hits.count).toBe(0);
    expect((await server.call('bookmark_search', { query: 'agent', user_id: 'alice', layer: 'agent' })).count).toBe(1);
  });

  it('rejects bad input naming the field, and writes nothing', async () => {
    const badUrl = await toolError('bookmark_add', { url: 'ftp://example.com/file', title: 'FTP' });
    expect(badUrl.code).toBe('KERNEL_ERR_VALIDATION');
    expect(badUrl.field).toBe('url');
    expect(badUrl.message).toContain('"url"');
    expect(badUrl.message).toMatch(/http or https/);
    expect((await toolError('bookmark_add', { url: 'not a url', title: 'x' })).field).toBe('url');
    expect((await toolError('bookmark_add', { url: 'https://example.com' })).field).toBe('title');
    expect((await toolError('bookmark_add', { url: 'https://example.com', title: 'x', layer: 'team' })).field).toBe('layer');
    expect((await toolError('bookmark_add', { url: 'https://example.com', title: 'x', user_id: 'a/b' })).field).toBe('user_id');
    expect((await toolError('bookmark_add', { url: 'https://example.com', title: 'x', tags: 'one' })).field).toBe('tags');
    expect((await toolError('bookmark_list', { limit: 500 })).field).toBe('limit');
    expect((await toolError('bookmark_search', { query: '   ' })).field).toBe('query');
    expect((await toolError('bookmark_search', { query: '?!' })).field).toBe('query');

    expect(await server.call('bookmark_list', {})).toEqual({ total: 0, count: 0, bookmarks: [] });
  });
});

describe('lifecycle', () => {
  it('answers session_started with the scope\'s five most recent bookmarks', async () => {
    for (let i = 1; i <= 7; i++) {
      await server.call('bookmark_add', { url: `https://example.com/${i}`, title: `Page ${i}`, user_id: 'alice' });
      clock.advance(1000);
    }
    await server.call('bookmark_add', { url: 'https://example.com/agent', title: 'Agent page', user_id: 'alice', layer: 'agent' });

    const started = await server.kernel.dispatchEvent('session_started', {}, 'user', 'alice');
    const mine = started.results[NAME] as { total: number; recent: { title: string; layer: string }[] };
    expect(mine.total).toBe(7);
    expect(mine.recent.map((b) => b.title)).toEqual(['Page 7', 'Page 6', 'Page 5', 'Page 4', 'Page 3']);

    const agent = (await server.kernel.dispatchEvent('session_started', {}, 'agent', 'alice')).results[NAME];
    expect(agent).toMatchObject({ total: 1, recent: [{ title: 'Agent page', layer: 'agent' }] });
    expect((await server.kernel.dispatchEvent('session_started', {}, 'user', 'nobody')).results[NAME]).toEqual({ total: 0, recent: [] });
    expect((await server.kernel.dispatchEvent('session_ended', { summary: 'Read three pages.' }, 'user', 'alice')).results).toEqual({});
  });

  it('keeps its data and applies its migration once across restarts', async () => {
    const dataDir = tempDataDir();
    try {
      const first = await createTestServer({ plugins: [plugin], expose: 'primitives,bookmarks', dataDir });
      await first.call('bookmark_add', { url: 'https://example.com/', title: 'Kept' });
      await first.close();
      const second = await createTestServer({ plugins: [plugin], expose: 'primitives,bookmarks', dataDir });
      try {
        expect((await second.call('bookmark_search', { query: 'kept' })).count).toBe(1);
        expect(second.kernel.storage.status().find((s) => s.owner === NAME)).toMatchObject({ applied: 2, head: 2, pending: [] });
      } finally {
        await second.close();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('honours its kernel range: a copy requiring ^9.0.0 fails to start, naming the plugin, before migrating', async () => {
    const future = definePlugin({ ...plugin, kernel: '^9.0.0' });
    const dataDir = tempDataDir();
    try {
      const err = await createTestServer({ plugins: [future], dataDir }).then(
        () => null,
        (e: unknown) => e as { code?: string; plugin?: string; message: string },
      );
      expect(err).not.toBeNull();
      expect(err!.code).toBe('KERNEL_ERR_PLUGIN_KERNEL_RANGE');
      expect(err!.plugin).toBe(NAME);
      expect(err!.message).toContain(NAME);
      expect(err!.message).toContain('^9.0.0');
      const storage = new Storage(dataDir);
      try {
        expect(storage.db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'bookmarks_%'").all()).toEqual([]);
        expect(storage.db.prepare('SELECT id FROM kernel_migrations WHERE owner = ?').all(NAME)).toEqual([]);
      } finally {
        storage.close();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the nightly run', () => {
  const HOUR = 3_600_000;
  const DAY = 24 * HOUR;
  const CAROL = { layer: 'user', user_id: 'carol' };

  it("visits a scope whose only writes were bookmarks and records the plugin's digest there (memory_report_card)", async () => {
    // The nightly run belongs to the memory's stores, which a first-party plugin loads (review here,
    // for memory_report_card, which shows the last run that visited a scope). Its scheduler checks
    // hourly whether a run is due; the test makes that check itself once the test clock says so.
    const night = await createTestServer({ plugins: [plugin, review], expose: 'bookmarks,review', clock });
    try {
      const nightly = night.kernel.container.resolve<Stores>('stores').nightly;
      const scheduledCheck = () => nightly.tick();
      expect(await scheduledCheck()).toBeNull();
      clock.advance(HOUR);
      await night.call('bookmark_add', { url: 'https://sqlite.org/lang_with.html', title: 'WITH clause', tags: ['sqlite', 'sql'], ...CAROL });
      await night.call('bookmark_add', { url: 'https://sqlite.org/json1.html', title: 'JSON functions', tags: ['sqlite', 'json'], ...CAROL });
      clock.advance(DAY);
      const run = await scheduledCheck();
      expect(run).toMatchObject({ id: 'night_1', status: 'ok', plugin_scopes: [{ plugin: NAME, status: 'ok', scopes: 1, dropped: 0 }] });
      expect(run!.results.map((r) => `${r.layer}/${r.user_id}`)).toEqual(['user/carol']);

      const card = await night.call('memory_report_card', CAROL);
      expect(card.nightly.run_id).toBe('night_1');
      expect(card.nightly.phases.map((p: { phase: string; status: string }) => [p.phase, p.status])).toEqual([
        ['consolidation', 'ok'],
        ['dream_buffer', 'ok'],
        ['index_refresh', 'ok'],
        ['skill_promotion', 'ok'],
        ['reflection', 'skipped'],
        [NAME, 'ok'],
      ]);
      expect(card.nightly.phases.at(-1)).toEqual({
        phase: NAME,
        status: 'ok',
        counts: { added: 2, updated: 0, total: 2 },
        error: null,
        detail: 'top tags: sqlite (2), json (1), sql (1)',
      });
      expect((await night.call('memory_report_card', {})).nightly).toBeNull();

      // The next day one bookmark changes: the scope is visited again, the digest counts the change.
      clock.advance(HOUR);
      await night.call('bookmark_add', { url: 'https://sqlite.org/json1.html', title: 'JSON functions and operators', tags: ['json'], ...CAROL });
      clock.advance(DAY);
      expect(await scheduledCheck()).toMatchObject({ id: 'night_2', scopes: 1 });
      const next = (await night.call('memory_report_card', CAROL)).nightly;
      expect(next.run_id).toBe('night_2');
      expect(next.phases.at(-1)).toMatchObject({ counts: { added: 0, updated: 1, total: 2 }, detail: 'top tags: json (1)' });

      // A day without a write visits no scope.
      clock.advance(DAY);
      expect(await scheduledCheck()).toMatchObject({ id: 'night_3', scopes: 0, results: [] });
    } finally {
      await night.close();
    }
  });
});
