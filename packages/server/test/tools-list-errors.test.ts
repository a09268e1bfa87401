import path from 'node:path';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { MemoryError, type Logger, type Surface, type SurfaceTool } from '@memory-service/kernel';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpServer } from '../src/mcp-adapter.js';
import { createService, type Service } from '../src/service.js';
import { type StdioSession } from '../src/stdio-session.js';
import { StdioTransport } from '../src/stdio-transport.js';
import { FIXTURES, pipeSession, tempDir } from './helpers.js';

/** A logger that keeps what it is given. */
function keptLogger(): Logger & { errors: string[] } {
  const errors: string[] = [];
  return { errors, info: () => undefined, warn: () => undefined, error: (m) => errors.push(m) };
}

type Broken = { input?: boolean; output?: boolean; bigint?: boolean };

/** A tool of a fake surface; `broken` makes its schemas throw when read, or hold a value JSON cannot. */
function tool(name: string, broken: Broken = {}, call: SurfaceTool['call'] = (args) => ({ echoed: args })): SurfaceTool {
  return {
    name,
    title: `The ${name} tool`,
    description: `Does ${name}`,
    get inputSchema(): Record<string, unknown> {
      if (broken.input) throw new Error('schema builder broke');
      return { type: 'object', properties: { q: { type: 'string', ...(broken.bigint ? { default: 1n } : {}) } } };
    },
    get outputSchema(): Record<string, unknown> | undefined {
      if (broken.output) throw new TypeError('output is not a zod schema');
      return undefined;
    },
    annotations: { title: name, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    call,
    invoke: async (args) => call(args),
  };
}

function surfaceOf(tools: SurfaceTool[]): Surface {
  return { exposure: {} as Surface['exposure'], meta: false, tools, get: (name) => tools.find((t) => t.name === name) };
}

const sessions: StdioSession[] = [];
const services: Service[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.close();
  for (const s of services.splice(0)) await s.close();
});

/** A stdio session on a pipe pair over `surface`: ask a request, read its answer. */
const open = (surface: Surface, logger: Logger) => pipeSession(surface, logger, sessions);

