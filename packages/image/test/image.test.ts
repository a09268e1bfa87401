import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script (plain ESM, no declarations)
import { unwrapInferredNames } from '../scripts/inferred-names.mjs';
import { WRAPPER_PARAMS } from '../src/launch.js';

/**
 * The `memory-service` command as an MCP host runs it (`node <bin>` over stdio), started from the
 * image where it applies and from the modules where it does not.
 */
const BIN = fileURLToPath(new URL('../../server/bin/memory-service.js', import.meta.url));
const SHOUT = fileURLToPath(new URL('./fixtures/shout-plugin', import.meta.url));
const DIST = fileURLToPath(new URL('../dist/', import.meta.url));

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'ms-image-test-'));
}

const rpc = (id: number | null, method: string, params: unknown) => `${JSON.stringify(id === null ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', id, method, params })}\n`;

const HANDSHAKE =
  rpc(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'image-test', version: '1' } }) +
  rpc(null, 'notifications/initialized', {}) +
  rpc(2, 'tools/list', {});

interface Run {
  code: number | null;
  answers: Map<number, any>;
  stderr: string;
  /** The ready line's note on how the command started ('' from the modules). */
  ready: string;
}

/** Run the bin with `input` on stdin, closing stdin once the answer with id `lastId` is in. */
function run(env: Record<string, string>, input: string, lastId: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN], { env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), ...env } });
    let out = '';
    let stderr = '';
    const answered = new RegExp(`"id":${lastId}[,}]`);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (answered.test(out)) child.stdin.end();
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const answers = new Map<number, any>();
      for (const line of out.split('\n').filter(Boolean)) {
        const msg = JSON.parse(line);
        answers.set(msg.id, msg);
      }
      // What follows the data dir on the ready line (the image's note), or ''.
      const ready = /ready on stdio \(\d+ tools, data dir [^,)]*(?:, (.*))?\)/.exec(stderr)?.[1] ?? '';
      resolve({ code, answers, stderr, ready });
    });
    child.stdin.write(input);
  });
}

/** A cache directory of its own for a test (the image keeps its cache under NODE_COMPILE_CACHE). */
function cacheEnv(): { env: Record<string, string>; dir: string } {
  const base = tempDir();
  return { env: { NODE_COMPILE_CACHE: base }, dir: path.join(base, 'memory-service-image') };
}

const toolNames = (r: Run) => (r.answers.get(2)?.result?.tools ?? []).map((t: { name: string }) => t.name).sort();

