import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { checkStandingName, checkStandingSpec, isLegacyStandingName, renamedStandingName, STANDING_MAX, STANDING_SPEC_KEYS, standingSpecJson } from './standing.js';
import { A, U, U2, makeEnv, type Env, type RecordingLogger } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => {
  vi.restoreAllMocks();
  env.close();
});

const files = () => (fs.existsSync(path.join(env.dir, '.meta')) ? fs.readdirSync(path.join(env.dir, '.meta'), { recursive: true }).map(String).sort() : []);

describe('StandingStore', () => {
  it('saves a query as YAML in the scope folder, lists it payload-free, runs it through the memory_query filters and deletes it', () => {
    const f = env.stores.facts;
    f.upsert(U, { key: 'pref:editor', value: 'Uses Vim', importance: 0.9 });
    env.clock.advance(1000);
    f.upsert(U, { key: 'pref:shell', value: 'Uses zsh', importance: 0.3 });
    env.clock.advance(1000);
    f.upsert(U, { key: 'home', value: 'Lives in Lisbon', importance: 0.95 });
    f.upsert(U2, { key: 'pref:editor', value: 'Uses Emacs', importance: 0.9 });
    const saved = env.stores.standing.save(U, 'HighPrefs1', JSON.stringify({ key_like: 'pref:', importance_min: 0.5, description: 'important preferences' }));
    expect(saved.replaced).toBe(false);
    const file = path.join(env.dir, '.meta', 'standing', 'user', 'default', 'highprefs1.yaml');
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain('name: HighPrefs1');
    expect(text).toContain('key_like: "pref:"');
    expect(env.stores.standing.list(U)).toMatchObject([{ name: 'HighPrefs1', description: 'important preferences' }]);
    expect(env.stores.standing.list(U2)).toEqual([]);
    expect(env.stores.standing.list(A)).toEqual([]);
    const run = env.stores.standing.run(U, 'highprefs1');
    expect(run).toMatchObject({ name: 'HighPrefs1', target: 'core', total: 1, limit: 50, limit_clamped: false });
    expect(run.facts.map((x) => x.value)).toEqual(['Uses Vim']);
    // Bob's scope holds no query of that name.
    expect(() => env.stores.standing.run(U2, 'HighPrefs1')).toThrow(expect.objectContaining({ type: 'NotFoundError', field: 'name' }));
    // Replacing keeps the created time.
    env.clock.advance(5000);
    const again = env.stores.standing.save(U, 'highprefs1', { key_like: 'pref:', description: 'all preferences', limit: 1 });
    expect(again.replaced).toBe(true);
    expect(again.query.created).toBe(saved.query.created);
    expect(again.query.updated).not.toBe(saved.query.updated);
    const r2 = env.stores.standing.run(U, 'HIGHPREFS1');
    expect(r2.facts.map((x) => x.value)).toEqual(['Uses zsh']);
    expect(r2.total).toBe(2);
    expect(env.stores.standing.delete(U, 'highprefs1').name).toBe('highprefs1');
    expect(fs.existsSync(file)).toBe(false);
    expect(() => env.stores.standing.delete(U, 'highprefs1')).toThrow(expect.objectContaining({ field: 'name' }));
  });

  it('clamps the run limit to 1..200 and runs episode queries with faceted tags', () => {
    const ep = env.stores.episodes;
    for (let i = 0; i < 205; i++) ep.add(U, { summary: `walk ${i}`, tags: [i % 2 ? 'place:alps' : 'place:coast', 'mood:calm'] });
    ep.add(U, { summary: 'angry walk', tags: ['place:alps', 'mood:angry'] });
    env.stores.standing.save(U, 'calm', { target: 'episodes', tag: ['place:alps', 'place:coast', 'mood:calm'], limit: 500 });
    const r = env.stores.standing.run(U, 'calm');
    expect(r).toMatchObject({ target: 'episodes', limit: 200, limit_clamped: true, total: 205 });
    expect(r.episodes).toHaveLength(200);
    expect(env.stores.standing.run(U, 'calm', { limit: 0 })).toMatchObject({ limit: 1, limit_clamped: true });
    expect(env.stores.standing.run(U, 'calm', { limit: 3 }).episodes).toHaveLength(3);
    expect(() => env.stores.standing.run(U, 'calm', { limit: 2.5 })).toThrow(expect.objectContaining({ field: 'limit' }));
  });

  it('refuses a hostile name before any file or SQL access', () => {
    const fsSpies = ['readFileSync', 'readdirSync', 'writeFileSync', 'renameSync', 'rmSync', 'mkdirSync', 'existsSync', 'statSync'].map((m) => vi.spyOn(fs, m as 'readFileSync'));
    const sql = vi.spyOn(env.stores.ctx, 'stmt');
    const prepare = vi.spyOn(env.db, 'prepare');
    const hostile = ['../../etc/passwd', '..', 'a/b', 'a\\b', '.hidden', 'x'.repeat(101), 'naïve', 'two words', '', '-lead', 'a.yaml', 'my_query', 'a-b', 'x_', 'A--__--B', 'nul\0byte'];
    for (const name of hostile) {
      for (const call of [
        () => env.stores.standing.save(U, name, { key_like: 'x' }),
        () => env.stores.standing.run(U, name),
        () => env.stores.standing.delete(U, name),
        () => env.stores.standing.get(U, name),
      ]) {
        expect(call, JSON.stringify(name)).toThrow(expect.objectContaining({ type: 'ValueError', field: 'name' }));
      }
    }
    for (const spy of fsSpies) expect(spy).not.toHaveBeenCalled();
    expect(sql).not.toHaveBeenCalled();
    expect(prepare).not.toHaveBeenCalled();
    expect(files()).toEqual([]);
    expect(checkStandingName('x'.repeat(100))).toHaveLength(100);
  });

  it('refuses an unknown filter key before any file or SQL access, and names a bad filter value', () => {
    const write = vi.spyOn(fs, 'writeFileSync');
    const read = vi.spyOn(fs, 'readFileSync');
    const sql = vi.spyOn(env.stores.ctx, 'stmt');
    for (const spec of [{ key_like: 'x', drop_table: 1 }, '{"__proto__": {"x": 1}}', { offset: 5 }, { layer: 'agent' }]) {
      expect(() => env.stores.standing.save(U, 'q', spec)).toThrow(expect.objectContaining({ type: 'ValueError', field: 'spec_json' }));
    }
    expect(write).not.toHaveBeenCalled();
    expect(read).not.toHaveBeenCalled();
    expect(sql).not.toHaveBeenCalled();
    expect(files()).toEqual([]);
    const field = (spec: unknown) => {
      try {
        checkStandingSpec(spec);
      } catch (err) {
        return (err as { field?: string }).field;
      }
      return 'none';
    };
    expect(field('not json')).toBe('spec_json');
    expect(field('[1]')).toBe('spec_json');
    expect(field({ importance_min: 2 })).toBe('spec_json.importance_min');
    expect(field({ target: 'wiki' })).toBe('spec_json.target');
    expect(field({ tag: 'a' })).toBe('spec_json.tag');
    expect(field({ created_since: 'yesterday' })).toBe('spec_json.created_since');
    expect(field({ limit: 'ten' })).toBe('spec_json.limit');
    expect(field({ description: 5 })).toBe('spec_json.description');
    expect(field({ target: 'episodes', tag: ['a:b'], limit: 999, description: 'ok' })).toBe('none');
  });

  it('re-checks a file edited by hand: an unknown key there raises before any SQL; list leaves it out', () => {
    env.stores.standing.save(U, 'q', { key_like: 'x' });
    const file = path.join(env.dir, '.meta', 'standing', 'user', 'default', 'q.yaml');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('key_like: x', 'key_like: x\n  evil: 1'));
    const sql = vi.spyOn(env.stores.ctx, 'stmt');
    expect(() => env.stores.standing.run(U, 'q')).toThrow(expect.objectContaining({ type: 'ValueError', field: 'spec_json' }));
    expect(sql).not.toHaveBeenCalled();
    expect(env.stores.standing.list(U)).toEqual([]);
  });

  it('keeps every filter value as it was saved through YAML (texts that read as other YAML values, times, lists)', () => {
    const spec = { target: 'episodes', content_like: 'null', created_since: '2026-01-01T00:00:00.000Z', created_until: '2026-01-02', tag: ['a:1e3', '~', 'yes'], importance_min: 0 };
    env.stores.standing.save(U, 'rt', { ...spec, description: 'two\nlines: "quoted" #not a comment' });
    const q = env.stores.standing.get(U, 'rt');
    expect(q?.filters).toEqual(spec);
    expect(q?.description).toBe('two\nlines: "quoted" #not a comment');
    env.stores.standing.save(U, 'rt2', { key_like: 'yes', content_like: '1e3' });
    expect(env.stores.standing.get(U, 'rt2')?.filters).toEqual({ target: 'core', key_like: 'yes', content_like: '1e3' });
  });

  it(`keeps at most ${STANDING_MAX} queries per scope`, () => {
    for (let i = 0; i < STANDING_MAX; i++) env.stores.standing.save(U, `q${i}`, {});
    expect(() => env.stores.standing.save(U, 'oneMore', {})).toThrow(expect.objectContaining({ field: 'name' }));
    expect(env.stores.standing.save(U, 'q0', { description: 'replaced' }).replaced).toBe(true);
    expect(env.stores.standing.save(U2, 'oneMore', {}).replaced).toBe(false);
  });
});

