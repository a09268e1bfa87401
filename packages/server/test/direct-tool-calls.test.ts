import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Surface, SurfaceTool } from '@memory-service/kernel';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DirectToolCalls, errorResult, resultJson, successResult } from '../src/direct-calls.js';
import { openStdioSession } from '../src/stdio-session.js';
import { StdioTransport } from '../src/stdio-transport.js';

class Temperature {
  constructor(readonly celsius: number) {}
  toJSON() {
    return { fahrenheit: this.celsius * 1.8 + 32 };
  }
}

/** Tool values whose JSON is easy to get wrong. */
const VALUES: Record<string, () => unknown> = {
  nested: () => ({
    summary: '## [l3] ep_1 · 2026-11-22 · score 0.967\nSaid "hi" \\ then left\ttab',
    hits: [
      { id: 'ep_1', score: 0.967, parts: { bm25: 0.5, recency: -0 }, tags: [] },
      { id: 'ep_2', score: 1e21, parts: null, when: new Date(0) },
    ],
    truncated: false,
    result_count: 2,
  }),
  unicode: () => ({ text: 'café ☕ 𝄞 日本語 \u2028 \u0000 \u001f', lone: '\ud800x\udfff', emoji: '👩‍👩‍👧' }),
  keyOrder: () => ({ b: 1, a: 2, 10: 'ten', 2: 'two', '-1': 'minus' }),
  dropped: () => ({ keep: 1, gone: undefined, fn: () => 1, nan: NaN, inf: -Infinity, arr: [undefined, () => 1, NaN] }),
  empty: () => ({}),
  primitive: () => 'just a string',
  nothing: () => null,
  list: () => [1, { a: 'b' }],
  withToJSON: () => ({ a: 1, toJSON: () => ({ replaced: true }) }),
  nestedClass: () => ({ t: new Temperature(0), m: new Map([[1, 2]]) }),
  protoKey: () => JSON.parse('{"__proto__":{"x":1},"y":2}'),
};

describe('resultJson', () => {
  for (const [name, make] of Object.entries(VALUES)) {
    it(`parses to what JSON.stringify gives for a ${name} value`, () => {
      const result = successResult(make());
      expect(JSON.parse(resultJson(result))).toEqual(JSON.parse(JSON.stringify(result)));
    });
  }

  it('writes errors and other shapes with JSON.stringify', () => {
    const failed = errorResult(new Error('boom'));
    expect(resultJson(failed)).toBe(JSON.stringify(failed));
    const two = { content: [{ type: 'text' as const, text: '{}' }, { type: 'text' as const, text: 'x' }], structuredContent: {} };
    expect(resultJson(two)).toBe(JSON.stringify(two));
  });
});

