import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BRANCH_MAX } from './branches.js';
import { A, U, U2, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

function seed() {
  env.stores.facts.upsert(U, { key: 'city', value: 'Paris', importance: 0.6 });
  env.stores.facts.upsert(U, { key: 'pet', value: 'cat' });
  env.stores.facts.upsert(U, { key: 'job', value: 'baker' });
}

describe('BranchStore', () => {
  it('copies the facts, edits the copy without touching live memory, and diffs against the copy', () => {
    seed();
    const b = env.stores.branches.create(U, 'What If');
    expect(b).toMatchObject({ name: 'what-if', facts: 3, changes: 0 });
    env.stores.branches.set(U, 'what-if', 'city', 'Berlin');
    env.stores.branches.set(U, 'what-if', 'lang', 'German', 0.9);
    const info = env.stores.branches.unset(U, 'what-if', 'pet');
    expect(info).toMatchObject({ facts: 3, changes: 3 });
    expect(env.stores.facts.get(U, 'city')?.value).toBe('Paris');
    expect(env.stores.facts.get(U, 'lang')).toBeNull();
    const d = env.stores.branches.diff(U, 'what-if');
    expect(d.added).toEqual([{ key: 'lang', value: 'German', importance: 0.9, live_value: null }]);
    expect(d.changed).toEqual([{ key: 'city', base_value: 'Paris', base_importance: 0.6, value: 'Berlin', importance: 0.6, live_value: 'Paris' }]);
    expect(d.removed).toEqual([{ key: 'pet', base_value: 'cat', live_value: 'cat' }]);
    expect(d.conflicts).toEqual([]);
    // A key added then unset in the branch leaves no change.
    env.stores.branches.unset(U, 'what-if', 'lang');
    expect(env.stores.branches.diff(U, 'what-if').added).toEqual([]);
    expect(() => env.stores.branches.unset(U, 'what-if', 'lang')).toThrow(expect.objectContaining({ field: 'key' }));
    expect(() => env.stores.branches.unset(U, 'what-if', 'pet')).toThrow(expect.objectContaining({ field: 'key' }));
  });

  it('refuses a blank value when set, naming value, so no merge can store one', () => {
    seed();
    env.stores.branches.create(U, 'br');
    for (const [key, value] of [['city', ''], ['lang', '   '], ['lang', '\u200b']]) {
      expect(() => env.stores.branches.set(U, 'br', key!, value!), JSON.stringify([key, value])).toThrow(expect.objectContaining({ field: 'value', accepted: 'text with a visible character' }));
    }
    expect(env.stores.branches.merge(U, 'br')).toMatchObject({ added: [], changed: [] });
    expect(env.stores.facts.get(U, 'city')?.value).toBe('Paris');
  });

  it('merges the changes into live memory in one go, each in the fact history, and deletes the branch', () => {
    seed();
    env.stores.branches.create(U, 'b');
    env.stores.branches.set(U, 'b', 'city', 'Berlin');
    env.stores.branches.set(U, 'b', 'lang', 'German');
    env.stores.branches.unset(U, 'b', 'pet');
    const m = env.stores.branches.merge(U, 'b');
    expect(m).toEqual({ name: 'b', added: ['lang'], changed: ['city'], removed: ['pet'], overwritten: [] });
    expect(env.stores.facts.get(U, 'city')?.value).toBe('Berlin');
    expect(env.stores.facts.get(U, 'lang')?.value).toBe('German');
    expect(env.stores.facts.get(U, 'pet')).toBeNull();
    expect(env.stores.facts.get(U, 'job')?.value).toBe('baker');
    expect(env.stores.versions.factHistory(U, { key: 'city' }).versions[0]).toMatchObject({ op: 'update', value: 'Berlin', reason: 'branch_merge:b' });
    expect(env.stores.branches.list(U)).toEqual([]);
  });

  it('refuses a merge over keys live memory changed since, naming force, and overwrites them with force', () => {
    seed();
    env.stores.branches.create(U, 'b');
    env.stores.branches.set(U, 'b', 'city', 'Berlin');
    env.stores.branches.set(U, 'b', 'job', 'baker');
    env.stores.facts.upsert(U, { key: 'city', value: 'Rome', importance: 0.6 });
    env.stores.facts.upsert(U, { key: 'job', value: 'chef' });
    // Unrelated live changes are no conflict and survive the merge.
    env.stores.facts.upsert(U, { key: 'pet', value: 'dog' });
    expect(env.stores.branches.diff(U, 'b').conflicts).toEqual(['city']);
    expect(() => env.stores.branches.merge(U, 'b')).toThrow(expect.objectContaining({ field: 'force', type: 'ConflictError' }));
    expect(env.stores.facts.get(U, 'city')?.value).toBe('Rome');
    expect(env.stores.branches.list(U)).toHaveLength(1);
    const m = env.stores.branches.merge(U, 'b', true);
    expect(m.overwritten).toEqual(['city']);
    expect(env.stores.facts.get(U, 'city')?.value).toBe('Berlin');
    expect(env.stores.facts.get(U, 'pet')?.value).toBe('dog');
  });

  it('validates names, refuses duplicates and more than BRANCH_MAX, deletes, and keeps scopes apart', () => {
    seed();
    expect(() => env.stores.branches.create(U, '../..')).toThrow(expect.objectContaining({ field: 'name' }));
    expect(() => env.stores.branches.create(U, 'x'.repeat(81))).toThrow(expect.objectContaining({ field: 'name' }));
    env.stores.branches.create(U, 'Plan B');
    expect(() => env.stores.branches.create(U, 'plan-b')).toThrow(expect.objectContaining({ field: 'name', type: 'ConflictError' }));
    expect(() => env.stores.branches.diff(A, 'plan-b')).toThrow(expect.objectContaining({ field: 'name' }));
    expect(() => env.stores.branches.set(U2, 'plan-b', 'k', 'v')).toThrow(expect.objectContaining({ field: 'name' }));
    env.stores.branches.create(A, 'plan-b');
    expect(env.stores.branches.list(A)[0].facts).toBe(0);
    expect(env.stores.branches.delete(U, 'plan-b').name).toBe('plan-b');
    expect(env.stores.branches.list(U)).toEqual([]);
    expect(env.stores.branches.list(A)).toHaveLength(1);
    for (let i = 0; i < BRANCH_MAX; i++) env.stores.branches.create(U, `b${i}`);
    expect(() => env.stores.branches.create(U, 'one-more')).toThrow(expect.objectContaining({ field: 'name' }));
  });
});

describe('BranchStore: export, import, the window purge and forget', () => {
  it('all and restore carry each key with its base and own value; deleteSince takes the branches made in the window', () => {
    const s = env.stores.branches;
    env.stores.facts.upsert(U, { key: 'city', value: 'Paris', importance: 0.6 });
    s.create(U, 'old');
    const since = env.clock.now();
    env.clock.advance(1000);
    s.create(U, 'new');
    s.set(U, 'new', 'pet', 'cat');
    s.unset(U, 'new', 'city');
    const exported = s.all(U).find((b) => b.name === 'new');
    expect(exported!.entries).toEqual([
      { key: 'city', base_value: 'Paris', base_importance: 0.6, value: null, importance: null, source: 'manual', metadata: {} },
      { key: 'pet', base_value: null, base_importance: null, value: 'cat', importance: 0.5, source: 'manual', metadata: {} },
    ]);
    expect(s.restore(U2, exported!)).toBe(true);
    expect(s.all(U2)).toEqual([exported]);
    expect(s.restore(U2, exported!)).toBe(false);
    expect(s.deleteSince(U, new Date(since + 1).toISOString())).toBe(1);
    expect(s.list(U).map((b) => b.name)).toEqual(['old']);
    expect(s.clear(U2)).toBe(1);
  });

  it('forgetFacts drops a copy left as copied or removed, keeps a changed one as an addition, and only for the same value', () => {
    const s = env.stores.branches;
    env.stores.facts.upsert(U, { key: 'city', value: 'Paris' });
    env.stores.facts.upsert(U, { key: 'pet', value: 'cat' });
    for (const n of ['copy', 'edit', 'gone']) s.create(U, n);
    s.set(U, 'edit', 'city', 'Lyon');
    s.unset(U, 'gone', 'city');
    env.stores.facts.delete(U, 'city');
    expect(s.forgetFacts(U, [{ key: 'city', value: 'Paris' }, { key: 'pet', value: 'dog' }])).toBe(3);
    expect(s.all(U).map((b) => [b.name, b.entries.map((e) => `${e.key}:${e.base_value}>${e.value}`)])).toEqual([
      ['copy', ['pet:cat>cat']],
      ['edit', ['city:null>Lyon', 'pet:cat>cat']],
      ['gone', ['pet:cat>cat']],
    ]);
    expect(s.diff(U, 'edit')).toMatchObject({ added: [{ key: 'city', value: 'Lyon' }], conflicts: [] });
  });
});
