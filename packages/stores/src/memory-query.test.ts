import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { substringLike } from './memory-query.js';
import { A, U, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

const field = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as { field?: string }).field;
  }
  return 'no error';
};

describe('substringLike', () => {
  it('escapes \\, % and _ so they match themselves', () => {
    expect(substringLike('50%_off\\')).toBe('%50\\%\\_off\\\\%');
  });
});

describe('FactStore.query', () => {
  function seed() {
    const facts = env.stores.facts;
    const out = [];
    for (const [key, value, importance] of [
      ['pref:editor', 'Uses Vim at work', 0.9],
      ['pref:shell', 'Uses zsh with 100% plugins', 0.4],
      ['home', 'Lives in Lisbon', 0.7],
      ['a_b', 'underscore key', 0.2],
    ] as const) {
      out.push(facts.upsert(U, { key, value, importance }));
      env.clock.advance(1000);
    }
    facts.upsert(A, { key: 'pref:editor', value: 'agent value', importance: 0.9 });
    return out;
  }

  it('filters by importance, key and value substrings and created range, newest first, paged with a total', () => {
    const [editor, shell, home, ab] = seed();
    const keys = (q: object) => env.stores.facts.query(U, q).facts.map((f) => f.key);
    expect(keys({})).toEqual(['a_b', 'home', 'pref:shell', 'pref:editor']);
    expect(keys({ importance_min: 0.5 })).toEqual(['home', 'pref:editor']);
    expect(keys({ importance_min: 0.4, importance_max: 0.7 })).toEqual(['home', 'pref:shell']);
    expect(keys({ key_like: 'PREF:' })).toEqual(['pref:shell', 'pref:editor']);
    expect(keys({ content_like: 'uses' })).toEqual(['pref:shell', 'pref:editor']);
    expect(keys({ content_like: '100%' })).toEqual(['pref:shell']);
    expect(keys({ content_like: '%' })).toEqual(['pref:shell']);
    expect(keys({ key_like: '_' })).toEqual(['a_b']);
    expect(keys({ created_since: shell.created, created_until: home.created })).toEqual(['home', 'pref:shell']);
    expect(keys({ created_until: editor.created })).toEqual(['pref:editor']);
    const page = env.stores.facts.query(U, { limit: 2, offset: 1 });
    expect(page.facts.map((f) => f.entry_id)).toEqual([home.entry_id, shell.entry_id]);
    expect(page.total).toBe(4);
    expect(env.stores.facts.query(A, {}).facts.map((f) => f.value)).toEqual(['agent value']);
    expect(ab.key).toBe('a_b');
  });

  it('does not record an access', () => {
    seed();
    env.stores.facts.query(U, {});
    env.stores.flush();
    expect(env.db.prepare('SELECT SUM(access_count) AS n FROM facts').get()).toEqual({ n: 0 });
  });

  it('names the field at fault', () => {
    const q = (x: object) => field(() => env.stores.facts.query(U, x));
    expect(q({ importance_min: 2 })).toBe('importance_min');
    expect(q({ importance_max: -0.1 })).toBe('importance_max');
    expect(q({ importance_min: 0.8, importance_max: 0.2 })).toBe('importance_min');
    expect(q({ key_like: '' })).toBe('key_like');
    expect(q({ content_like: 'x'.repeat(501) })).toBe('content_like');
    expect(q({ created_since: 'yesterday' })).toBe('created_since');
    expect(q({ created_until: '2026-02-30' })).toBe('created_until');
    expect(q({ created_since: '2026-03-01', created_until: '2026-02-01' })).toBe('created_since');
    expect(q({ tag: 'x' })).toBe('tag');
    expect(q({ limit: 201 })).toBe('limit');
    expect(q({ limit: 0 })).toBe('limit');
    expect(q({ offset: -1 })).toBe('offset');
  });

  it('keeps user text out of the SQL', () => {
    seed();
    const hostile = "' OR 1=1 --";
    expect(env.stores.facts.query(U, { key_like: hostile }).facts).toEqual([]);
    expect(env.stores.facts.query(U, { content_like: "x'); DROP TABLE facts; --" }).facts).toEqual([]);
    expect(env.stores.facts.count(U)).toBe(4);
  });
});

