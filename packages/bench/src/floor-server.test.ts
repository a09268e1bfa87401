import { describe, expect, it } from 'vitest';
import { answer, FLOOR_TOOL } from './floor-server.js';
import { McpConnection } from './mcp-connection.js';
import { FLOOR_SERVER } from './paths.js';

describe('the zero-work server', () => {
  it('speaks MCP to the SDK client: handshake, tools/list, noop, ping', async () => {
    const conn = await McpConnection.open({ label: 'floor', script: FLOOR_SERVER, env: {}, timeoutMs: 10_000 });
    try {
      expect(conn.tools).toEqual([FLOOR_TOOL]);
      const result = await conn.call(FLOOR_TOOL, {});
      expect(result.structuredContent).toEqual({});
      expect(result.content).toEqual([{ type: 'text', text: '{}' }]);
      expect(await conn.timedPing()).toBeGreaterThan(0);
      await expect(conn.call('think', { text: 'x' })).rejects.toThrow(/Unknown tool: think/);
    } finally {
      await conn.close();
    }
  });

  it('answers bad lines with JSON-RPC errors and ignores notifications and responses', () => {
    expect(JSON.parse(answer('{not json') ?? '')).toMatchObject({ id: null, error: { code: -32700 } });
    expect(JSON.parse(answer('[1,2]') ?? '')).toMatchObject({ id: null, error: { code: -32600 } });
    expect(JSON.parse(answer('{"jsonrpc":"2.0","id":4,"method":7}') ?? '')).toMatchObject({ id: 4, error: { code: -32600 } });
    expect(JSON.parse(answer('{"jsonrpc":"2.0","id":"a","method":"resources/list"}') ?? '')).toMatchObject({ id: 'a', error: { code: -32601 } });
    expect(answer('{"jsonrpc":"2.0","method":"notifications/initialized"}')).toBeNull();
    expect(answer('{"jsonrpc":"2.0","id":9,"result":{}}')).toBeNull();
  });
});
