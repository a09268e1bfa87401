import fs from 'node:fs';
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, FIXTURES, tempDir } from './helpers.js';
import { mcpClient, spawnHttpBin } from './http-helpers.js';

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
const LATE_THROW = { MEMORY_PLUGINS: path.join(FIXTURES, 'late-throw-plugin'), MEMORY_EXPOSE: 'primitives,latethrow' };

/** The bin over stdio with raw JSON-RPC lines: send, wait for an answer by id, and its exit code. */
function stdioBin(dir: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN], { env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), MCP_MEMORY_DATA_DIR: dir, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  let exitedCode: number | null | undefined;
  void exited.then((c) => (exitedCode = c));
  const answer = (id: number) =>
    new Promise<any>((resolve, reject) => {
      const check = () => {
        const line = stdout.split('\n').find((l) => l.includes(`"id":${id}`));
        if (line) return resolve(JSON.parse(line));
        if (exitedCode !== undefined) return reject(new Error(`exited (${exitedCode}) before answering ${id}; stderr: ${stderr}`));
        setTimeout(check, 20);
      };
      check();
    });
  return { child, exited, answer, stderr: () => stderr, send: (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`) };
}

const call = (id: number, name: string, args: object) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

describe('plugin code that throws outside any call', () => {
  it('stdio: a rejection nobody handles is logged naming the plugin and the server goes on; an uncaught throw is logged, the stop sequence runs, exit 1', async () => {
    const dir = tempDir();
    const bin = stdioBin(dir, LATE_THROW);
    bin.send(INITIALIZE);
    bin.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    bin.send(call(2, 'think', { text: 'The ferry leaves the harbour at nine.', layer: 'user' }));
    expect((await bin.answer(2)).result.isError).toBeFalsy();

    bin.send(call(3, 'latethrow_arm', { kind: 'reject' }));
    await bin.answer(3);
    await new Promise((r) => setTimeout(r, 300));
    expect(bin.stderr()).toMatch(/unhandled rejection from plugin late-throw-plugin: Error: background work failed\n\s+at /);
    bin.send({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: {} });
    expect((await bin.answer(4)).result.tools.length).toBeGreaterThan(0);

    bin.send(call(5, 'latethrow_arm', { kind: 'throw' }));
    await bin.answer(5);
    expect(await bin.exited).toBe(1);
    const stderr = bin.stderr();
    expect(stderr).toMatch(/uncaught exception from plugin late-throw-plugin: LifecycleError: Cannot register tool latethrow_late after ready\n\s+at /);
    expect(stderr).toMatch(/stopping \(uncaught exception\)/);
    // The stop sequence ran: the batched L1 file write was flushed, and the database was closed
    // cleanly (SQLite removes the write-ahead log at the last connection's close).
    expect(fs.readFileSync(path.join(dir, 'l1', 'user', 'default.json'), 'utf8')).toContain('The ferry leaves the harbour at nine.');
    expect(fs.existsSync(path.join(dir, 'memory.db-wal'))).toBe(false);
  });

  it('HTTP: the same, an unhandled rejection logged and served on, an uncaught throw stopping with exit 1', async () => {
    const dir = tempDir();
    const { child, address, stderr } = await spawnHttpBin(dir, [], LATE_THROW);
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const { client } = await mcpClient(address);
    await client.callTool({ name: 'think', arguments: { text: 'The night train stops at every station.', layer: 'user' } });
    await client.callTool({ name: 'latethrow_arm', arguments: { kind: 'reject' } });
    await new Promise((r) => setTimeout(r, 300));
    expect(stderr()).toMatch(/unhandled rejection from plugin late-throw-plugin: Error: background work failed/);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.callTool({ name: 'latethrow_arm', arguments: { kind: 'throw' } });
    expect(await exited).toBe(1);
    expect(stderr()).toMatch(/uncaught exception from plugin late-throw-plugin: LifecycleError: Cannot register tool latethrow_late after ready/);
    expect(stderr()).toMatch(/stopping \(uncaught exception\)/);
    expect(fs.readFileSync(path.join(dir, 'l1', 'user', 'default.json'), 'utf8')).toContain('The night train stops at every station.');
    expect(fs.existsSync(path.join(dir, 'memory.db-wal'))).toBe(false);
  });
});
