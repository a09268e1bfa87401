import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { A, U, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

describe('ScratchpadStore', () => {
  it('upserts by key', () => {
    env.stores.scratchpad.write(U, 'plan', 'v1');
    env.clock.advance(1000);
    const e = env.stores.scratchpad.write(U, 'plan', 'v2');
    expect(e.content).toBe('v2');
    expect(e.evicted).toBeNull();
    expect(env.stores.scratchpad.read(U)).toHaveLength(1);
    expect(env.stores.scratchpad.get(U, 'plan')?.updated).not.toBe(env.stores.scratchpad.get(U, 'plan')?.created);
  });

  it('evicts the oldest entry when a new key is written at 20 entries', () => {
    for (let i = 0; i < 20; i++) env.stores.scratchpad.write(U, `k${i}`, `c${i}`);
    expect(env.stores.scratchpad.count(U)).toBe(20);
    env.stores.scratchpad.write(U, 'k0', 'refreshed');
    expect(env.stores.scratchpad.count(U)).toBe(20);
    const e = env.stores.scratchpad.write(U, 'new', 'x');
    expect(e.evicted).toBe('k1');
    const keys = env.stores.scratchpad.read(U).map((x) => x.key);
    expect(keys).toHaveLength(20);
    expect(keys).not.toContain('k1');
    expect(keys).toContain('k0');
    expect(keys[keys.length - 1]).toBe('new');
  });

  it('isolates scopes, clears and takes', () => {
    env.stores.scratchpad.write(U, 'a', '1');
    env.stores.scratchpad.write(U, 'b', '2');
    env.stores.scratchpad.write(A, 'a', 'agent');
    expect(env.stores.scratchpad.take(U, 'a')?.content).toBe('1');
    expect(env.stores.scratchpad.take(U, 'a')).toBeNull();
    expect(env.stores.scratchpad.get(A, 'a')?.content).toBe('agent');
    expect(env.stores.scratchpad.clear(U)).toBe(1);
    expect(env.stores.scratchpad.read(U)).toEqual([]);
    expect(env.stores.scratchpad.clear(A, 'a')).toBe(1);
  });
});