describe('StandingStore: export, import and the window purge', () => {
  const q = (name: string) => ({ name, description: 'd', filters: { target: 'core' as const, importance_min: 0.5 }, created: '2020-01-01T00:00:00.000Z', updated: '2020-01-02T00:00:00.000Z' });

  it('restore writes the file when the transaction commits, with its times, and none when it rolls back', () => {
    const s = env.stores.standing;
    expect(env.stores.transaction(() => s.restore(U2, q('Kept')))).toBe(true);
    expect(s.list(U2)).toEqual([q('Kept')]);
    expect(() =>
      env.stores.transaction(() => {
        s.restore(U2, q('Lost'));
        throw new Error('rolled back');
      }),
    ).toThrow('rolled back');
    expect(s.list(U2).map((x) => x.name)).toEqual(['Kept']);
    expect(env.stores.transaction(() => s.restore(U2, q('kept')))).toBe(false);
    // Past the cap, counting the files the transaction has queued: an error naming the field given.
    expect(() => env.stores.transaction(() => s.restore(U2, q('more'), { pending: 99, field: 'data.standing_queries[3].name' }))).toThrow(
      expect.objectContaining({ field: 'data.standing_queries[3].name' }),
    );
  });

  it('deleteSince takes the queries first saved in the window (a query saved again stays); clear takes all, each on commit', () => {
    const s = env.stores.standing;
    s.save(U, 'old', { target: 'core' });
    const since = env.clock.now();
    env.clock.advance(1000);
    s.save(U, 'old', { target: 'episodes' });
    s.save(U, 'new', { target: 'core' });
    s.save(U2, 'other', { target: 'core' });
    expect(env.stores.transaction(() => s.deleteSince(U, new Date(since + 1).toISOString()))).toBe(1);
    expect(s.list(U).map((x) => x.name)).toEqual(['old']);
    expect(() =>
      env.stores.transaction(() => {
        s.clear(U);
        throw new Error('rolled back');
      }),
    ).toThrow('rolled back');
    expect(s.list(U)).toHaveLength(1);
    expect(env.stores.transaction(() => s.clear(U))).toBe(1);
    expect(s.list(U)).toEqual([]);
    expect(s.list(U2)).toHaveLength(1);
  });
});

