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
