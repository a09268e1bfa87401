/**
 * A zero-work MCP server over stdio, for the benchmark only: JSON-RPC 2.0 written by hand (no SDK,
 * no store), with one tool, `noop`, that answers at once. Timed against the reference, it gives the
 * best ratio any stdio MCP server can show on the machine: whatever a real server does, it also
 * pays this round trip (the client, the pipes, the wake-ups).
 *
 * Run it as a script (`node dist/floor-server.js`); `answer` is exported for tests.
 */
import { fileURLToPath } from 'node:url';

export const FLOOR_TOOL = 'noop';
const LATEST_PROTOCOL = '2025-06-18';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Id = string | number | null;

const ok = (id: Id, result: Json) => JSON.stringify({ jsonrpc: '2.0', id, result });
const fail = (id: Id, code: number, message: string) => JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });

const TOOL_LIST: Json = {
  tools: [
    {
      name: FLOOR_TOOL,
      description: 'Does nothing and answers at once (benchmark floor).',
      inputSchema: { type: 'object', properties: {} },
    },
  ],
};

const NOOP_RESULT: Json = { content: [{ type: 'text', text: '{}' }], structuredContent: {} };

/** The response line to one request line, or null for a notification or a response. */
export function answer(line: string): string | null {
  let msg: unknown;
  try {
    msg = JSON.parse(line);
  } catch {
    return fail(null, -32700, 'Parse error: each line must be one JSON-RPC message');
  }
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) return fail(null, -32600, 'Invalid request: expected a JSON object');
  const m = msg as { id?: unknown; method?: unknown; params?: unknown };
  if (m.id === undefined) return null;
  const id: Id = typeof m.id === 'string' || typeof m.id === 'number' ? m.id : null;
  if (typeof m.method !== 'string') return 'result' in m || 'error' in m ? null : fail(id, -32600, 'Invalid request: method must be a string');
  const params = (typeof m.params === 'object' && m.params !== null ? m.params : {}) as Record<string, unknown>;
  switch (m.method) {
    case 'initialize':
      return ok(id, {
        protocolVersion: typeof params.protocolVersion === 'string' ? params.protocolVersion : LATEST_PROTOCOL,
        capabilities: { tools: {} },
        serverInfo: { name: 'bench-floor', version: '0.1.0' },
      });
    case 'ping':
      return ok(id, {});
    case 'tools/list':
      return ok(id, TOOL_LIST);
    case 'tools/call':
      return params.name === FLOOR_TOOL ? ok(id, NOOP_RESULT) : fail(id, -32602, `Unknown tool: ${String(params.name)}; this server has only ${FLOOR_TOOL}`);
    default:
      return fail(id, -32601, `Method not found: ${m.method}`);
  }
}

/** Answer every line of input on output, until input ends. */
export function serve(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): void {
  let pending = '';
  input.setEncoding('utf8');
  input.on('data', (chunk: string) => {
    pending += chunk;
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl).trim();
      pending = pending.slice(nl + 1);
      if (!line) continue;
      const reply = answer(line);
      if (reply !== null) output.write(`${reply}\n`);
    }
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) serve(process.stdin, process.stdout);