describe('standing query names an older build took (with _ or -)', () => {
  /** A file as an older build wrote it: lower-case file name, the name as saved inside. */
  function oldFile(scopeDir: string, name: string, filters: Record<string, unknown>, description = ''): string {
    fs.mkdirSync(scopeDir, { recursive: true });
    const file = path.join(scopeDir, `${name.toLowerCase()}.yaml`);
    fs.writeFileSync(file, `name: ${name}\ndescription: "${description}"\nfilters:\n${Object.entries({ target: 'core', ...filters }).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`).join('\n')}\ncreated: 2025-01-01T00:00:00.000Z\nupdated: 2025-01-02T00:00:00.000Z\n`);
    return file;
  }

  it('are refused as names: letters and digits only, before any file or SQL access, naming name and what is accepted', () => {
    const read = vi.spyOn(fs, 'readFileSync');
    const write = vi.spyOn(fs, 'writeFileSync');
    const sql = vi.spyOn(env.stores.ctx, 'stmt');
    for (const name of ['my_query-1', 'a-b', 'x_', 'A--__--B']) {
      expect(() => env.stores.standing.save(U, name, {})).toThrow(expect.objectContaining({ type: 'ValueError', field: 'name', accepted: '1 to 100 characters, ASCII letters and digits only' }));
    }
    expect(read).not.toHaveBeenCalled();
    expect(write).not.toHaveBeenCalled();
    expect(sql).not.toHaveBeenCalled();
    expect(env.stores.standing.save(U, 'MyQuery1', {}).query.name).toBe('MyQuery1');
  });

  it('renamedStandingName: _ and - removed; the smallest free number suffix when taken or empty, within 100 characters', () => {
    const none = () => false;
    expect(renamedStandingName('my_query-1', none)).toBe('myquery1');
    expect(renamedStandingName('My_Query', (l) => l === 'myquery')).toBe('MyQuery1');
    expect(renamedStandingName('My_Query', (l) => ['myquery', 'myquery1', 'myquery2'].includes(l))).toBe('MyQuery3');
    expect(renamedStandingName('_-_', none)).toBe('1');
    const long = `${'z'.repeat(99)}-`;
    const taken = new Set(['z'.repeat(99), ...Array.from({ length: 9 }, (_, i) => 'z'.repeat(99) + (i + 1))]);
    const r = renamedStandingName(long, (l) => taken.has(l));
    expect(r).toBe(`${'z'.repeat(98)}10`);
    expect(r).toHaveLength(100);
    expect(isLegacyStandingName('a-b')).toBe(true);
    expect(isLegacyStandingName('ab')).toBe(false);
    expect(isLegacyStandingName('-ab')).toBe(false);
    expect(isLegacyStandingName('../a-b')).toBe(false);
  });

  it('the start renames their files (taken or empty names get a number), keeps the saved name consistent and logs old -> new', () => {
    const dir = env.stores.standing.dir(U);
    oldFile(dir, 'My_Prefs-1', { key_like: 'pref:' }, 'my prefs');
    oldFile(dir, 'a-b', { key_like: 'a' });
    oldFile(dir, 'A--__--B', { key_like: 'b' });
    env.stores.standing.save(U, 'ab', { key_like: 'held' });
    oldFile(env.stores.standing.dir(U2), 'x_', { key_like: 'x' });
    env.stores.facts.upsert(U, { key: 'pref:editor', value: 'Vim' });
    // Not listed, and no call can name them, before the start renames them.
    expect(env.stores.standing.list(U).map((q) => q.name)).toEqual(['ab']);
    const log = env.stores.ctx.logger as RecordingLogger;
    const renamed = env.stores.standing.renameLegacyFiles();
    // Folder by folder (bob's, then default's), each in file name order.
    expect(renamed.map((r) => [r.from, r.to])).toEqual([
      ['x_', 'x'],
      ['A--__--B', 'AB1'],
      ['a-b', 'ab2'],
      ['My_Prefs-1', 'MyPrefs1'],
    ]);
    expect(env.stores.standing.list(U).map((q) => [q.name, q.filters.key_like])).toEqual([
      ['ab', 'held'],
      ['AB1', 'b'],
      ['ab2', 'a'],
      ['MyPrefs1', 'pref:'],
    ]);
    expect(env.stores.standing.list(U2).map((q) => q.name)).toEqual(['x']);
    expect(fs.readdirSync(dir).sort()).toEqual(['ab.yaml', 'ab1.yaml', 'ab2.yaml', 'myprefs1.yaml']);
    const q = env.stores.standing.get(U, 'myprefs1')!;
    expect(q).toMatchObject({ name: 'MyPrefs1', description: 'my prefs', created: '2025-01-01T00:00:00.000Z', updated: '2025-01-02T00:00:00.000Z' });
    expect(fs.readFileSync(path.join(dir, 'myprefs1.yaml'), 'utf8')).toContain('name: MyPrefs1');
    expect(env.stores.standing.run(U, 'MyPrefs1').facts.map((f) => f.value)).toEqual(['Vim']);
    const lines = log.lines.filter((l) => l.message.startsWith('standing query renamed'));
    expect(lines.map((l) => l.message.split(' (')[0])).toEqual([
      'standing query renamed "x_" -> "x"',
      'standing query renamed "A--__--B" -> "AB1"',
      'standing query renamed "a-b" -> "ab2"',
      'standing query renamed "My_Prefs-1" -> "MyPrefs1"',
    ]);
    // A second start has nothing left to rename.
    expect(env.stores.standing.renameLegacyFiles()).toEqual([]);
  });

  it('the start repair renames them too (after the files an older import owed are written)', () => {
    oldFile(env.stores.standing.dir(U), 'old_one', { key_like: 'o' });
    env.stores.repairAfterStop();
    expect(env.stores.standing.list(U).map((q) => q.name)).toEqual(['oldone']);
  });
});

describe('standing query records: spec_json (the spec\'s field)', () => {
  it('standingSpecJson is the whitelisted filters plus description, and saving it back gives the same query; run carries it', () => {
    const { query } = env.stores.standing.save(U, 'prefs', { key_like: 'pref:', importance_min: 0.5, limit: 20, description: 'preferences' });
    const spec = standingSpecJson(query);
    expect(spec).toEqual({ target: 'core', key_like: 'pref:', importance_min: 0.5, limit: 20, description: 'preferences' });
    expect(Object.keys(spec).every((k) => (STANDING_SPEC_KEYS as readonly string[]).includes(k))).toBe(true);
    expect(checkStandingSpec(spec)).toEqual({ filters: query.filters, description: 'preferences' });
    const again = env.stores.standing.save(U, 'copy', spec).query;
    expect([again.filters, again.description]).toEqual([query.filters, query.description]);
    expect(env.stores.standing.run(U, 'prefs').spec_json).toEqual(spec);
  });
});
