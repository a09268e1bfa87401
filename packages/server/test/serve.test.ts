import net from 'node:net';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { silentLogger } from '@memory-service/kernel';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { serveHttp, serveStdio } from '../src/serve.js';
import { createService, type Service } from '../src/service.js';
import { FIXTURES, tempDir } from './helpers.js';

const services: Service[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
});

/** A service composed in code: one fixture plugin, its tier the only one exposed. */
async function composed(): Promise<Service> {
  const service = await createService({
    dataDir: tempDir(),
    plugins: [],
    pluginSpecs: [path.join(FIXTURES, 'echo-plugin')],
    env: { MEMORY_EXPOSE: 'echo' },
    logger: silentLogger(),
  });
  services.push(service);
  return service;
}

/** Lines written to `out`, parsed, as they come. */
function lines(out: PassThrough): { next: () => Promise<any> } {
  const queue: any[] = [];
  const waiting: ((v: any) => void)[] = [];
  let rest = '';
  out.on('data', (chunk: Buffer) => {
    rest += chunk.toString('utf8');
    let nl: number;
    while ((nl = rest.indexOf('\n')) >= 0) {
      const msg = JSON.parse(rest.slice(0, nl));
      rest = rest.slice(nl + 1);
      const w = waiting.shift();
      if (w) w(msg);
      else queue.push(msg);
    }
  });
  return { next: () => (queue.length ? Promise.resolve(queue.shift()) : new Promise((r) => waiting.push(r))) };
}

describe('serveStdio', () => {
  it('answers MCP on the given streams with the service surface, and says when stdin ended', async () => {
    const service = await composed();
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const out = lines(stdout);
    const serving = await serveStdio(service, { stdin, stdout });
    const send = (m: object) => stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    expect((await out.next()).result.serverInfo.name).toBe('memory-service');
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/list' });
    expect((await out.next()).result.tools.map((t: { name: string }) => t.name)).toEqual(['echo_say']);
    send({ id: 3, method: 'tools/call', params: { name: 'echo_say', arguments: { text: 'hi', mood: 'loud' } } });
    expect((await out.next()).result.structuredContent).toEqual({ text: 'HI', mood: 'loud' });
    stdin.end();
    await expect(serving.ended).resolves.toBe('stdin closed');
    await serving.close();
    // The service stays open for its owner to close.
    expect(service.kernel.state).toBe('ready');
  });
});

describe('serveHttp', () => {
  it('listens, answers MCP at /mcp and /health, and stops listening on close', async () => {
    const service = await composed();
    const serving = await serveHttp(service, { port: 0 });
    expect(serving.address).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${serving.address}/health`)).status).toBe(200);
    const client = new Client({ name: 'serve-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${serving.address}/mcp`)));
    const result = await client.callTool({ name: 'echo_say', arguments: { text: 'there' } });
    expect(result.structuredContent).toEqual({ text: 'there', mood: 'calm' });
    await client.close();
    await serving.close();
    await expect(fetch(`${serving.address}/health`)).rejects.toThrow();
    expect(service.kernel.state).toBe('ready');
  });

  it('rejects with the listen error (EADDRINUSE) when the port is taken, and leaves the service open', async () => {
    const service = await composed();
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      await expect(serveHttp(service, { port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
      expect(service.kernel.state).toBe('ready');
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });
});
