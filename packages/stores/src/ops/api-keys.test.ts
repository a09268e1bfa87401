import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeEnv, type Env } from '../test-helpers.js';
import { API_KEY_NAME_MAX, API_KEY_TOUCH_MS } from './api-keys.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

describe('ApiKeyStore', () => {
  it('create answers the key once and stores only a salted hash; verify accepts it and stamps last_used', () => {
    const keys = env.stores.apiKeys;
    expect(keys.any()).toBe(false);
    const made = keys.create('  ci runner ');
    expect(made).toMatchObject({ id: 'key_1', name: 'ci runner', created: new Date(env.clock.t).toISOString(), last_used: null, revoked: null });
    expect(made.key).toMatch(/^msk_1_[A-Za-z0-9_-]{43}$/);
    const row = env.db.prepare('SELECT * FROM api_keys').get() as Record<string, string>;
    expect(JSON.stringify(row)).not.toContain(made.key.slice(6));
    expect(row.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(keys.list()).toEqual([{ id: 'key_1', name: 'ci runner', created: made.created, last_used: null, revoked: null }]);
    expect(JSON.stringify(keys.list())).not.toContain(made.key);
    expect(keys.any()).toBe(true);

    env.clock.advance(5000);
    expect(keys.verify(made.key)).toBe('ok');
    expect(keys.list()[0]!.last_used).toBe(new Date(env.clock.t).toISOString());
    // Stamped at most once per API_KEY_TOUCH_MS.
    const first = keys.list()[0]!.last_used;
    env.clock.advance(API_KEY_TOUCH_MS - 1);
    keys.verify(made.key);
    expect(keys.list()[0]!.last_used).toBe(first);
    env.clock.advance(1);
    keys.verify(made.key);
    expect(keys.list()[0]!.last_used).toBe(new Date(env.clock.t).toISOString());
  });

  it('verify tells unknown (malformed, wrong secret, no such id) from revoked', () => {
    const keys = env.stores.apiKeys;
    const a = keys.create('a');
    const b = keys.create('b');
    expect(keys.verify('')).toBe('unknown');
    expect(keys.verify('Bearer x')).toBe('unknown');
    expect(keys.verify(a.key.replace(/.$/, a.key.endsWith('A') ? 'B' : 'A'))).toBe('unknown');
    expect(keys.verify(a.key.replace('msk_1_', 'msk_9_'))).toBe('unknown');
    // The secret of one key under the id of another is no key.
    expect(keys.verify(`msk_2_${a.key.slice(6)}`)).toBe('unknown');
    expect(keys.revoke('key_1')).toMatchObject({ id: 'key_1', already_revoked: false, revoked: new Date(env.clock.t).toISOString() });
    expect(keys.verify(a.key)).toBe('revoked');
    expect(keys.verify(b.key)).toBe('ok');
    expect(keys.revoke(' key_1 ')).toMatchObject({ already_revoked: true });
    keys.revoke('key_2');
    // Authentication stays on once a key was created, even with every key revoked.
    expect(keys.any()).toBe(true);
  });

  it('refuses a bad name or key id naming the field', () => {
    const keys = env.stores.apiKeys;
    for (const bad of ['', '   ', 'x'.repeat(API_KEY_NAME_MAX + 1), 'a\nb', 7]) expect(() => keys.create(bad)).toThrow(expect.objectContaining({ field: 'name' }));
    expect(() => keys.revoke('abc')).toThrow(expect.objectContaining({ field: 'key_id', accepted: 'key_<number>' }));
    expect(() => keys.revoke('key_44')).toThrow(expect.objectContaining({ field: 'key_id', type: 'NotFoundError' }));
    expect(keys.list()).toEqual([]);
  });
});
