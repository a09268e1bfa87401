import fs from 'node:fs';
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, FIXTURES, runBin, stdioClient, tempDir } from './helpers.js';

const open: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

describe('memory-service over stdio (real bin, SDK client)', () => {
  it('loads a third-party plugin from MEMORY_PLUGINS and exposes its tier', async () => {
    const c = await stdioClient({
      MCP_MEMORY_DATA_DIR: tempDir(),
      MEMORY_PLUGINS: path.join(FIXTURES, 'echo-plugin'),
      MEMORY_EXPOSE: 'primitives,echo,bogus',
    });
    open.push(c);
    const names = (await c.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('echo_say');
    const res: any = await c.client.callTool({ name: 'echo_say', arguments: { text: 'hi', mood: 'loud' } });
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent).toEqual({ text: 'HI', mood: 'loud' });
    expect(JSON.parse(res.content[0].text)).toEqual(res.structuredContent);
    expect(c.stderr()).toMatch(/ignoring unknown token bogus/);
  });

  it('hides a plugin tier that MEMORY_EXPOSE does not name', async () => {
    const c = await stdioClient({ MCP_MEMORY_DATA_DIR: tempDir(), MEMORY_PLUGINS: path.join(FIXTURES, 'echo-plugin') });
    open.push(c);
    const names = (await c.client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('echo_say');
  });

  it('answers bad input with a tool error naming the field, and keeps answering', async () => {
    const c = await stdioClient({ MCP_MEMORY_DATA_DIR: tempDir(), MEMORY_PLUGINS: path.join(FIXTURES, 'echo-plugin'), MEMORY_EXPOSE: 'echo' });
    open.push(c);
    const bad: any = await c.client.callTool({ name: 'echo_say', arguments: { text: 'x', mood: 'angry' } });
    expect(bad.isError).toBe(true);
    const err = JSON.parse(bad.content[0].text).error;
    expect(err).toMatchObject({ type: 'ValidationError', field: 'mood', accepted: ['calm', 'loud'] });
    const missing: any = await c.client.callTool({ name: 'echo_say', arguments: {} });
    expect(JSON.parse(missing.content[0].text).error.field).toBe('text');
    const unknown: any = await c.client.callTool({ name: 'nope', arguments: {} });
    expect(JSON.parse(unknown.content[0].text).error.code).toBe('KERNEL_ERR_TOOL_UNKNOWN');
    const ok: any = await c.client.callTool({ name: 'echo_say', arguments: { text: 'still here' } });
    expect(ok.structuredContent.text).toBe('still here');
  });

  it('answers think then dream with structuredContent equal to the JSON text content', async () => {
    const c = await stdioClient({ MCP_MEMORY_DATA_DIR: tempDir() });
    open.push(c);
    const thought: any = await c.client.callTool({
      name: 'think',
      arguments: { text: 'Ana prefers her coffee black, café style, at the park kiosk — every morning ☕.', layer: 'user' },
    });
    expect(thought.isError).toBeFalsy();
    expect(thought.structuredContent).toEqual(JSON.parse(thought.content[0].text));
    const found: any = await c.client.callTool({ name: 'dream', arguments: { query: 'coffee park', limit: 10, layer: 'user' } });
    expect(found.isError).toBeFalsy();
    expect(found.structuredContent).toEqual(JSON.parse(found.content[0].text));
    expect(found.structuredContent.result_count).toBeGreaterThan(0);
    expect(found.content[0].text).toContain('café');
  });

  it('answers a line that is not JSON-RPC with a JSON-RPC error, and answers the next one', async () => {
    const child = spawn(process.execPath, [BIN], { env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), MCP_MEMORY_DATA_DIR: tempDir() } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const answered = new Promise<void>((resolve) => child.stdout.on('data', () => out.includes('"id":2') && resolve()));
    child.stdin.write('this is not json\n{"jsonrpc":"1.0","id":1,"method":"ping"}\n');
    child.stdin.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\r\n');
    await answered;
    child.stdin.end();
    const code = await new Promise((resolve) => child.on('close', resolve));
    const lines = out.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.id, l.error?.code ?? null])).toEqual([
      [null, -32700],
      [1, -32600],
      [2, null],
    ]);
    expect(lines[2]).toEqual({ result: {}, jsonrpc: '2.0', id: 2 });
    expect(code).toBe(0);
  });

  it('answers a request line over 10 MiB with an error carrying its id, and goes on serving', async () => {
    const child = spawn(process.execPath, [BIN], { env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), MCP_MEMORY_DATA_DIR: tempDir() } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const answered = new Promise<void>((resolve) => child.stdout.on('data', () => out.includes('"id":9') && resolve()));
    // As the SDK client writes a request: the id last, after the (here oversized) params.
    const text = 'x'.repeat(11 * 1024 * 1024);
    child.stdin.write(`{"method":"tools/call","params":{"name":"think","arguments":{"text":"${text}"}},"jsonrpc":"2.0","id":8}\n`);
    child.stdin.write('{"jsonrpc":"2.0","id":9,"method":"ping"}\n');
    await answered;
    child.stdin.end();
    const code = await new Promise((resolve) => child.on('close', resolve));
    const lines = out.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toEqual([
      { jsonrpc: '2.0', id: 8, error: { code: -32600, message: 'Message too large: a line over 10485760 bytes was skipped' } },
      { result: {}, jsonrpc: '2.0', id: 9 },
    ]);
    expect(code).toBe(0);
  });

  it('a plugin whose kernel range does not match stops the start with an error naming it', async () => {
    const res = await runBin([], { MCP_MEMORY_DATA_DIR: tempDir(), MEMORY_PLUGINS: path.join(FIXTURES, 'old-plugin') });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/old-plugin/);
    expect(res.stderr).toMatch(/requires kernel \^0\.1\.0/);
    expect(res.stdout).toBe('');
  });

  it('a plugin that fails in setup stops the start with an error naming it', async () => {
    const res = await runBin([], { MCP_MEMORY_DATA_DIR: tempDir(), MEMORY_PLUGINS: path.join(FIXTURES, 'broken-plugin') });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/broken-plugin failed in setup: cannot open its resources/);
  });

  it.runIf(fs.existsSync('/proc/self'))('a data dir that cannot be made (under /proc) stops the start with the error, exit 1, instead of spinning', async () => {
    const res = await runBin([], { MCP_MEMORY_DATA_DIR: '/proc/memory-service-nope/data' });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/cannot start: .*ENOENT.*\/proc\/memory-service-nope/);
    expect(res.stdout).toBe('');
  });

  it('a plugin that cannot be found stops the start with an error naming it', async () => {
    const res = await runBin([], { MCP_MEMORY_DATA_DIR: tempDir(), MEMORY_PLUGINS: '@nobody/not-a-plugin' });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/@nobody\/not-a-plugin could not be loaded/);
  });

  it('rejects bad command-line options with usage on stderr', async () => {
    const res = await runBin(['--transport', 'carrier-pigeon'], { MCP_MEMORY_DATA_DIR: tempDir() });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/--transport must be stdio or http/);
    expect(res.stdout).toBe('');
  });

  it('rejects an unknown MEMORY_V8_TIERING, naming the variable and the values it takes', async () => {
    const res = await runBin([], { MCP_MEMORY_DATA_DIR: tempDir(), MEMORY_V8_TIERING: 'turbo' });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/MEMORY_V8_TIERING must be eager or default, got "turbo"/);
    expect(res.stdout).toBe('');
  });

  it('stops in order when the client stops reading stdout (EPIPE): no crash, and what it wrote is kept', async () => {
    const dir = tempDir();
    const child = spawn(process.execPath, [BIN], { env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), MCP_MEMORY_DATA_DIR: dir } });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
    // Read until the think's answer arrives, so the thought is stored before the client goes away.
    const answered = new Promise<void>((resolve) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('"id":2')) resolve();
      });
    });
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'think', arguments: { text: 'The lighthouse keeper feeds the gulls at dawn.', layer: 'user' } } });
    await answered;
    // The client stops reading; the server's next answer meets a closed pipe.
    child.stdout.destroy();
    send({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} });
    expect(await exited).toBe(0);
    expect(stderr).toMatch(/stopping \(stdio closed\)/);
    expect(stderr).not.toMatch(/Unhandled 'error' event|EPIPE/);

    const again = await stdioClient({ MCP_MEMORY_DATA_DIR: dir });
    open.push(again);
    const res: any = await again.client.callTool({ name: 'dream', arguments: { query: 'lighthouse keeper gulls', layer: 'user' } });
    expect(res.structuredContent.summary).toContain('The lighthouse keeper feeds the gulls at dawn.');
  });

  /** Start the bin with stderr closed, then check it answers a think and a tools/list and exits 0 when stdin ends. */
  async function servesWithStderrClosed(): Promise<void> {
    const child = spawn(process.execPath, [BIN], { env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), MCP_MEMORY_DATA_DIR: tempDir() } });
    child.stderr.destroy();
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'think', arguments: { text: 'Logs may go nowhere.', layer: 'user' } } });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} });
    // The start-up log line alone used to kill the server (EPIPE on stderr), so id 3 never came.
    await new Promise<void>((resolve, reject) => {
      const check = () => (out.includes('"id":3') ? resolve() : setTimeout(check, 20));
      check();
      exited.then((code) => reject(new Error(`server exited (${code}) before answering; stdout: ${out}`)));
    });
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(out).toContain('"id":2');
  }

  it('keeps serving when the host closes stderr: only log lines are lost', async () => {
    await servesWithStderrClosed();
  });

  it('keeps serving with stderr closed when the launcher logs before the server starts (an image older than the packages)', async () => {
    // A file the server image was built from, changed since: the launcher says so on stderr and
    // starts from the modules. That line came before the server's own stderr guard.
    const serverRoot = path.join(path.dirname(BIN), '..');
    const manifest = JSON.parse(fs.readFileSync(path.join(serverRoot, '..', 'image', 'dist', 'image.json'), 'utf8')) as {
      inputs: { pkg: string; file: string }[];
    };
    const input = manifest.inputs.find((i) => i.pkg === '@memory-service/server');
    expect(input, 'the image holds a file of the server package').toBeDefined();
    const built = path.join(serverRoot, input!.file);
    const before = fs.readFileSync(built);
    fs.appendFileSync(built, '\n// changed after the image was built\n');
    try {
      await servesWithStderrClosed();
    } finally {
      fs.writeFileSync(built, before);
    }
  });

  it('exits when stdin closes, printing nothing on stdout', async () => {
    const res = await runBin([], { MCP_MEMORY_DATA_DIR: tempDir() });
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('');
  });
});