describe('tools/call answered directly over the stdio transport', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  function fakeSurface(): Surface {
    // As the kernel's tools: call() gives a synchronous handler's value (or throw) at once.
    const tool = (name: string, run: (args: any, signal?: AbortSignal) => unknown): SurfaceTool => ({
      name,
      title: name,
      description: name,
      inputSchema: { type: 'object' },
      annotations: { title: name, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      call: (args, abort) => run(args, abort?.signal),
      invoke: async (args, signal) => run(args, signal),
    });
    const tools = [
      tool('value', (args: { kind: string }) => VALUES[args.kind]!()),
      tool('slow', async (args: { ms: number; kind: string }) => {
        await new Promise((resolve) => setTimeout(resolve, args.ms));
        return VALUES[args.kind]!();
      }),
      tool('fails', () => {
        throw new Error('boom');
      }),
      tool('rejects', async () => {
        throw new Error('later boom');
      }),
      tool('unserialisable', () => ({ big: 10n })),
      tool('signal', (_args, signal) => ({ aborted: signal?.aborted ?? null })),
    ];
    return { exposure: {} as Surface['exposure'], meta: false, tools, get: (name) => tools.find((t) => t.name === name) };
  }

  async function connected() {
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    const surface = fakeSurface();
    const server = await openStdioSession(surface, undefined, { stdin: toServer, stdout: toClient });
    const wire: string[] = [];
    toClient.on('data', (d) => wire.push(String(d)));
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StdioTransport({ stdin: toClient, stdout: toServer }));
    const lines = () =>
      wire
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    return { client, server, toServer, lines };
  }

  it('answers plain calls without the SDK, with structuredContent equal to the text, in any order', async () => {
    const take = vi.spyOn(DirectToolCalls.prototype, 'take');
    const { client, server } = await connected();
    for (const kind of Object.keys(VALUES)) {
      const res: any = await client.callTool({ name: 'value', arguments: { kind } });
      expect(res.isError, kind).toBeFalsy();
      // The SDK client drops a "__proto__" key from structuredContent.
      if (kind !== 'protoKey') expect(res.structuredContent, kind).toEqual(JSON.parse(res.content[0].text));
    }
    const slow = await Promise.all([30, 10, 20, 0].map((ms, i) => client.callTool({ name: 'slow', arguments: { ms, kind: i % 2 ? 'nested' : 'keyOrder' } })));
    for (const res of slow as any[]) expect(res.structuredContent).toEqual(JSON.parse(res.content[0].text));
    const failed: any = await client.callTool({ name: 'fails', arguments: {} });
    expect(failed.isError).toBe(true);
    const unknown: any = await client.callTool({ name: 'nope', arguments: {} });
    expect(JSON.parse(unknown.content[0].text).error.code).toBe('KERNEL_ERR_TOOL_UNKNOWN');
    await client.ping();
    const calls = take.mock.calls.filter(([m]) => (m as { method?: string }).method === 'tools/call');
    expect(calls).toHaveLength(Object.keys(VALUES).length + slow.length + 2);
    for (const [i, [m]] of take.mock.calls.entries()) {
      expect(take.mock.results[i]!.value).toBe((m as { method?: string }).method === 'tools/call');
    }
    await client.close();
    await server.close();
  });

  it('answers a tool that returns synchronously within the same turn, and turns failures into tool errors', async () => {
    const lines: string[] = [];
    const direct = new DirectToolCalls(fakeSurface(), async (line) => {
      lines.push(line);
    });
    const call = (id: number, name: string, args: object = {}) => direct.take({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
    const answer = (id: number) => lines.map((l) => JSON.parse(l)).find((l) => l.id === id)?.result;
    expect(call(1, 'value', { kind: 'nested' })).toBe(true);
    // Written before take() returned: no promise or microtask in between.
    expect(answer(1).structuredContent.result_count).toBe(2);
    expect(call(2, 'fails')).toBe(true);
    expect(answer(2).isError).toBe(true);
    expect(call(3, 'nope')).toBe(true);
    expect(JSON.parse(answer(3).content[0].text).error.code).toBe('KERNEL_ERR_TOOL_UNKNOWN');
    expect(call(4, 'unserialisable')).toBe(true);
    expect(answer(4).isError).toBe(true);
    // The tool that reads its signal gets a live one.
    expect(call(5, 'signal')).toBe(true);
    expect(answer(5).structuredContent).toEqual({ aborted: false });
    expect(call(6, 'rejects')).toBe(true);
    expect(answer(6)).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(JSON.parse(answer(6).content[0].text).error.message).toContain('later boom');
  });

  it('leaves progress-token and task calls to the SDK Server', async () => {
    const take = vi.spyOn(DirectToolCalls.prototype, 'take');
    const { client, server } = await connected();
    const progress: any = await client.callTool({ name: 'value', arguments: { kind: 'empty' } }, undefined, { onprogress: () => undefined });
    expect(progress.structuredContent).toEqual({});
    expect(take.mock.results.every((r) => r.value === false)).toBe(true);
    await client.close();
    await server.close();
  });

  it('answers a call with malformed params with invalid params (-32602) naming the member, and keeps answering', async () => {
    const { client, server, toServer, lines } = await connected();
    const malformed: [string, unknown][] = [
      ['array-args', { name: 'value', arguments: [1] }],
      ['string-args', { name: 'value', arguments: 'kind=nested' }],
      ['null-args', { name: 'value', arguments: null }],
      ['no-name', { arguments: { kind: 'nested' } }],
      ['number-name', { name: 7, arguments: {} }],
      ['no-params', undefined],
      ['string-params', 'value'],
    ];
    for (const [id, params] of malformed) {
      toServer.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', ...(params === undefined ? {} : { params }) })}\n`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    const answers = new Map(lines().map((l) => [l.id, l]));
    const expected: Record<string, RegExp> = {
      'array-args': /params\.arguments must be an object/,
      'string-args': /params\.arguments must be an object/,
      'null-args': /params\.arguments must be an object/,
      'no-name': /params\.name must be a string/,
      'number-name': /params\.name must be a string/,
      'no-params': /params must be an object/,
      'string-params': /params must be an object/,
    };
    for (const [id] of malformed) {
      const a = answers.get(id);
      expect(a?.result, id).toBeUndefined();
      expect(a?.error.code, id).toBe(-32602);
      expect(a?.error.message, id).toMatch(expected[id]!);
    }
    const after: any = await client.callTool({ name: 'value', arguments: { kind: 'nested' } });
    expect(after.structuredContent.result_count).toBe(2);
    await client.close();
    await server.close();
  });

  // Regression guard, fixed: a request the SDK's JSON-RPC schema refuses (a _meta that is not an object, a progress
  // token that is neither a string nor an integer, params that are not an object on another method, an unknown
  // top-level member) was handed to the SDK Server, whose Protocol drops a message it cannot classify: no answer
  // at all, and the client waited for ever.
  it('answers every malformed request it hands on, naming the member, and keeps answering', async () => {
    const { client, server, toServer, lines } = await connected();
    const malformed: [string, Record<string, unknown>, number, RegExp][] = [
      ['meta-number', { method: 'tools/call', params: { name: 'value', arguments: { kind: 'empty' }, _meta: 5 } }, -32602, /params\._meta/],
      ['meta-null', { method: 'tools/call', params: { name: 'value', arguments: { kind: 'empty' }, _meta: null } }, -32602, /params\._meta/],
      ['meta-list', { method: 'tools/call', params: { name: 'value', arguments: { kind: 'empty' }, _meta: [] } }, -32602, /params\._meta/],
      ['token-object', { method: 'tools/call', params: { name: 'value', arguments: { kind: 'empty' }, _meta: { progressToken: {} } } }, -32602, /params\._meta\.progressToken/],
      ['token-null', { method: 'tools/call', params: { name: 'value', arguments: { kind: 'empty' }, _meta: { progressToken: null } } }, -32602, /params\._meta\.progressToken/],
      ['token-fraction', { method: 'tools/call', params: { name: 'value', arguments: { kind: 'empty' }, _meta: { progressToken: 1.5 } } }, -32602, /params\._meta\.progressToken/],
      ['list-params', { method: 'tools/list', params: 5 }, -32602, /params/],
      ['list-meta', { method: 'tools/list', params: { _meta: 'x' } }, -32602, /params\._meta/],
      ['ping-meta', { method: 'ping', params: { _meta: true } }, -32602, /params\._meta/],
      ['extra-member', { method: 'tools/list', extra: 1 }, -32600, /extra/],
      ['task-number', { method: 'tools/call', params: { name: 'value', arguments: { kind: 'empty' }, task: 5 } }, -32602, /params\.task must be an object/],
    ];
    for (const [id, rest] of malformed) toServer.write(`${JSON.stringify({ jsonrpc: '2.0', id, ...rest })}\n`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const answers = new Map(lines().map((l) => [l.id, l]));
    for (const [id, , code, message] of malformed) {
      const a = answers.get(id);
      expect(a, id).toBeDefined();
      expect(a?.result, id).toBeUndefined();
      expect(a?.error.code, id).toBe(code);
      expect(a?.error.message, id).toMatch(message);
    }
    const after: any = await client.callTool({ name: 'value', arguments: { kind: 'nested' } });
    expect(after.structuredContent.result_count).toBe(2);
    await client.close();
    await server.close();
  });

  // Regression guard, fixed: a request whose id is neither a string nor an integer was dropped by the SDK's Protocol.
  it('answers a request whose id is neither a string nor an integer with an invalid request, id null', async () => {
    const { client, server, toServer, lines } = await connected();
    for (const id of [null, 1.5, {}, true, []]) toServer.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const refused = lines().filter((l) => l.id === null);
    expect(refused).toHaveLength(5);
    for (const l of refused) expect(l.error).toEqual({ code: -32600, message: 'Invalid Request: id: must be a string or an integer' });
    expect(lines().filter((l) => l.result !== undefined && l.id !== 0 && l.id !== undefined)).toHaveLength(0);
    await client.ping();
    await client.close();
    await server.close();
  });

  it('aborts a call cancelled in flight and sends no answer for it', async () => {
    const { client, server, lines } = await connected();
    const controller = new AbortController();
    const call = client.callTool({ name: 'slow', arguments: { ms: 40, kind: 'nested' } }, undefined, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort('changed my mind');
    await expect(call).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 60));
    const answered = lines().filter((l) => 'result' in l && l.result?.structuredContent?.summary !== undefined);
    expect(answered).toHaveLength(0);
    const after: any = await client.callTool({ name: 'value', arguments: { kind: 'nested' } });
    expect(after.structuredContent.result_count).toBe(2);
    await client.close();
    await server.close();
  });
});
