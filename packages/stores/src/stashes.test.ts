import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { A, U, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

describe('StashStore', () => {
  it('push moves the pad into a stash, pop moves it back with its dates and order', () => {
    env.stores.scratchpad.write(U, 'a', '1');
    env.clock.advance(1000);
    env.stores.scratchpad.write(U, 'b', '2');
    const before = env.stores.scratchpad.read(U);
    const s = env.stores.stashes.push(U, undefined, 'before refactor');
    expect(s).toMatchObject({ name: 'stash-1', note: 'before refactor', keys: ['a', 'b'] });
    expect(env.stores.scratchpad.count(U)).toBe(0);
    env.clock.advance(1000);
    env.stores.scratchpad.write(U, 'c', '3');
    expect(env.stores.stashes.push(U).name).toBe('stash-2');
    expect(env.stores.stashes.list(U).map((x) => x.name)).toEqual(['stash-2', 'stash-1']);
    const popped = env.stores.stashes.pop(U, 'stash-1');
    expect(popped.pad_count).toBe(2);
    expect(env.stores.scratchpad.read(U)).toEqual(before);
    expect(env.stores.stashes.list(U).map((x) => x.name)).toEqual(['stash-2']);
    // Without a name, pop takes the newest.
    expect(env.stores.stashes.pop(U).keys).toEqual(['c']);
    expect(env.stores.scratchpad.read(U).map((e) => e.key)).toEqual(['a', 'b', 'c']);
  });

  it('refuses an empty push, a duplicate name, a pop over a present key or past the limit, leaving everything as it was', () => {
    expect(() => env.stores.stashes.push(U)).toThrow(expect.objectContaining({ field: 'action' }));
    env.stores.scratchpad.write(U, 'a', '1');
    env.stores.stashes.push(U, 'Work');
    env.stores.scratchpad.write(U, 'b', '2');
    expect(() => env.stores.stashes.push(U, 'work')).toThrow(expect.objectContaining({ field: 'name', type: 'ConflictError' }));
    env.stores.scratchpad.write(U, 'a', 'again');
    expect(() => env.stores.stashes.pop(U, 'work')).toThrow(expect.objectContaining({ field: 'name', type: 'ConflictError' }));
    env.stores.scratchpad.clear(U);
    for (let i = 0; i < 20; i++) env.stores.scratchpad.write(U, `k${i}`, 'x');
    expect(() => env.stores.stashes.pop(U, 'work')).toThrow(expect.objectContaining({ field: 'name', accepted: { max_entries: 20 } }));
    expect(env.stores.scratchpad.count(U)).toBe(20);
    expect(env.stores.stashes.show(U, 'work').entries.map((e) => e.content)).toEqual(['1']);
    env.stores.scratchpad.clear(U, 'k0');
    expect(env.stores.stashes.pop(U, 'work').pad_count).toBe(20);
  });

  it('drops, names the stash when unknown, and keeps scopes apart', () => {
    env.stores.scratchpad.write(U, 'a', '1');
    env.stores.stashes.push(U, 's');
    expect(() => env.stores.stashes.pop(A, 's')).toThrow(expect.objectContaining({ field: 'name' }));
    expect(() => env.stores.stashes.pop(A)).toThrow(expect.objectContaining({ field: 'name' }));
    expect(env.stores.stashes.list(A)).toEqual([]);
    expect(env.stores.stashes.drop(U, 's')).toMatchObject({ name: 's', keys: ['a'] });
    expect(env.stores.stashes.list(U)).toEqual([]);
    expect(env.stores.scratchpad.count(U)).toBe(0);
    expect(() => env.stores.stashes.drop(U, 's')).toThrow(expect.objectContaining({ field: 'name' }));
  });
});

describe('StashStore: export, import and the window purge', () => {
  it('restore adds a stash with its entries in order and dates, refuses past the cap naming the field; deleteSince takes its entries', () => {
    const s = env.stores.stashes;
    env.stores.scratchpad.write(U, 'k', 'v');
    s.push(U, 'old');
    const since = env.clock.now();
    env.clock.advance(1000);
    env.stores.scratchpad.write(U, 'k2', 'v2');
    s.push(U, 'new');
    const entries = [
      { key: 'b', content: '2', created: '2020-01-01T00:00:00.000Z', updated: '2020-01-02T00:00:00.000Z' },
      { key: 'a', content: '1', created: '2020-01-03T00:00:00.000Z', updated: '2020-01-03T00:00:00.000Z' },
    ];
    expect(s.restore(A, { name: 'Set Aside', note: 'n', created: '2020-02-01T00:00:00.000Z', entries })).toBe(true);
    expect(s.all(A)).toEqual([{ name: 'set-aside', note: 'n', created: '2020-02-01T00:00:00.000Z', keys: ['b', 'a'], entries }]);
    expect(s.restore(A, { name: 'set-aside', note: '', created: '', entries: [] })).toBe(false);
    for (let i = 1; i < 20; i++) s.restore(A, { name: `s${i}`, note: '', created: '2020-01-01T00:00:00.000Z', entries });
    expect(() => s.restore(A, { name: 'one-more', note: '', created: '', entries }, 'data.stashes[0].name')).toThrow(expect.objectContaining({ field: 'data.stashes[0].name' }));
    expect(s.deleteSince(U, new Date(since + 1).toISOString())).toBe(1);
    expect(s.all(U).map((x) => x.name)).toEqual(['old']);
    expect(env.db.prepare('SELECT COUNT(*) FROM scratchpad_stash_entries').pluck(true).get()).toBe(1 + 20 * 2);
    expect(s.clear(A)).toBe(20);
  });
});
