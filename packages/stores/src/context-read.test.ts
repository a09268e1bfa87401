import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeEnv, U, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

describe('StoreContext.read', () => {
  it('reads while another connection holds the write lock, in one snapshot: what it commits meanwhile is not seen', () => {
    env.stores.facts.upsert(U, { key: 'city', value: 'Lyon' });
    const other = env.second();
    other.db.pragma('busy_timeout = 50');
    env.db.pragma('busy_timeout = 50');
    other.db.exec('BEGIN IMMEDIATE');
    const seen = env.stores.ctx.read(() => {
      const first = env.stores.facts.count(U);
      other.stores.facts.upsert(U, { key: 'pet', value: 'cat' });
      other.db.exec('COMMIT');
      return [first, env.stores.facts.count(U), env.db.inTransaction];
    });
    expect(seen).toEqual([1, 1, true]);
    expect(env.db.inTransaction).toBe(false);
    expect(env.stores.facts.count(U)).toBe(2);
  });

  it('inside an open transaction runs in it (its writes seen), and a throw leaves no transaction open', () => {
    env.stores.ctx.tx(() => {
      env.stores.facts.upsert(U, { key: 'city', value: 'Lyon' });
      expect(env.stores.ctx.read(() => env.stores.facts.count(U))).toBe(1);
    });
    expect(() => env.stores.ctx.read(() => { throw new Error('boom'); })).toThrow('boom');
    expect(env.db.inTransaction).toBe(false);
  });
});
