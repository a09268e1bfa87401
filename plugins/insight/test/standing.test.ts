import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTestServer, tempDataDir } from '@memory-service/testing';
import { insight, ManualClock, primitives, start, storesOf, toolError, USER, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  vi.restoreAllMocks();
  await s?.close();
});

const st = async (args: Record<string, unknown>): Promise<any> => s.call('memory_standing', args);
const metaDir = () => path.join(s.dataDir, '.meta');
const metaFiles = () => (fs.existsSync(metaDir()) ? fs.readdirSync(metaDir(), { recursive: true }).map(String).sort() : []);

describe('memory_standing records carry spec_json', () => {
  it('save, delete and run answer the query\'s spec_json (filters plus description), which save takes back as it is; the old fields stay', async () => {
    s = await start({ expose: 'insight,write' });
    storesOf(s).facts.upsert(USER, { key: 'pref:editor', value: 'Uses Vim', importance: 0.9 });
    const saved = await st({ action: 'save', name: 'prefs', spec_json: JSON.stringify({ key_like: 'pref:', importance_min: 0.5, description: 'important preferences' }) });
    const spec = { target: 'core', key_like: 'pref:', importance_min: 0.5, description: 'important preferences' };
    expect(saved.query).toEqual({ name: 'prefs', spec_json: spec, description: 'important preferences', filters: { target: 'core', key_like: 'pref:', importance_min: 0.5 }, created: expect.any(String), updated: expect.any(String) });
    // Passed back as it is, it saves the same query.
    const copy = await st({ action: 'save', name: 'prefs2', spec_json: saved.query.spec_json });
    expect(copy.query.spec_json).toEqual(spec);
    expect(copy.query.filters).toEqual(saved.query.filters);
    const run = await st({ action: 'run', name: 'prefs2' });
    expect(run).toMatchObject({ name: 'prefs2', spec_json: spec, total: 1 });
    expect((await st({ action: 'delete', name: 'prefs2' })).query.spec_json).toEqual(spec);
    // The output schema the surface lists carries it.
    const tool = (await s.client.listTools()).tools.find((t) => t.name === 'memory_standing')!;
    const out = tool.outputSchema as any;
    expect(Object.keys(out.properties.query.properties)).toEqual(expect.arrayContaining(['name', 'spec_json', 'description', 'filters', 'created', 'updated']));
    expect(out.properties.spec_json).toBeDefined();
    // list stays payload-free (the spec): names and descriptions.
    expect((await st({ action: 'list' })).queries).toEqual([{ name: 'prefs', description: 'important preferences' }]);
  });
});

