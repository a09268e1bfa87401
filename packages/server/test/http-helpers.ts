/** What the HTTP tests share: the app over a fixture plugin, MCP clients of it, and reading its answers. */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { silentLogger } from '@memory-service/kernel';
import { buildHttpApp, type HttpOptions } from '../src/http.js';
import { createService, type Service } from '../src/service.js';
import { BIN, FIXTURES, tempDir } from './helpers.js';

const services: Service[] = [];

/** Close the services the apps of a test were built over (for afterEach). */
export async function closeServices(): Promise<void> {
  await Promise.all(services.splice(0).map((s) => s.close()));
}

/** The app over a service with one fixture plugin (echo or wait), its tier the only one exposed. */
export async function appWith(fixture: 'echo' | 'wait', dashboard = false, extra: Partial<HttpOptions> = {}) {
  const service = await createService({
    dataDir: tempDir(),
    plugins: [],
    pluginSpecs: [path.join(FIXTURES, `${fixture}-plugin`)],
    env: { MEMORY_EXPOSE: fixture },
    logger: silentLogger(),
  });
  services.push(service);
  return buildHttpApp(service, { host: '127.0.0.1', port: 0, dashboard, ...extra });
}

export const app = (dashboard = false, extra: Partial<HttpOptions> = {}) => appWith('echo', dashboard, extra);

/** An SDK client connected over streamable HTTP to the app listening at `address`. */
export async function mcpClient(address: string) {
  const client = new Client({ name: 'http-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${address}/mcp`));
  await client.connect(transport);
  return { client, transport };
}

export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** An initialize request's body. */
export const INITIALIZE = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'http-test', version: '1.0.0' } } };

/** Open an MCP session with plain requests at `address`; answers a poster of JSON-RPC bodies in it. */
export async function rawSession(address: string) {
  const session = await rawSessionHeaders(address);
  return (body: unknown) => fetch(`${address}/mcp`, { method: 'POST', headers: session, body: JSON.stringify(body) });
}

/** Open an MCP session with plain requests at `address`; answers the headers of a request in it. */
export async function rawSessionHeaders(address: string): Promise<Record<string, string>> {
  const init = await fetch(`${address}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify(INITIALIZE) });
  const headers = { ...MCP_HEADERS, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' };
  await init.text();
  await (await fetch(`${address}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
  return headers;
}

/** The memory-service bin over HTTP on a free port with the data dir `dir` (and extra `env`), once it says where it listens. */
export async function spawnHttpBin(dir: string, args: string[] = [], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, '--transport', 'http', '--port', '0', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), MCP_MEMORY_DATA_DIR: dir, ...env },
  });
  let stderr = '';
  const address = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /listening on (\S+)/.exec(stderr);
      if (m) resolve(m[1]!);
    });
    child.on('exit', () => reject(new Error(stderr)));
  });
  return { child, address, stderr: () => stderr };
}

/** A response's JSON body, untyped as messagesOf's messages are: the test asserts what it holds. */
export const bodyOf = async (res: Response): Promise<any> => res.json();

/** The JSON-RPC messages of an answer, sent as JSON or as an event stream. */
export function messagesOf(text: string): any[] {
  if (text.startsWith('{') || text.startsWith('[')) return [JSON.parse(text)].flat();
  return text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)));
}
