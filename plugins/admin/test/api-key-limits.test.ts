import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY_ID_MAX, API_KEY_NAME_MAX } from '@memory-service/stores';
import { start, storesOf, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

describe('memory_api_key published bounds', () => {
  it('name and key_id state the limits the store enforces, and a call over one is refused naming it', async () => {
    s = await start();
    const { tools } = await s.client.listTools();
    const p = tools.find((t) => t.name === 'memory_api_key')!.inputSchema.properties as Record<string, any>;
    expect(p.name.maxLength).toBe(API_KEY_NAME_MAX);
    expect(p.key_id.maxLength).toBe(API_KEY_ID_MAX);
    expect(await toolError(s.call('memory_api_key', { action: 'create', name: 'a'.repeat(API_KEY_NAME_MAX + 1) }))).toMatchObject({ field: 'name', accepted: { max: API_KEY_NAME_MAX } });
    expect(await toolError(s.call('memory_api_key', { action: 'revoke', key_id: `key_${'1'.repeat(API_KEY_ID_MAX)}` }))).toMatchObject({ field: 'key_id', accepted: { max: API_KEY_ID_MAX } });
    expect(storesOf(s).apiKeys.list()).toEqual([]);
    expect((await s.call('memory_api_key', { action: 'create', name: 'a'.repeat(API_KEY_NAME_MAX) })).created.name).toHaveLength(API_KEY_NAME_MAX);
  });
});
