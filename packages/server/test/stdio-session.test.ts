import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { LATEST_PROTOCOL_VERSION as SDK_LATEST, SUPPORTED_PROTOCOL_VERSIONS as SDK_SUPPORTED, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Surface, SurfaceTool } from '@memory-service/kernel';
import { afterEach, describe, expect, it } from 'vitest';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '../src/direct-calls.js';
import { createMcpServer } from '../src/mcp-adapter.js';
import { openStdioSession, type StdioSession } from '../src/stdio-session.js';
import { StdioTransport } from '../src/stdio-transport.js';
import { pipeSession } from './helpers.js';

function surface(): Surface {
  const tool = (name: string, output?: Record<string, unknown>): SurfaceTool => ({
    name,
    title: `The ${name} tool`,
    description: `Does ${name}`,
    inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    ...(output ? { outputSchema: output } : {}),
    annotations: { title: name, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    call: (args) => ({ echoed: args }),
    invoke: async (args) => ({ echoed: args }),
  });
  const tools = [tool('plain'), tool('shaped', { type: 'object', properties: { echoed: {} } })];
  return { exposure: {} as Surface['exposure'], meta: false, tools, get: (name) => tools.find((t) => t.name === name) };
}

const sessions: StdioSession[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.close();
});

/** A session on a pipe pair over the fixture surface: send raw lines, read the answers. */
const open = () => pipeSession(surface(), undefined, sessions);

/** The SDK Server's own answer to the same message (over an in-memory pair). */
async function sdkAnswer(message: Record<string, unknown>): Promise<Record<string, any>> {
  const [client, server] = InMemoryTransport.createLinkedPair();
  const mcp = createMcpServer(surface());
  await mcp.connect(server);
  const got = new Promise<Record<string, any>>((resolve) => (client.onmessage = (m) => resolve(m as Record<string, any>)));
  await client.start();
  await client.send({ jsonrpc: '2.0', ...message } as JSONRPCMessage);
  const answer = await got;
  await mcp.close();
  return answer;
}

const init = (id: number, protocolVersion: string, clientInfo: Record<string, unknown> = { name: 'c', version: '1' }) => ({
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: { roots: { listChanged: true }, sampling: {} }, clientInfo },
});

describe('the stdio session', () => {
  it('answers initialize, ping and tools/list as the SDK Server does, without loading it', async () => {
    const { session, ask, toServer } = await open();
    const messages = [
      init(1, '2025-06-18'),
      init(2, '1999-01-01'),
      init(3, LATEST_PROTOCOL_VERSION, { name: 'c', version: '1', title: 'A client' }),
      { id: 4, method: 'ping' },
      { id: 5, method: 'ping', params: {} },
      { id: 'list', method: 'tools/list' },
    ];
    toServer.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    for (const m of messages) {
      const ours = await ask(m);
      expect(ours, JSON.stringify(m)).toEqual(await sdkAnswer(m));
    }
    expect((await ask({ id: 6, method: 'initialize', params: init(0, '2024-11-05').params })).result.protocolVersion).toBe('2024-11-05');
    expect(session.sdkLoaded).toBe(false);
  });

  it("hands anything else to the SDK Server, loaded once, and its answers are the SDK's", async () => {
    const { session, ask } = await open();
    const others = [
      { id: 1, method: 'resources/list' },
      { id: 2, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {} } },
      { id: 3, method: 'initialize', params: { ...init(0, '2025-06-18').params, _meta: { progressToken: 1 } } },
      { id: 4, method: 'tools/list', params: { cursor: 'x' } },
      { id: 5, method: 'ping', params: { _meta: { progressToken: 'p' } } },
    ];
    for (const m of others) {
      const ours = await ask(m);
      expect(ours, JSON.stringify(m)).toEqual(await sdkAnswer(m));
    }
    expect(session.sdkLoaded).toBe(true);
    // A request the SDK's JSON-RPC schema refuses is still answered, naming the member.
    const refused = await ask({ id: 6, method: 'ping', params: [] });
    expect(refused.error.code).toBe(-32602);
    expect(refused.error.message).toMatch(/params/);
  });

  it('answers messages that arrive while the SDK loads, each once', async () => {
    const { ask, toServer, answers } = await open();
    for (let id = 1; id <= 3; id++) toServer.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'resources/list' })}\n`);
    // The ping is answered by the session itself, perhaps before the SDK's answers.
    expect((await ask({ id: 4, method: 'ping' })).result).toEqual({});
    for (let i = 0; i < 200 && answers().length < 4; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answers()).toHaveLength(4);
    for (let id = 1; id <= 3; id++) expect(answers().filter((a) => a.id === id && a.error?.code === -32601)).toHaveLength(1);
  });

  it('drops a cancellation of a request already answered without loading the SDK', async () => {
    const { session, ask, toServer } = await open();
    expect((await ask({ id: 1, method: 'ping' })).result).toEqual({});
    toServer.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'late' } })}\n`);
    expect((await ask({ id: 2, method: 'ping' })).result).toEqual({});
    expect(session.sdkLoaded).toBe(false);
  });

  it('serves an SDK client end to end: handshake, tools, calls and close', async () => {
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    const session = await openStdioSession(surface(), undefined, { stdin: toServer, stdout: toClient });
    let closed = 0;
    session.onclose = () => closed++;
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StdioTransport({ stdin: toClient, stdout: toServer }));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['plain', 'shaped']);
    const res: any = await client.callTool({ name: 'shaped', arguments: { q: 'x' } });
    expect(res.structuredContent).toEqual({ echoed: { q: 'x' } });
    await client.ping();
    expect(session.sdkLoaded).toBe(false);
    await client.close();
    await session.close();
    expect(closed).toBe(1);
  });
});

describe('the protocol versions answered without the SDK', () => {
  it("are the SDK's", () => {
    expect(LATEST_PROTOCOL_VERSION).toBe(SDK_LATEST);
    expect([...SUPPORTED_PROTOCOL_VERSIONS]).toEqual(SDK_SUPPORTED);
  });
});
