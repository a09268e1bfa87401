import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, start, storesOf, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

describe('memory_api_key', () => {
  it('create answers the key once, list shows ids and names but never a secret, revoke stops it', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    expect(await s.call('memory_api_key', { action: 'list' })).toEqual({ action: 'list', keys: [] });
    const made = await s.call('memory_api_key', { action: 'create', name: 'dashboard' });
    expect(made.created).toMatchObject({ id: 'key_1', name: 'dashboard', last_used: null, revoked: null });
    const key: string = made.created.key;
    expect(key).toMatch(/^msk_1_/);
    const listed = await s.call('memory_api_key', { action: 'list' });
    expect(listed.keys).toEqual([{ id: 'key_1', name: 'dashboard', created: made.created.created, last_used: null, revoked: null }]);
    expect(JSON.stringify(listed)).not.toContain(key.slice(6));
    expect(storesOf(s).apiKeys.verify(key)).toBe('ok');
    const revoked = await s.call('memory_api_key', { action: 'revoke', key_id: 'key_1' });
    expect(revoked.revoked).toMatchObject({ id: 'key_1', already_revoked: false, revoked: expect.any(String) });
    expect(storesOf(s).apiKeys.verify(key)).toBe('revoked');
    expect((await s.call('memory_api_key', { action: 'revoke', key_id: 'key_1' })).revoked.already_revoked).toBe(true);
    expect((await s.call('memory_api_key', { action: 'list' })).keys[0].revoked).toBe(revoked.revoked.revoked);
  });

  it('names the field at fault: a missing or bad name, a missing, malformed or unknown key_id, an unknown action', async () => {
    s = await start();
    expect((await toolError(s.call('memory_api_key', { action: 'create' }))).field).toBe('name');
    expect((await toolError(s.call('memory_api_key', { action: 'create', name: '  ' }))).field).toBe('name');
    expect((await toolError(s.call('memory_api_key', { action: 'create', name: 'x'.repeat(101) }))).field).toBe('name');
    expect((await toolError(s.call('memory_api_key', { action: 'revoke' }))).field).toBe('key_id');
    expect((await toolError(s.call('memory_api_key', { action: 'revoke', key_id: 'dashboard' }))).field).toBe('key_id');
    expect(await toolError(s.call('memory_api_key', { action: 'revoke', key_id: 'key_9' }))).toMatchObject({ field: 'key_id', type: 'NotFoundError' });
    expect((await toolError(s.call('memory_api_key', { action: 'rotate' }))).field).toBe('action');
    expect((await toolError(s.call('memory_api_key', { action: 'list', layer: 'team' }))).field).toBe('layer');
    expect((await s.call('memory_api_key', { action: 'list' })).keys).toEqual([]);
  });

  it('keys are service-wide: a key made with one layer and user_id is listed under any other', async () => {
    s = await start();
    await s.call('memory_api_key', { action: 'create', name: 'ci', layer: 'agent', user_id: 'robot' });
    expect((await s.call('memory_api_key', { action: 'list', user_id: 'bob' })).keys.map((k: any) => k.name)).toEqual(['ci']);
  });
});
