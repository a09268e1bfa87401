import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '@memory-service/kernel';
import { buildHttpApp } from '../src/http.js';
import { createService, type Service } from '../src/service.js';
import { tempDir } from './helpers.js';

const services: Service[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
});

/** The app over the first-party plugin set (the stores register the API keys), the operator tools exposed. */
async function app(dashboard = true) {
  const service = await createService({ dataDir: tempDir(), env: { MEMORY_EXPOSE: 'operator' }, logger: silentLogger() });
  services.push(service);
  return { service, app: await buildHttpApp(service, { host: '127.0.0.1', port: 0, dashboard }) };
}

const createKey = async (service: Service, name: string): Promise<{ id: string; key: string }> =>
  ((await service.kernel.callTool('memory_api_key', { action: 'create', name })) as any).created;

const HOOK = { method: 'POST' as const, url: '/api/hooks/memory_pressure', payload: {} };
const MCP_INIT = {
  method: 'POST' as const,
  url: '/mcp',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  payload: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
};

describe('HTTP API keys', () => {
  it('with no key created, requests need no Authorization', async () => {
    const { app: a } = await app();
    expect((await a.inject(HOOK)).statusCode).toBe(200);
    expect((await a.inject({ url: '/ready' })).statusCode).toBe(200);
    await a.close();
  });

  it('once a key exists: /health and /alive stay open, others are 401 without a key, 403 with a wrong one, 200 with it', async () => {
    const { service, app: a } = await app();
    const { key } = await createKey(service, 'ops');
    expect((await a.inject({ url: '/health' })).statusCode).toBe(200);
    expect((await a.inject({ url: '/alive' })).statusCode).toBe(200);

    const none = await a.inject(HOOK);
    expect(none.statusCode).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer');
    expect(none.json().error).toMatchObject({ type: 'AuthenticationError', field: 'authorization', accepted: 'Bearer <API_KEY>' });
    expect((await a.inject({ ...HOOK, headers: { authorization: `Basic ${key}` } })).statusCode).toBe(401);
    expect((await a.inject({ url: '/ready' })).statusCode).toBe(401);
    expect((await a.inject({ url: '/api/tools' })).statusCode).toBe(401);
    expect((await a.inject({ url: '/nowhere' })).statusCode).toBe(401);

    const wrong = await a.inject({ ...HOOK, headers: { authorization: 'Bearer <API_KEY>' } });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().error).toMatchObject({ type: 'ForbiddenError', message: 'Unknown API key' });
    const forged = key.slice(0, -4) + (key.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect((await a.inject({ ...HOOK, headers: { authorization: `Bearer ${forged}` } })).statusCode).toBe(403);

    const ok = await a.inject({ ...HOOK, headers: { authorization: `Bearer ${key}` } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ event: 'memory_pressure' });
    expect((await a.inject({ url: '/ready', headers: { authorization: `bearer ${key}` } })).statusCode).toBe(200);
    // The MCP endpoint too, answered in JSON-RPC's shape.
    const mcp = await a.inject(MCP_INIT);
    expect(mcp.statusCode).toBe(401);
    expect(mcp.json()).toMatchObject({ jsonrpc: '2.0', error: { message: expect.stringContaining('API key') } });
    expect((await a.inject({ ...MCP_INIT, headers: { ...MCP_INIT.headers, authorization: `Bearer ${key}` } })).statusCode).toBe(200);
    // The dashboard's tool route reaches every tool: it needs the key as well.
    const tools = await a.inject({ method: 'POST', url: '/api/tools/memory_api_key', payload: { action: 'list' }, headers: { authorization: `Bearer ${key}` } });
    expect(tools.statusCode).toBe(200);
    expect(JSON.stringify(tools.json())).not.toContain(key);
    await a.close();
  });

  it('a revoked key is a 403, another active key still works, and with every key revoked the server stays closed', async () => {
    const { service, app: a } = await app();
    const one = await createKey(service, 'one');
    const two = await createKey(service, 'two');
    await service.kernel.callTool('memory_api_key', { action: 'revoke', key_id: one.id });
    const revoked = await a.inject({ ...HOOK, headers: { authorization: `Bearer ${one.key}` } });
    expect(revoked.statusCode).toBe(403);
    expect(revoked.json().error.message).toBe('This API key was revoked');
    expect((await a.inject({ ...HOOK, headers: { authorization: `Bearer ${two.key}` } })).statusCode).toBe(200);
    await service.kernel.callTool('memory_api_key', { action: 'revoke', key_id: two.id });
    expect((await a.inject(HOOK)).statusCode).toBe(401);
    expect((await a.inject({ ...HOOK, headers: { authorization: `Bearer ${two.key}` } })).statusCode).toBe(403);
    await a.close();
  });

  it('a key used over HTTP has its last_used stamped', async () => {
    const { service, app: a } = await app();
    const { key } = await createKey(service, 'ops');
    await a.inject({ url: '/ready', headers: { authorization: `Bearer ${key}` } });
    const list = (await service.kernel.callTool('memory_api_key', { action: 'list' })) as any;
    expect(list.keys[0].last_used).toEqual(expect.any(String));
    await a.close();
  });
});