describe('the server image', () => {
  it('is built beside the launcher, with a manifest naming what it holds', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(DIST, 'image.json'), 'utf8'));
    expect(manifest.format).toBe(2);
    expect(fs.existsSync(path.join(DIST, manifest.image))).toBe(true);
    const packages = Object.keys(manifest.packages);
    for (const name of ['@memory-service/server', '@memory-service/kernel', '@memory-service/stores', '@memory-service/plugin-primitives']) {
      expect(packages).toContain(name);
    }
    // ASCII only: V8 keeps a source with any other character as a two-byte string, twice the memory.
    const image = fs.readFileSync(path.join(DIST, manifest.image));
    expect(image.findIndex((b) => b > 0x7f)).toBe(-1);
    // Minified white space: each start reads and copies the whole script (about 40,000 lines unminified).
    expect(image.toString('latin1').split('\n').length).toBeLessThan(2_000);
    // The file is the function the launcher calls, so no wrapped copy of it is made at start.
    const text = image.toString('latin1');
    expect(text.startsWith(`(function (${WRAPPER_PARAMS.join(', ')}) {`)).toBe(true);
    expect(text.endsWith('\n})')).toBe(true);
    // One namespace per built-in module, and node:crypto loaded at its first use only.
    expect(text).not.toMatch(/__toESM\(require\("node:/);
    expect(text).not.toMatch(/(?<![\w$.])require\("node:crypto"\)/);
    expect(text).toContain('__lazyBuiltin("node:crypto"');
    // keepNames' helpers define a function's name only where it differs (each definition costs the
    // function its fast properties); none of the plain helpers is left.
    expect(text).not.toMatch(/\(target,value\)=>__defProp\d*\(target,"name"/);
    expect(text.match(/\(target,value\)=>target\.name===value\?target:__defProp\d*\(target,"name"/g)?.length).toBeGreaterThan(1);
    // No keepNames call is left where the assignment names the function anyway, nor in zod's modules
    // (inferred-names.mjs): each would cost the function its fast properties at every start.
    const again = unwrapInferredNames(text, /^\.\.\/kernel\/dist\/(?:zod|zod-mini|chunk-[A-Z0-9]+)\.js$/);
    expect(again.unwrapped).toBe(0);
    expect(again.minifiedModules).toBeGreaterThanOrEqual(3);
    // One zod: the kernel's bundle of it, never zod's own build.
    expect(manifest.inputs.some((i: { pkg: string }) => i.pkg === 'zod')).toBe(false);
    expect(manifest.inputs.some((i: { pkg: string; file: string }) => i.pkg === '@memory-service/kernel' && i.file === 'dist/zod.js')).toBe(true);
  });

  it('starts the command: the first start writes a private code cache, the next reads it, and both answer as the modules do', async () => {
    const { env, dir } = cacheEnv();
    const data = tempDir();
    const session =
      HANDSHAKE +
      rpc(3, 'tools/call', { name: 'think', arguments: { text: 'Ines keeps her climbing rope in the blue locker at the gym', layer: 'user' } }) +
      rpc(4, 'tools/call', { name: 'dream', arguments: { query: 'climbing rope locker', layer: 'user', limit: 3 } });
    const first = await run({ ...env, MCP_MEMORY_DATA_DIR: data }, session, 4);
    expect(first.code).toBe(0);
    expect(first.ready).toContain('image, code cache written');
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.bin'));
    expect(files).toHaveLength(1);
    if (process.platform !== 'win32') {
      expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
      expect(fs.statSync(path.join(dir, files[0])).mode & 0o777).toBe(0o600);
    }
    expect(first.answers.get(4).result.structuredContent.summary).toContain('blue locker');

    const second = await run({ ...env, MCP_MEMORY_DATA_DIR: data }, HANDSHAKE + rpc(3, 'tools/call', { name: 'dream', arguments: { query: 'rope', layer: 'user' } }), 3);
    expect(second.code).toBe(0);
    expect(second.ready).toContain('image, code cache read');
    expect(second.answers.get(3).result.structuredContent.summary).toContain('blue locker');

    const modules = await run({ ...env, MCP_MEMORY_DATA_DIR: data, MEMORY_IMAGE: '0' }, HANDSHAKE, 2);
    expect(modules.code).toBe(0);
    expect(modules.ready).toBe('');
    // The same server either way: the same tools with the same schemas.
    expect(second.answers.get(2)).toEqual(modules.answers.get(2));
    expect(second.answers.get(1)).toEqual(modules.answers.get(1));
    // Nothing on stderr but log lines.
    for (const r of [first, second, modules]) for (const line of r.stderr.split('\n').filter(Boolean)) expect(line).toMatch(/^\[memory-service\] (info|warn): /);
  });

  it('writing a cache removes those of other images not made for a month, and keeps newer ones', async () => {
    const { env, dir } = cacheEnv();
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const plant = (name: string, days: number) => {
      fs.writeFileSync(path.join(dir, name), 'old image code', { mode: 0o600 });
      const t = new Date(Date.now() - days * 86_400_000);
      fs.utimesSync(path.join(dir, name), t, t);
    };
    plant('server-0000000000000000-v0.0.0-x64-00000000.bin', 40);
    plant('server-1111111111111111-v0.0.0-x64-00000000.bin', 2);
    const first = await run({ ...env, MCP_MEMORY_DATA_DIR: tempDir() }, HANDSHAKE, 2);
    expect(first.ready).toContain('image, code cache written');
    const files = fs.readdirSync(dir);
    expect(files).not.toContain('server-0000000000000000-v0.0.0-x64-00000000.bin');
    expect(files).toContain('server-1111111111111111-v0.0.0-x64-00000000.bin');
    expect(files.filter((f) => f.endsWith('.bin'))).toHaveLength(2);
  });

  it('does not read a cache file others may write, or one V8 refuses: it writes a new one', async () => {
    if (process.platform === 'win32') return;
    const { env, dir } = cacheEnv();
    expect((await run({ ...env, MCP_MEMORY_DATA_DIR: tempDir() }, HANDSHAKE, 2)).ready).toContain('code cache written');
    const file = path.join(dir, fs.readdirSync(dir).find((f) => f.endsWith('.bin'))!);

    fs.chmodSync(file, 0o666);
    const open = await run({ ...env, MCP_MEMORY_DATA_DIR: tempDir() }, HANDSHAKE, 2);
    expect(open.code).toBe(0);
    expect(open.ready).toContain('code cache written');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    fs.writeFileSync(file, Buffer.alloc(4096, 7), { mode: 0o600 });
    const garbage = await run({ ...env, MCP_MEMORY_DATA_DIR: tempDir() }, HANDSHAKE, 2);
    expect(garbage.code).toBe(0);
    expect(garbage.ready).toContain('code cache written');
    expect(toolNames(garbage)).toContain('dream');
    expect((await run({ ...env, MCP_MEMORY_DATA_DIR: tempDir() }, HANDSHAKE, 2)).ready).toContain('code cache read');
  });

  it('keeps no cache under NODE_DISABLE_COMPILE_CACHE=1 and in a directory others may write', async () => {
    const { env, dir } = cacheEnv();
    const off = await run({ ...env, NODE_DISABLE_COMPILE_CACHE: '1', MCP_MEMORY_DATA_DIR: tempDir() }, HANDSHAKE, 2);
    expect(off.code).toBe(0);
    expect(off.ready).toContain('image, no code cache');
    expect(fs.existsSync(dir)).toBe(false);
    if (process.platform === 'win32') return;
    fs.mkdirSync(dir, { recursive: true });
    fs.chmodSync(dir, 0o777);
    const shared = await run({ ...env, MCP_MEMORY_DATA_DIR: tempDir() }, HANDSHAKE, 2);
    expect(shared.code).toBe(0);
    expect(shared.ready).toContain('image, no code cache');
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('starts from the modules when MEMORY_PLUGINS names a third-party plugin, which then works as it would', async () => {
    const r = await run(
      { ...cacheEnv().env, MCP_MEMORY_DATA_DIR: tempDir(), MEMORY_PLUGINS: SHOUT, MEMORY_EXPOSE: 'primitives,shout' },
      HANDSHAKE + rpc(3, 'tools/call', { name: 'shout_say', arguments: { text: 'hello' } }) + rpc(4, 'tools/call', { name: 'shout_say', arguments: { text: 'whisper' } }),
      4,
    );
    expect(r.code).toBe(0);
    expect(r.ready).toBe('');
    expect(toolNames(r)).toContain('shout_say');
    expect(r.answers.get(3).result.structuredContent).toEqual({ text: 'HELLO' });
    // The plugin's MemoryError is the kernel's own: its code survives.
    const failed = r.answers.get(4).result;
    expect(failed.isError).toBe(true);
    expect(JSON.parse(failed.content[0].text).error).toMatchObject({ type: 'ValidationError', code: 'KERNEL_ERR_VALIDATION', field: 'text', plugin: 'shout-plugin' });
  });

  it('starts from the modules when config.yaml lists a plugin the image does not hold', async () => {
    const data = tempDir();
    fs.writeFileSync(path.join(data, 'config.yaml'), `plugins:\n  - ${JSON.stringify(SHOUT)}\n`);
    const r = await run({ ...cacheEnv().env, MCP_MEMORY_DATA_DIR: data, MEMORY_EXPOSE: 'primitives,shout' }, HANDSHAKE + rpc(3, 'tools/call', { name: 'shout_say', arguments: { text: 'hi' } }), 3);
    expect(r.code).toBe(0);
    expect(r.ready).toBe('');
    expect(r.answers.get(3).result.structuredContent).toEqual({ text: 'HI' });
    // One start only: the image's attempt left nothing behind but the modules' server.
    expect(r.stderr.match(/ready on stdio/g)).toHaveLength(1);
  });

  it('starts from the image with a config.yaml that lists only first-party plugins', async () => {
    const data = tempDir();
    fs.writeFileSync(path.join(data, 'config.yaml'), 'plugins:\n  - "@memory-service/plugin-wiki"\nretrieval:\n  default_limit: 3\n');
    const r = await run({ ...cacheEnv().env, MCP_MEMORY_DATA_DIR: data }, HANDSHAKE, 2);
    expect(r.code).toBe(0);
    expect(r.ready).toMatch(/^image, /);
    expect(toolNames(r)).toContain('dream');
  });
});
