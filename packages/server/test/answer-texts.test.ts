import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Surface, SurfaceTool } from '@memory-service/kernel';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AnswerTexts, createMcpServer, stdioTransport, successResult } from '../src/mcp-adapter.js';
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

/** The message the SDK's Server sends for a result: validated (copied) with the SDK's schema. */
function answerMessage(result: unknown, id: number | string = 7): JSONRPCMessage {
  return { result: CallToolResultSchema.parse(result), jsonrpc: '2.0', id } as JSONRPCMessage;
}

describe('AnswerTexts', () => {
  for (const [name, make] of Object.entries(VALUES)) {
    it(`writes the same bytes as JSON.stringify for a ${name} value`, () => {
      const texts = new AnswerTexts();
      const result = successResult(make());
      texts.keep(result);
      const message = answerMessage(result);
      const line = texts.line(message);
      const plain = JSON.stringify(message);
      if (line !== undefined) expect(line).toBe(plain);
      expect(JSON.parse(line ?? plain)).toEqual(JSON.parse(plain));
      expect(texts.size).toBe(line === undefined ? 1 : 0);
    });
  }

  it('takes the shortcut for plain values and leaves a value with a toJSON of its own to JSON.stringify', () => {
    const taken = (value: unknown) => {
      const texts = new AnswerTexts();
      const result = successResult(value);
      texts.keep(result);
      return texts.line(answerMessage(result)) !== undefined;
    };
    expect(taken(VALUES.nested!())).toBe(true);
    expect(taken(VALUES.dropped!())).toBe(true);
    expect(taken(VALUES.primitive!())).toBe(true);
    expect(taken(VALUES.nestedClass!())).toBe(true);
    expect(taken(VALUES.withToJSON!())).toBe(false);
    expect(taken(VALUES.protoKey!())).toBe(false);
  });

  it('writes a result sent as it was made (not copied) as JSON.stringify does, toJSON included', () => {
    const texts = new AnswerTexts();
    const result = successResult(new Temperature(20));
    texts.keep(result);
    const message = { result, jsonrpc: '2.0', id: 1 } as JSONRPCMessage;
    expect(texts.line(message)).toBe(JSON.stringify(message));
    expect(JSON.parse(JSON.stringify(message)).result.structuredContent).toEqual({ fahrenheit: 68 });
  });

  it('gives nothing for a message whose structuredContent is not the kept value', () => {
    const texts = new AnswerTexts();
    const result = successResult({ a: { deep: 1 }, b: 2 });
    texts.keep(result);
    // Same text, but a structuredContent that is not a copy of the kept value.
    const other = { content: result.content, structuredContent: { a: { deep: 1 }, b: 2 } };
    expect(texts.line(answerMessage(other))).toBeUndefined();
    const reordered = { content: result.content, structuredContent: { b: 2, a: result.structuredContent!.a } };
    expect(texts.line(answerMessage(reordered))).toBeUndefined();
    expect(texts.size).toBe(1);
    // Other messages are left to JSON.stringify.
    expect(texts.line({ jsonrpc: '2.0', id: 1, result: {} })).toBeUndefined();
    expect(texts.line({ jsonrpc: '2.0', id: 1, error: { code: 1, message: 'x' } })).toBeUndefined();
    expect(texts.line(answerMessage(result))).toBe(JSON.stringify(answerMessage(result)));
    expect(texts.size).toBe(0);
  });

  it('matches answers with the same text to their own values, in any order', () => {
    const texts = new AnswerTexts();
    const first = successResult({ list: [1] });
    const second = successResult({ list: [1] });
    texts.keep(first);
    texts.keep(second);
    const m2 = answerMessage(second, 2);
    const m1 = answerMessage(first, 1);
    expect(texts.line(m2)).toBe(JSON.stringify(m2));
    expect(texts.line(m1)).toBe(JSON.stringify(m1));
    expect(texts.size).toBe(0);
  });

  it('keeps at most its limit of texts, dropping the oldest', () => {
    const texts = new AnswerTexts(3);
    const results = [1, 2, 3, 4].map((n) => successResult({ n: [n] }));
    for (const r of results) texts.keep(r);
    expect(texts.size).toBe(3);
    expect(texts.line(answerMessage(results[0]))).toBeUndefined();
    expect(texts.line(answerMessage(results[3]))).toBe(JSON.stringify(answerMessage(results[3])));
  });
});

describe('tools/call answers over the stdio transport', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  function fakeSurface(): Surface {
    const tool = (name: string, invoke: (args: any) => unknown): SurfaceTool => ({
      name,
      title: name,
      description: name,
      inputSchema: { type: 'object' },
      annotations: { title: name, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      invoke: async (args) => invoke(args),
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
    ];
    return { exposure: {} as Surface['exposure'], meta: false, tools, get: (name) => tools.find((t) => t.name === name) };
  }

  it('sends each answer as the bytes JSON.stringify gives for the message, and a client reads structuredContent as the text', async () => {
    const lines = vi.spyOn(AnswerTexts.prototype, 'line');
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    const server = createMcpServer(fakeSurface());
    await server.connect(stdioTransport({ stdin: toServer, stdout: toClient }));
    const wire: string[] = [];
    toClient.on('data', (d) => wire.push(String(d)));
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StdioTransport({ stdin: toClient, stdout: toServer }));

    for (const kind of Object.keys(VALUES)) {
      const res: any = await client.callTool({ name: 'value', arguments: { kind } });
      expect(res.isError, kind).toBeFalsy();
      // The SDK's validation drops a "__proto__" key from structuredContent (and always did).
      if (kind !== 'protoKey') expect(res.structuredContent, kind).toEqual(JSON.parse(res.content[0].text));
    }
    // Answers finishing out of order, some with the same text.
    const slow = await Promise.all(
      [30, 10, 20, 0].map((ms, i) => client.callTool({ name: 'slow', arguments: { ms, kind: i % 2 ? 'nested' : 'keyOrder' } })),
    );
    for (const res of slow as any[]) expect(res.structuredContent).toEqual(JSON.parse(res.content[0].text));
    const failed: any = await client.callTool({ name: 'fails', arguments: {} });
    expect(failed.isError).toBe(true);
    const unknown: any = await client.callTool({ name: 'nope', arguments: {} });
    expect(JSON.parse(unknown.content[0].text).error.code).toBe('KERNEL_ERR_TOOL_UNKNOWN');
    await client.ping();

    // Every line the shortcut wrote is exactly what JSON.stringify writes for that message.
    let taken = 0;
    for (const [i, call] of lines.mock.calls.entries()) {
      const got = lines.mock.results[i]!.value as string | undefined;
      if (got === undefined) continue;
      taken++;
      expect(got).toBe(JSON.stringify(call[0]));
    }
    // All but the own toJSON and the __proto__ key.
    expect(taken).toBe(Object.keys(VALUES).length - 2 + slow.length);
    // What went over the wire parses to what the plain path gives.
    const sent = wire.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const plain = lines.mock.calls.map((c) => JSON.parse(JSON.stringify(c[0])));
    for (const p of plain) expect(sent).toContainEqual(p);
    await client.close();
    await server.close();
  });
});
