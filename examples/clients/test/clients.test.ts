import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, parseArgs, serverBin, thinkAndDream } from '../src/think-and-dream.js';

const HERE = fileURLToPath(new URL('..', import.meta.url));
const REPO = path.resolve(HERE, '..', '..');
const SCRIPT = path.join(HERE, 'dist', 'think-and-dream.js');
/** The part of the configs' paths a user replaces with where they cloned the repository. */
const PLACEHOLDER = '/ABSOLUTE/PATH/TO/memory-service';
/** The environment variables the server reads (README). */
const SERVER_ENV = ['MCP_MEMORY_DATA_DIR', 'MEMORY_EXPOSE', 'MEMORY_META', 'MEMORY_PLUGINS', 'MEMORY_LOG_QUIET'];

const cleanup: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

function dataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clients-example-'));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SCRIPT, ...args], { env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The server command on HTTP at a free port; resolves its MCP URL. */
async function httpServer(dir: string): Promise<string> {
  const child = spawn(process.execPath, [serverBin(), '--transport', 'http', '--port', '0'], { env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), MCP_MEMORY_DATA_DIR: dir } });
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
  return `${address}/mcp`;
}

describe('think-and-dream', () => {
  it('reads its command line, and says what is wrong with a bad one', () => {
    expect(parseArgs(['I water the ferns on Sundays.', 'ferns'])).toEqual({ user_id: 'default', layer: 'user', text: 'I water the ferns on Sundays.', query: 'ferns' });
    expect(parseArgs(['--user', 'ana', '--layer', 'agent', '--http', 'http://127.0.0.1:8000/mcp', 't', 'q'])).toMatchObject({ user_id: 'ana', layer: 'agent', http: 'http://127.0.0.1:8000/mcp' });
    expect((parseArgs(['only one']) as Error).message).toBe('expected a text and a query, got 1 argument(s)');
    expect((parseArgs(['--layer', 'team', 't', 'q']) as Error).message).toBe('--layer must be user or agent, got "team"');
    expect((parseArgs(['--http', 'not a url', 't', 'q']) as Error).message).toBe('--http must be a URL, got "not a url"');
    expect((parseArgs(['--user']) as Error).message).toBe('--user needs a value');
    expect((parseArgs(['--verbose', 't', 'q']) as Error).message).toBe('unknown option --verbose');
  });

  it('stores a text and finds it again over stdio, printing where think stored it and what dream found', async () => {
    const out = await run(['--user', 'ana', 'I water the ferns on the balcony every Sunday morning.', 'when do I water the ferns'], { MCP_MEMORY_DATA_DIR: dataDir() });
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^think: stored as \S+ \S+/);
    expect(out.stdout).toContain('every Sunday morning');
  });

  it('does the same over streamable HTTP against a running server, keeping users apart', async () => {
    const url = await httpServer(dataDir());
    const client = await connect(url);
    cleanup.push(() => client.close());
    const mine = await thinkAndDream(client, { http: url, user_id: 'ana', layer: 'user', text: 'My locker code at the pool is 4417.', query: 'pool locker code' });
    expect(mine.dream.summary).toContain('4417');
    const other = await thinkAndDream(client, { http: url, user_id: 'ben', layer: 'user', text: 'Ben likes the sauna.', query: 'pool locker code' });
    expect(other.dream.summary).not.toContain('4417');
  });

  it('exits 2 with its usage on a bad command line', async () => {
    const out = await run(['--layer', 'team', 't', 'q'], {});
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('Usage: think-and-dream');
  });
});

describe('the host configurations', () => {
  const configs = fs.readdirSync(path.join(HERE, 'configs')).filter((f) => f.endsWith('.json'));

  it('are JSON naming one server, memory, with the command and variables the server reads', () => {
    expect(configs.sort()).toEqual(['claude-desktop.json', 'cursor.json', 'http.json', 'vscode.json']);
    for (const file of configs) {
      const json = JSON.parse(fs.readFileSync(path.join(HERE, 'configs', file), 'utf8'));
      const servers = json.mcpServers ?? json.servers;
      expect(Object.keys(servers), file).toEqual(['memory']);
      const entry = servers.memory;
      if (entry.url) {
        expect(new URL(entry.url).pathname, file).toBe('/mcp');
        continue;
      }
      expect(entry.command, file).toBe('node');
      expect(entry.args[0].startsWith(`${PLACEHOLDER}/`), file).toBe(true);
      expect(fs.existsSync(path.join(REPO, entry.args[0].slice(PLACEHOLDER.length))), file).toBe(true);
      for (const key of Object.keys(entry.env ?? {})) expect(SERVER_ENV, `${file}: ${key}`).toContain(key);
    }
  });

  it('start a server an MCP client can use, once the paths are filled in', async () => {
    const json = JSON.parse(fs.readFileSync(path.join(HERE, 'configs', 'claude-desktop.json'), 'utf8'));
    const entry = json.mcpServers.memory;
    const dir = dataDir();
    const transport = new StdioClientTransport({
      command: entry.command === 'node' ? process.execPath : entry.command,
      args: entry.args.map((a: string) => a.replace(PLACEHOLDER, REPO)),
      env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), ...entry.env, MCP_MEMORY_DATA_DIR: dir },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'config-test', version: '1.0.0' });
    await client.connect(transport);
    cleanup.push(() => client.close());
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['think', 'dream', 'forget', 'wake_up']));
  });
});