describe('EpisodeStore.query', () => {
  it('filters by summary substring, importance, created range and faceted tags; key_like is refused', () => {
    const ep = env.stores.episodes;
    const a = ep.add(U, { summary: 'Hiked the ridge', importance: 0.8, tags: ['place:alps', 'mood:calm'] });
    env.clock.advance(1000);
    const b = ep.add(U, { summary: 'Hiked the coast', importance: 0.3, tags: ['place:coast', 'mood:calm'] });
    env.clock.advance(1000);
    const c = ep.add(U, { summary: 'Read a book', importance: 0.5, tags: ['place:alps', 'mood:tired'] });
    ep.add(A, { summary: 'Hiked too', tags: ['place:alps'] });
    const ids = (q: object) => ep.query(U, q).episodes.map((e) => e.id);
    expect(ids({})).toEqual([c.id, b.id, a.id]);
    expect(ids({ content_like: 'hiked' })).toEqual([b.id, a.id]);
    expect(ids({ importance_min: 0.5 })).toEqual([c.id, a.id]);
    expect(ids({ created_since: b.created })).toEqual([c.id, b.id]);
    expect(ids({ tag: ['place:alps', 'place:coast'] })).toEqual([c.id, b.id, a.id]);
    expect(ids({ tag: ['place:alps', 'place:coast', 'mood:calm'] })).toEqual([b.id, a.id]);
    expect(ids({ tag: 'place:alps', content_like: 'ridge' })).toEqual([a.id]);
    expect(ep.query(U, { tag: ['mood:calm'], limit: 1 })).toMatchObject({ total: 2, episodes: [{ id: b.id }] });
    expect(field(() => ep.query(U, { key_like: 'x' }))).toBe('key_like');
    expect(field(() => ep.query(U, { tag: [3] as never }))).toBe('tag');
  });
});

describe('SessionStore.list, GraphStore.query, AuditLog.forTargetInScope', () => {
  it('pages sessions newest first', () => {
    const ids = [];
    for (let i = 0; i < 3; i++) {
      ids.push(env.stores.sessions.end(U, { summary: `s${i}` }).id);
      env.clock.advance(1000);
    }
    expect(env.stores.sessions.list(U, 2).map((x) => x.id)).toEqual([ids[2], ids[1]]);
    expect(env.stores.sessions.list(U, 2, 2).map((x) => x.id)).toEqual([ids[0]]);
    expect(env.stores.sessions.list(A, 5)).toEqual([]);
  });

  it('queries nodes by faceted tags and type, highest confidence first, paged', () => {
    const g = env.stores.graph;
    const a = g.addNode(U, { content: 'A', node_type: 'decision', tags: ['project:x', 'area:db'], confidence: 0.9 });
    const b = g.addNode(U, { content: 'B', node_type: 'error', tags: ['project:y', 'area:db'], confidence: 0.5 });
    const c = g.addNode(U, { content: 'C', node_type: 'decision', tags: ['project:x'], confidence: 0.7 });
    g.addNode(A, { content: 'D', node_type: 'decision', tags: ['project:x'] });
    const ids = (q: object) => g.query(U, q).map((n) => n.node_id);
    expect(ids({})).toEqual([a.node_id, c.node_id, b.node_id]);
    expect(ids({ tag: 'project:x' })).toEqual([a.node_id, c.node_id]);
    expect(ids({ tag: ['project:x', 'project:y', 'area:db'] })).toEqual([a.node_id, b.node_id]);
    expect(ids({ node_type: 'Decision ' })).toEqual([a.node_id, c.node_id]);
    expect(ids({ tag: 'area:db', node_type: 'error' })).toEqual([b.node_id]);
    expect(g.nodes(U, { limit: 1, offset: 1 }).map((n) => n.node_id)).toEqual([c.node_id]);
  });

  it("reads a target's audit rows of one scope only", () => {
    const f = env.stores.facts.upsert(U, { key: 'k', value: 'v' });
    env.stores.audit.log(A, 'update', 'fact', f.entry_id);
    expect(env.stores.audit.forTargetInScope(U, f.entry_id).map((e) => e.action)).toEqual(['create']);
    expect(env.stores.audit.forTargetInScope(A, f.entry_id).map((e) => e.action)).toEqual(['update']);
  });
});

describe('faceted tag filters', () => {
  it('use one statement shape however many tags and dimensions are given', () => {
    const ep = env.stores.episodes;
    const a = ep.add(U, { summary: 'a', tags: ['p:1', 'm:x'] });
    const shapes = () => [...(env.stores.ctx as unknown as { cache: Map<string, unknown> }).cache.keys()].filter((k) => k.includes('json_each(g.value)')).length;
    ep.query(U, { tag: ['p:1'] });
    const one = shapes();
    expect(one).toBeGreaterThan(0);
    ep.query(U, { tag: ['p:1', 'p:2', 'm:x'] });
    ep.query(U, { tag: ['p:1', 'p:2', 'm:x', 'q', 'r:1', 'r:2'] });
    expect(shapes()).toBe(one);
    expect(ep.query(U, { tag: ['p:1', 'p:2', 'm:x'] }).episodes.map((e) => e.id)).toEqual([a.id]);
    expect(ep.list(U, { tag: ['p:2', 'm:x'] })).toEqual([]);
  });

});

describe('memory_query key_like', () => {
  it('takes key_like in NFC, the form keys are stored in: a decomposed pattern finds the key', () => {
    env.stores.facts.upsert(U, { key: 'caf\u00e9 order', value: 'flat white', importance: 0.5 });
    const keys = (q: object) => env.stores.facts.query(U, q).facts.map((f) => f.key);
    expect(keys({ key_like: 'cafe\u0301' })).toEqual(['caf\u00e9 order']);
    expect(keys({ key_like: 'caf\u00e9' })).toEqual(['caf\u00e9 order']);
  });
});