describe('memory_standing with both tiers exposed', () => {
  it('saves, lists payload-free, runs through the query DSL with the limit clamped, replaces and deletes, per layer and user_id', async () => {
    const clock = new ManualClock();
    s = await start({ clock, expose: 'insight,write' });
    const facts = storesOf(s).facts;
    for (const [key, value, importance] of [['pref:editor', 'Uses Vim', 0.9], ['pref:shell', 'Uses zsh', 0.3], ['home', 'Lives in Lisbon', 0.95]] as const) {
      facts.upsert(USER, { key, value, importance });
      clock.advance(1000);
    }
    const saved = await st({ action: 'save', name: 'highprefs', spec_json: JSON.stringify({ key_like: 'pref:', importance_min: 0.5, description: 'important preferences' }) });
    expect(saved).toMatchObject({ action: 'save', replaced: false, query: { name: 'highprefs', description: 'important preferences', filters: { target: 'core', key_like: 'pref:', importance_min: 0.5 } } });
    expect(fs.existsSync(path.join(s.dataDir, '.meta', 'standing', 'user', 'default', 'highprefs.yaml'))).toBe(true);
    await st({ action: 'save', name: 'eps', spec_json: { target: 'episodes', limit: 1000 } });
    const list = await st({ action: 'list' });
    expect(list).toEqual({ action: 'list', queries: [{ name: 'eps', description: '' }, { name: 'highprefs', description: 'important preferences' }] });
    const run = await st({ action: 'run', name: 'highprefs' });
    expect(run).toMatchObject({ action: 'run', name: 'highprefs', target: 'core', total: 1, count: 1, limit: 50, limit_clamped: false, episodes: [], next_offset: null });
    expect(run.facts.map((f: any) => f.value)).toEqual(['Uses Vim']);
    // Other scopes see none of it.
    expect((await st({ action: 'list', user_id: 'bob' })).queries).toEqual([]);
    expect((await st({ action: 'list', layer: 'agent' })).queries).toEqual([]);
    expect((await toolError(st({ action: 'run', name: 'highprefs', user_id: 'bob' }))).field).toBe('name');
    // Limits: the saved 1000 and an asked 500 or 0 are clamped, not refused.
    const ep = storesOf(s).episodes;
    for (let i = 0; i < 202; i++) ep.add(USER, { summary: `walk ${i}` });
    expect(await st({ action: 'run', name: 'eps' })).toMatchObject({ limit: 200, limit_clamped: true, count: 200, total: 202, next_offset: 200 });
    expect(await st({ action: 'run', name: 'eps', limit: 500, offset: 200 })).toMatchObject({ limit: 200, limit_clamped: true, count: 2, next_offset: null });
    expect(await st({ action: 'run', name: 'eps', limit: 0 })).toMatchObject({ limit: 1, count: 1 });
    // Replace, then delete.
    const again = await st({ action: 'save', name: 'HIGHPREFS', spec_json: { key_like: 'pref:' } });
    expect(again).toMatchObject({ replaced: true, query: { name: 'HIGHPREFS', created: saved.query.created } });
    expect((await st({ action: 'run', name: 'highprefs' })).total).toBe(2);
    expect(await st({ action: 'delete', name: 'highprefs' })).toMatchObject({ action: 'delete', query: { name: 'HIGHPREFS' } });
    expect((await st({ action: 'list' })).queries.map((q: any) => q.name)).toEqual(['eps']);
    const gone = await toolError(st({ action: 'delete', name: 'highprefs' }));
    expect(gone).toMatchObject({ field: 'name', type: 'NotFoundError' });
  });

  it('raises a ValueError for a hostile name before any file or SQL access', async () => {
    s = await start({ expose: 'insight,write' });
    const fsCalls = ['readFileSync', 'readdirSync', 'writeFileSync', 'renameSync', 'rmSync', 'mkdirSync'].map((m) => vi.spyOn(fs, m as 'readFileSync'));
    const sql = vi.spyOn(storesOf(s).ctx, 'stmt');
    for (const name of ['../../../etc/passwd', '../x', 'a/b', '..', '.meta', 'x'.repeat(101), 'über', 'a b', 'a;rm', '']) {
      for (const action of ['save', 'run', 'delete']) {
        const err = await toolError(st({ action, name, ...(action === 'save' ? { spec_json: { key_like: 'x' } } : {}) }));
        expect(err, `${action} ${JSON.stringify(name)}`).toMatchObject({ type: 'ValueError', field: 'name' });
      }
    }
    expect(fsCalls.every((f) => f.mock.calls.length === 0)).toBe(true);
    expect(sql).not.toHaveBeenCalled();
    vi.restoreAllMocks();
    expect(metaFiles()).toEqual([]);
    // 100 characters of letters and digits are accepted.
    expect((await st({ action: 'save', name: `Ab1${'x'.repeat(97)}`, spec_json: {} })).replaced).toBe(false);
  });

  it('raises a ValueError for a name with _ or - (the spec: alphanumeric) before any file or SQL access, naming name and what is accepted', async () => {
    s = await start({ expose: 'insight,write' });
    const fsCalls = ['readFileSync', 'readdirSync', 'writeFileSync', 'renameSync', 'rmSync', 'mkdirSync'].map((m) => vi.spyOn(fs, m as 'readFileSync'));
    const sql = vi.spyOn(storesOf(s).ctx, 'stmt');
    for (const name of ['my_query-1', 'a-b', 'x_', 'A--__--B']) {
      for (const action of ['save', 'run', 'delete']) {
        const err = await toolError(st({ action, name, ...(action === 'save' ? { spec_json: { key_like: 'x' } } : {}) }));
        expect(err, `${action} ${name}`).toMatchObject({ type: 'ValueError', field: 'name', accepted: '1 to 100 characters, ASCII letters and digits only' });
      }
    }
    expect(fsCalls.every((f) => f.mock.calls.length === 0)).toBe(true);
    expect(sql).not.toHaveBeenCalled();
    vi.restoreAllMocks();
    expect(metaFiles()).toEqual([]);
  });

  it('a data dir an older build left, with queries named with _ or -: the start renames them, none is lost', async () => {
    const dir = tempDataDir();
    try {
      const folder = path.join(dir, '.meta', 'standing', 'user', 'default');
      fs.mkdirSync(folder, { recursive: true });
      const text = (name: string, key: string) => `name: ${name}\ndescription: older\nfilters:\n  target: core\n  key_like: "${key}"\ncreated: 2025-01-01T00:00:00.000Z\nupdated: 2025-01-01T00:00:00.000Z\n`;
      fs.writeFileSync(path.join(folder, 'my_prefs-1.yaml'), text('My_Prefs-1', 'pref:'));
      fs.writeFileSync(path.join(folder, 'a-b.yaml'), text('a-b', 'a'));
      fs.writeFileSync(path.join(folder, 'ab.yaml'), text('ab', 'b'));
      s = await createTestServer({ plugins: [primitives, insight], expose: 'insight,write', clock: new ManualClock(), dataDir: dir });
      expect((await st({ action: 'list' })).queries).toEqual([
        { name: 'ab', description: 'older' },
        { name: 'ab1', description: 'older' },
        { name: 'MyPrefs1', description: 'older' },
      ]);
      expect(fs.readdirSync(folder).sort()).toEqual(['ab.yaml', 'ab1.yaml', 'myprefs1.yaml']);
      storesOf(s).facts.upsert(USER, { key: 'pref:editor', value: 'Uses Vim' });
      expect((await st({ action: 'run', name: 'myprefs1' })).facts.map((f: any) => f.value)).toEqual(['Uses Vim']);
      expect((await st({ action: 'run', name: 'ab1' })).name).toBe('ab1');
    } finally {
      await s?.close();
      s = undefined as unknown as TestServer;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('raises a ValueError for an unknown filter key before any file or SQL access, and names a bad filter value', async () => {
    s = await start({ expose: 'insight,write' });
    const writes = vi.spyOn(fs, 'writeFileSync');
    const reads = vi.spyOn(fs, 'readFileSync');
    const sql = vi.spyOn(storesOf(s).ctx, 'stmt');
    for (const spec_json of [{ key_like: 'x', evil: 1 }, '{"sql": "DROP TABLE facts"}', { offset: 3 }, { user_id: 'bob' }]) {
      const err = await toolError(st({ action: 'save', name: 'q', spec_json }));
      expect(err).toMatchObject({ type: 'ValueError', field: 'spec_json' });
      expect(err.message).toMatch(/unknown filter key/);
    }
    expect(writes).not.toHaveBeenCalled();
    expect(reads).not.toHaveBeenCalled();
    expect(sql).not.toHaveBeenCalled();
    vi.restoreAllMocks();
    expect(metaFiles()).toEqual([]);
    const field = async (spec_json: unknown) => (await toolError(st({ action: 'save', name: 'q', spec_json }))).field;
    expect(await field('not json')).toBe('spec_json');
    expect(await field({ importance_min: 3 })).toBe('spec_json.importance_min');
    expect(await field({ target: 'wiki' })).toBe('spec_json.target');
    expect(await field({ key_like: 'x', target: 'episodes' })).toBe('spec_json.key_like');
    expect(await field({ created_until: 'soon' })).toBe('spec_json.created_until');
    expect(await field({ limit: 1.5 })).toBe('spec_json.limit');
    expect((await toolError(st({ action: 'save', name: 'q' }))).field).toBe('spec_json');
    expect((await toolError(st({ action: 'run' }))).field).toBe('name');
    expect((await toolError(st({ action: 'run', name: 'q', limit: 2.5 }))).field).toBe('limit');
    expect((await toolError(st({ action: 'purge' }))).field).toBe('action');
    expect(metaFiles()).toEqual([]);
  });
});

describe('memory_standing tiers', () => {
  it('with only insight exposed: list and run work, save and delete are refused naming action, and nothing is written', async () => {
    s = await start({ expose: 'insight' });
    storesOf(s).standing.save(USER, 'mine', { description: 'seeded' });
    const before = metaFiles();
    expect((await st({ action: 'list' })).queries).toEqual([{ name: 'mine', description: 'seeded' }]);
    expect((await st({ action: 'run', name: 'mine' })).total).toBe(0);
    for (const action of ['save', 'delete']) {
      const err = await toolError(st({ action, name: 'mine', ...(action === 'save' ? { spec_json: {} } : {}) }));
      expect(err).toMatchObject({ type: 'TierError', field: 'action', accepted: ['list', 'run'] });
      expect(err.message).toMatch(/write tier/);
    }
    expect(metaFiles()).toEqual(before);
    expect((await s.client.listTools()).tools.find((t) => t.name === 'memory_standing')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: false });
  });

  it('with only write exposed: save and delete work, list and run are refused naming action', async () => {
    s = await start({ expose: 'write' });
    expect((await st({ action: 'save', name: 'mine', spec_json: {} })).replaced).toBe(false);
    for (const action of ['list', 'run']) {
      expect(await toolError(st({ action, ...(action === 'run' ? { name: 'mine' } : {}) }))).toMatchObject({ type: 'TierError', field: 'action', accepted: ['save', 'delete'] });
    }
    expect((await st({ action: 'delete', name: 'mine' })).query.name).toBe('mine');
  });

  it('is hidden when neither tier is exposed', async () => {
    s = await start({ expose: 'primitives' });
    expect((await s.client.listTools()).tools.map((t) => t.name)).not.toContain('memory_standing');
  });
});