describe('a request the stdio session answers itself is answered even when building the answer throws', () => {
  it('lists the other tools and leaves out one whose input schema cannot be built, saying so once', async () => {
    const logger = keptLogger();
    const { ask } = await open(surfaceOf([tool('fine'), tool('b_x', { input: true })]), logger);
    const answer = await ask({ id: 1, method: 'tools/list' });
    expect(answer.result.tools.map((t: { name: string }) => t.name)).toEqual(['fine']);
    expect(logger.errors).toEqual([expect.stringMatching(/^tools\/list leaves out b_x: the inputSchema of tool "b_x" could not be built as JSON Schema: schema builder broke/)]);
    // The session goes on: calls still work, and the next tools/list is answered the same, said once.
    expect((await ask({ id: 2, method: 'tools/call', params: { name: 'fine', arguments: { q: 'a' } } })).result.structuredContent).toEqual({ echoed: { q: 'a' } });
    expect((await ask({ id: 3, method: 'tools/list' })).result.tools).toHaveLength(1);
    expect(logger.errors).toHaveLength(1);
    expect((await ask({ id: 4, method: 'ping' })).result).toEqual({});
  });

  it('names the output schema when that is what fails, and answers a list JSON cannot hold with an internal error', async () => {
    const logger = keptLogger();
    const { ask } = await open(surfaceOf([tool('out', { output: true })]), logger);
    expect((await ask({ id: 'a', method: 'tools/list', params: {} })).result).toEqual({ tools: [] });
    expect(logger.errors.join('\n')).toMatch(/outputSchema of tool "out".*not a zod schema/);

    const other = await open(surfaceOf([tool('big', { bigint: true })]), keptLogger());
    expect((await other.ask({ id: 1, method: 'tools/list' })).error).toMatchObject({ code: -32603, message: expect.stringMatching(/BigInt/) });
  });

  it('answers when the surface itself throws, and never answers twice', async () => {
    const logger = keptLogger();
    const surface: Surface = {
      exposure: {} as Surface['exposure'],
      meta: false,
      get tools(): SurfaceTool[] {
        throw new Error('no tools today');
      },
      get: () => {
        throw new Error('lookup broke');
      },
    };
    const { ask, answers } = await open(surface, logger);
    expect((await ask({ id: 1, method: 'tools/list' })).error).toMatchObject({ code: -32603, message: expect.stringMatching(/no tools today/) });
    expect((await ask({ id: 2, method: 'tools/call', params: { name: 'x', arguments: {} } })).error).toMatchObject({
      code: -32603,
      message: expect.stringMatching(/tools\/call.*lookup broke/),
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answers().map((a) => a.id)).toEqual([1, 2]);
    expect(logger.errors).toHaveLength(2);
  });

  // Regression guard, fixed: the log line said "tool failed: a bare string", naming neither the tool nor its plugin.
  it('logs a failed call naming the tool and, when the error carries it, the plugin', async () => {
    const logger = keptLogger();
    const { ask } = await open(
      surfaceOf([
        tool('boom', {}, () => {
          throw 'a bare string';
        }),
        tool('owned', {}, () => {
          throw new MemoryError('KERNEL_ERR_TOOL_FAILED', 'it broke', { plugin: 'third-party' });
        }),
      ]),
      logger,
    );
    await ask({ id: 1, method: 'tools/call', params: { name: 'boom', arguments: {} } });
    await ask({ id: 2, method: 'tools/call', params: { name: 'owned', arguments: {} } });
    expect(logger.errors).toEqual(['tool failed (tool boom): a bare string', 'tool failed (tool owned, plugin third-party): it broke']);
  });

  // Regression guard, fixed: every think refused on a full disk logged SQLite's 11-line stack (285 failed thinks, 245 KB of stderr).
  it('logs a storage failure as one line naming the tool, its plugin and the message, without a stack', async () => {
    const logger = keptLogger();
    const sqlite = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    const { ask } = await open(
      surfaceOf([
        tool('full', {}, () => {
          throw new MemoryError('KERNEL_ERR_STORAGE', 'cannot write to the database /d/memory.db: the disk holding the data dir /d is full', { plugin: 'p', cause: sqlite });
        }),
      ]),
      logger,
    );
    const answer = await ask({ id: 1, method: 'tools/call', params: { name: 'full', arguments: {} } });
    expect(JSON.parse(answer.result.content[0].text).error).toMatchObject({ code: 'KERNEL_ERR_STORAGE', type: 'StorageError' });
    expect(logger.errors).toEqual(['storage failure (tool full, plugin p): cannot write to the database /d/memory.db: the disk holding the data dir /d is full']);
  });

  it('answers a tools/call whose error cannot be written as JSON, synchronous or not, with an internal error', async () => {
    const unwritable = () => new MemoryError('KERNEL_ERR_VALIDATION', 'bad value', { field: 'q', accepted: [1n] });
    const logger = keptLogger();
    const { ask } = await open(
      surfaceOf([
        tool('sync', {}, () => {
          throw unwritable();
        }),
        tool('later', {}, () => Promise.reject(unwritable())),
      ]),
      logger,
    );
    for (const [id, name] of [[1, 'sync'], [2, 'later']] as const) {
      const answer = await ask({ id, method: 'tools/call', params: { name, arguments: {} } });
      expect(answer.error).toMatchObject({ code: -32603, message: expect.stringMatching(/tools\/call could not be answered: .*BigInt/) });
    }
    expect(logger.errors).toHaveLength(2);
  });

  it("answers tools/list for a plugin whose lazy input schema throws: an error naming the tool, or a list without it", async () => {
    const logger = keptLogger();
    const service = await createService({ dataDir: tempDir(), env: { MEMORY_EXPOSE: 'primitives,lazy' }, pluginSpecs: [path.join(FIXTURES, 'lazy-schema-plugin')], logger });
    services.push(service);
    const { ask } = await open(service.surface, logger);
    const list = await ask({ id: 1, method: 'tools/list' });
    if (list.error) {
      // The kernel took the tool: the answer is the error naming it.
      expect(list.error.code).toBe(-32603);
      expect(list.error.message).toMatch(/"lazy_broken".*schema builder broke/);
      expect(logger.errors.join('\n')).toMatch(/lazy_broken/);
    } else {
      // The kernel refused the tool at registration, or left it out of the list.
      const names = (list.result.tools as { name: string }[]).map((t) => t.name);
      expect(names).toContain('lazy_ok');
      expect(names).not.toContain('lazy_broken');
    }
    expect((await ask({ id: 2, method: 'tools/call', params: { name: 'lazy_ok', arguments: {} } })).result.structuredContent).toEqual({ ok: true });
  });
});

describe('tools/list through the SDK Server (HTTP, and stdio messages the session hands on)', () => {
  it('lists the other tools and leaves out one whose schema cannot be built, logging it', async () => {
    const logger = keptLogger();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = createMcpServer(surfaceOf([tool('fine'), tool('b_x', { input: true })]), logger);
    await server.connect(serverSide);
    const client = new Client({ name: 't', version: '1' });
    await client.connect(clientSide);
    expect((await client.listTools(undefined, { timeout: 1000 })).tools.map((t) => t.name)).toEqual(['fine']);
    expect(logger.errors.join('\n')).toMatch(/tools\/list leaves out b_x: .*schema builder broke/);
    await client.close();
  });

  it('answers a list JSON cannot hold rather than failing in the send', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = createMcpServer(surfaceOf([tool('big', { bigint: true })]), keptLogger());
    await server.connect(serverSide);
    const client = new Client({ name: 't', version: '1' });
    await client.connect(clientSide);
    await expect(client.listTools(undefined, { timeout: 1000 })).rejects.toMatchObject({ code: -32603, message: expect.stringMatching(/BigInt/) });
    await client.close();
  });
});

describe('the stdio transport', () => {
  it('answers a request whose handling throws with an internal error, and reports it', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let out = '';
    stdout.on('data', (d) => (out += String(d)));
    const reported: Error[] = [];
    const transport = new StdioTransport({
      stdin,
      stdout,
      take: () => {
        throw new Error('take broke');
      },
    });
    transport.onerror = (e) => reported.push(e);
    await transport.start();
    stdin.write('{"jsonrpc":"2.0","id":7,"method":"tools/list"}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(out.split('\n').filter(Boolean).map((l) => JSON.parse(l))).toEqual([
      { jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'Internal error: tools/list could not be answered: take broke' } },
    ]);
    expect(reported.map((e) => e.message)).toEqual(['take broke', 'take broke']);
    await transport.close();
  });
});
