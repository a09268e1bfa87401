import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { PassThrough } from 'node:stream';
import { silentLogger, type Logger, type Surface } from '@memory-service/kernel';
import { createService, type Service } from '../src/service.js';
import { openStdioSession, type StdioSession } from '../src/stdio-session.js';

export const BIN = fileURLToPath(new URL('../bin/memory-service.js', import.meta.url));
export const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'ms-server-test-'));
}

/**
 * A service of every first-party plugin on a fresh temp data dir, in process, to look at its
 * registered tools: `start` makes one, `close` (for afterEach) stops it and removes the dir.
 */
export function firstPartyService(): { start(): Promise<Service>; close(): Promise<void> } {
  let service: Service | undefined;
  let dir: string | undefined;
  return {
    async start() {
      dir = tempDir();
      service = await createService({ dataDir: dir, env: {}, logger: silentLogger() });
      return service;
    },
    async close() {
      await service?.close();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
      service = undefined;
      dir = undefined;
    },
  };
}

/** Spawn the real bin over stdio with the SDK's client, as an MCP host would. */
export async function stdioClient(env: Record<string, string>): Promise<{ client: Client; stderr: () => string; close: () => Promise<void> }> {
  let err = '';
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), ...env },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d) => (err += d.toString()));
  const client = new Client({ name: 'server-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => err, close: () => client.close() };
}

/** Run the bin to its exit and collect its output (for start-up failures). */
export function runBin(
  args: string[],
  env: Record<string, string>,
  input = '',
  as: { uid?: number; gid?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), ...env }, ...as });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** A stdio session's input: initialize, tools/list, then `calls` thinks, each followed by a dream that should find it; `lastId` is the last dream's. */
export function thinkDreamSession(calls: number): { input: string; lastId: number } {
  const msgs: unknown[] = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'runtimes', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
  ];
  let id = 2;
  for (let i = 0; i < calls; i++) {
    msgs.push({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'think', arguments: { text: `Dana tuned violin number ${i} in Lima`, layer: 'user' } } });
    msgs.push({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'dream', arguments: { query: `violin ${i}`, layer: 'user', limit: 3 } } });
  }
  return { input: msgs.map((m) => `${JSON.stringify(m)}\n`).join(''), lastId: id };
}

/**
 * A stdio session over `surface` on a pipe pair, kept in `sessions` (for the test file's afterEach
 * to close): send raw lines on `toServer`, read the answers, or `ask` one request and get its answer
 * (an error after a second without one).
 */
export async function pipeSession(surface: Surface, logger: Logger | undefined, sessions: StdioSession[]) {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const session = await openStdioSession(surface, logger, { stdin: toServer, stdout: toClient });
  sessions.push(session);
  let wire = '';
  toClient.on('data', (d) => (wire += String(d)));
  const answers = () => wire.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>);
  const ask = async (message: Record<string, unknown>) => {
    toServer.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    for (let i = 0; i < 200; i++) {
      const found = answers().find((a) => a.id === message.id);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`no answer to ${JSON.stringify(message)}`);
  };
  return { session, toServer, toClient, answers, ask };
}
