import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from '@memory-service/kernel';
import { serveHttp } from '../src/serve.js';
import { createService, type Service } from '../src/service.js';
import { tempDir } from './helpers.js';
import { app, closeServices } from './http-helpers.js';

const services: Service[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
  await closeServices();
});

/** A service of the first-party plugins (the stores register the API keys) whose warnings are kept. */
async function serviceWithWarnings(): Promise<{ service: Service; warnings: string[] }> {
  const warnings: string[] = [];
  const logger: Logger = { info: () => undefined, warn: (m) => warnings.push(m), error: () => undefined };
  const service = await createService({ dataDir: tempDir(), env: {}, logger });
  services.push(service);
  return { service, warnings };
}

/** What the app listening at `address` answers to `request` (raw HTTP), up to the end of its body. */
function rawRequest(address: string, request: string): Promise<string> {
  const url = new URL(address);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => socket.write(request));
    let text = '';
    socket.on('data', (d) => (text += d));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

describe('HTTP Host and Origin checks', () => {
  // Regression guard, fixed: the Host's name was cut at its first ':', "[2001" for an IPv6 Host, so a
  // same-origin request to a server listening on :: was refused; and the port was not compared.
  it('accepts the origin the request was made to, IPv6 included, comparing host and port', async () => {
    const a = await app(false, { host: '::' });
    const status = async (host: string, origin: string) => (await a.inject({ url: '/alive', headers: { host, origin } })).statusCode;
    expect(await status('[2001:db8::1]:45124', 'http://[2001:db8::1]:45124')).toBe(200);
    expect(await status('[2001:DB8:0::1]:45124', 'http://[2001:db8::1]:45124')).toBe(200);
    expect(await status('mem.example:8000', 'http://mem.example:8000')).toBe(200);
    // A port left out is the default port of the Origin's scheme (a TLS proxy in front: https, 443).
    expect(await status('mem.example', 'http://mem.example:80')).toBe(200);
    expect(await status('mem.example', 'https://mem.example')).toBe(200);
    // Another port, or another host, is another origin.
    expect(await status('[2001:db8::1]:45124', 'http://[2001:db8::1]:9999')).toBe(403);
    expect(await status('mem.example:8000', 'http://mem.example:9000')).toBe(403);
    expect(await status('mem.example', 'https://mem.example:8443')).toBe(403);
    expect(await status('mem.example:8000', 'http://evil.example:8000')).toBe(403);
    expect(await status('mem.example@evil.example', 'http://evil.example')).toBe(403);
    // A loopback origin is accepted at any port, as before.
    expect(await status('mem.example:8000', 'http://localhost:5173')).toBe(200);
    const refused = await a.inject({ url: '/alive', headers: { host: 'mem.example:8000', origin: 'http://mem.example:9000' } });
    expect(refused.json().error).toMatchObject({ type: 'ForbiddenError', field: 'origin', message: expect.stringMatching(/^Origin http:\/\/mem\.example:9000 is not allowed/) });
    await a.close();
  });

  it('says the Host header is missing when it is, on a loopback address', async () => {
    const a = await app();
    const address = await a.listen({ host: '127.0.0.1', port: 0 });
    const answer = await rawRequest(address, 'GET /alive HTTP/1.0\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 403/);
    const error = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).error;
    expect(error).toMatchObject({ field: 'host', accepted: ['localhost', '127.0.0.1', '[::1]'] });
    expect(error.message).toMatch(/^The Host header is missing: this server listens on 127\.0\.0\.1 only/);
    expect(error.message).not.toMatch(/undefined/);
    await a.close();
  });
});

describe('HTTP off loopback without an API key', () => {
  it('warns once at start, saying what is exposed and how to add a key', async () => {
    const { service, warnings } = await serviceWithWarnings();
    const open = await serveHttp(service, { host: '0.0.0.0', port: 0 });
    await open.close();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/listens on 0\.0\.0\.0, which is not a loopback address, with no API key: anyone who can reach this port can read and change every user's memory/);
    expect(warnings[0]).toMatch(/memory_api_key tool \(action "create"/);
    expect(warnings[0]).not.toContain('\n');
  });

  it('does not warn on loopback, or once a key exists', async () => {
    const { service, warnings } = await serviceWithWarnings();
    await (await serveHttp(service, { host: '127.0.0.1', port: 0 })).close();
    await service.kernel.callTool('memory_api_key', { action: 'create', name: 'ops' });
    await (await serveHttp(service, { host: '0.0.0.0', port: 0 })).close();
    expect(warnings).toEqual([]);
  });
});
