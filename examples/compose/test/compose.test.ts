import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { composeService } from '../src/service.js';

const SERVER = fileURLToPath(new URL('../dist/server.js', import.meta.url));
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

function dataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compose-example-'));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const baseEnv = () => ({ PATH: process.env.PATH ?? '', HOME: os.tmpdir() });

describe('the composed server', () => {
  it('builds a service with exactly its plugin set, its settings and its default exposure', async () => {
    const service = await composeService({ dataDir: dataDir(), env: {} });
    cleanup.push(() => service.close());
    expect(service.kernel.pluginNames).toEqual(['@memory-service/plugin-primitives', '@memory-service/example-custom-plugin']);
    expect(service.kernel.config.integer('retrieval.default_limit', 10, 1, 200)).toBe(5);
    const names = service.surface.tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['think', 'dream', 'wake_up', 'bookmark_add', 'bookmark_search']));
  });

  it('MEMORY_EXPOSE still chooses the tiers (the primitives are always exposed)', async () => {
    const service = await composeService({ dataDir: dataDir(), env: { MEMORY_EXPOSE: 'primitives' } });
    cleanup.push(() => service.close());
    const names = service.surface.tools.map((t) => t.name);
    expect(names).toContain('think');
    expect(names.filter((n) => n.startsWith('bookmark_'))).toEqual([]);
  });

  it('answers an MCP client on stdio: think and dream, a bookmark, and the plugin in session_started', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [SERVER], env: { ...baseEnv(), MCP_MEMORY_DATA_DIR: dataDir() }, stderr: 'pipe' });
    const client = new Client({ name: 'compose-test', version: '1.0.0' });
    await client.connect(transport);
    cleanup.push(() => client.close());
    await client.callTool({ name: 'think', arguments: { text: 'Dana keeps her climbing gear in the blue locker at the gym.' } });
    const dream = await client.callTool({ name: 'dream', arguments: { query: 'where is the climbing gear' } });
    expect((dream.structuredContent as { summary: string }).summary).toContain('blue locker');
    await client.callTool({ name: 'bookmark_add', arguments: { url: 'https://example.org/belay', title: 'Belay basics' } });
    const hook = await client.callTool({ name: 'memory_hook', arguments: { event: 'session_started', payload: {} } });
    expect(JSON.stringify(hook.structuredContent)).toContain('Belay basics');
  });

  it('answers on streamable HTTP with --http 0, printing the address it listens on', async () => {
    const child = spawn(process.execPath, [SERVER, '--http', '0'], { env: { ...baseEnv(), MCP_MEMORY_DATA_DIR: dataDir() } });
    cleanup.push(() => new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', () => resolve()), child.kill('SIGTERM')))));
    const address = await new Promise<string>((resolve, reject) => {
      let err = '';
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        const m = /listening on (http:\/\/\S+)/.exec(err);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
    });
    const client = new Client({ name: 'compose-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${address}/mcp`)));
    const listed = await client.listTools();
    expect(listed.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['think', 'bookmark_add']));
    await client.close();
  });

  it('refuses an argument it does not know, with its usage and exit 2', async () => {
    const child = spawn(process.execPath, [SERVER, '--port', '1'], { env: baseEnv() });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).toBe(2);
    expect(err).toContain('unknown argument --port');
    expect(err).toContain('Usage: memory-service-compose');
  });
});
