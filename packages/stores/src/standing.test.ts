import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { checkStandingName, checkStandingSpec, STANDING_MAX } from './standing.js';
import { A, U, U2, makeEnv, type Env } from './test-helpers.js';

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
    const saved = env.stores.standing.save(U, 'High_prefs-1', JSON.stringify({ key_like: 'pref:', importance_min: 0.5, description: 'important preferences' }));
    expect(saved.replaced).toBe(false);
    const file = path.join(env.dir, '.meta', 'standing', 'user', 'default', 'high_prefs-1.yaml');
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain('name: High_prefs-1');
    expect(text).toContain('key_like: "pref:"');
    expect(env.stores.standing.list(U)).toMatchObject([{ name: 'High_prefs-1', description: 'important preferences' }]);
    expect(env.stores.standing.list(U2)).toEqual([]);
    expect(env.stores.standing.list(A)).toEqual([]);
    const run = env.stores.standing.run(U, 'high_prefs-1');
    expect(run).toMatchObject({ name: 'High_prefs-1', target: 'core', total: 1, limit: 50, limit_clamped: false });
    expect(run.facts.map((x) => x.value)).toEqual(['Uses Vim']);
    // Bob's scope holds no query of that name.
    expect(() => env.stores.standing.run(U2, 'High_prefs-1')).toThrow(expect.objectContaining({ type: 'NotFoundError', field: 'name' }));
    // Replacing keeps the created time.
    env.clock.advance(5000);
    const again = env.stores.standing.save(U, 'high_prefs-1', { key_like: 'pref:', description: 'all preferences', limit: 1 });
    expect(again.replaced).toBe(true);
    expect(again.query.created).toBe(saved.query.created);
    expect(again.query.updated).not.toBe(saved.query.updated);
    const r2 = env.stores.standing.run(U, 'HIGH_PREFS-1');
    expect(r2.facts.map((x) => x.value)).toEqual(['Uses zsh']);
    expect(r2.total).toBe(2);
    expect(env.stores.standing.delete(U, 'high_prefs-1').name).toBe('high_prefs-1');
    expect(fs.existsSync(file)).toBe(false);
    expect(() => env.stores.standing.delete(U, 'high_prefs-1')).toThrow(expect.objectContaining({ field: 'name' }));
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
    const hostile = ['../../etc/passwd', '..', 'a/b', 'a\\b', '.hidden', 'x'.repeat(101), 'naïve', 'two words', '', '-lead', 'a.yaml', 'nul\0byte'];
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
    expect(() => env.stores.standing.save(U, 'one_more', {})).toThrow(expect.objectContaining({ field: 'name' }));
    expect(env.stores.standing.save(U, 'q0', { description: 'replaced' }).replaced).toBe(true);
    expect(env.stores.standing.save(U2, 'one_more', {}).replaced).toBe(false);
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
