/**
 * The one place the MCP SDK is used on the server side: a surface of tools becomes an SDK
 * Server, and the transports are created here (the SDK's for HTTP and in-process, our own for
 * stdio in stdio-transport.ts, which only this file imports). An SDK upgrade touches this file
 * and stdio-transport.ts only.
 */
import type { Readable, Writable } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  isInitializeRequest,
  ListToolsRequestSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { MemoryError, SERVICE_VERSION, toMemoryError, type Logger, type Surface } from '@memory-service/kernel';
import { StdioTransport } from './stdio-transport.js';

export type { Transport };

export const SERVER_INSTRUCTIONS =
  'Memory service. Use think to store anything worth keeping (it routes to the right memory level), ' +
  'dream to recall by query, forget to delete, evolve to change the agent personality, project for project ' +
  'context, memory_hook for lifecycle events and wake_up at the start of a session. Every tool takes layer ' +
  '(user or agent) and user_id to keep namespaces apart.';

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** Shape a tool's value as an MCP result: the JSON both as text content and as structuredContent. */
export function successResult(value: unknown): ToolResult {
  const structured =
    value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { result: value };
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/** Shape an error as an MCP tool error whose JSON names the type, code, field and accepted values. */
export function errorResult(err: unknown, logger?: Logger): ToolResult {
  const e = toMemoryError(err);
  if (e.code === 'KERNEL_ERR_TOOL_FAILED' && logger) {
    const cause = (e as { cause?: unknown }).cause;
    logger.error(`tool failed: ${cause instanceof Error && cause.stack ? cause.stack : e.message}`);
  }
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: e.toJSON() }) }] };
}

/** How many answers a transport's AnswerTexts holds at once; beyond that the oldest lose the shortcut. */
const KEPT_ANSWER_TEXTS = 64;

type JsonObject = Record<string, unknown>;

/** A plain object that JSON.stringify writes as its own enumerable keys (no toJSON of its own or inherited). */
function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && !('toJSON' in value);
}

/** Whether JSON.stringify(copy) is JSON.stringify(original): the same object, or a plain copy with the same keys in the same order and the same values. */
function serialisesAs(copy: unknown, original: JsonObject): boolean {
  if (copy === original) return true;
  if (!isPlainObject(copy) || !isPlainObject(original)) return false;
  const keys = Object.keys(original);
  const copyKeys = Object.keys(copy);
  if (keys.length !== copyKeys.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (copyKeys[i] !== key || !Object.is(copy[key], original[key])) return false;
  }
  return true;
}

/**
 * JSON.stringify(obj) for a plain object, with `raw` written as the JSON of obj[key]. (The other
 * values are written on their own, so a toJSON among them would be called with the key '': the
 * messages given here hold none.)
 */
function jsonWith(obj: JsonObject, key: string, raw: string): string {
  let out = '';
  for (const k of Object.keys(obj)) {
    const json = k === key ? raw : (JSON.stringify(obj[k]) as string | undefined);
    if (json === undefined) continue;
    out += `${out === '' ? '{' : ','}${JSON.stringify(k)}:${json}`;
  }
  return out === '' ? '{}' : `${out}}`;
}

/**
 * The JSON text of each success result on its way out through a transport that writes its own
 * lines (stdio), by text, with the structured value it is the JSON of. A successResult carries its
 * value twice, as JSON text and as structuredContent; serialising the answer's message writes the
 * value a second time (for a 5 KB answer about as long as the first). line() writes the message
 * with the kept text as the JSON of structuredContent instead.
 *
 * The SDK's Server validates a tool's result before sending it, and the validated result is a copy
 * whose structuredContent holds the same keys and values; line() takes the shortcut only when that
 * holds (and gives undefined, for the plain JSON.stringify, otherwise), so the line is byte for
 * byte what JSON.stringify(message) gives.
 */
export class AnswerTexts {
  /**
   * Oldest first. A list, not a Map keyed by text: hashing a fresh 5 KB string costs about half
   * of what the shortcut saves, while finding the text is a comparison of the same string.
   */
  private readonly kept: { text: string; structured: JsonObject }[] = [];

  constructor(private readonly limit = KEPT_ANSWER_TEXTS) {}

  /** Keep a successResult's text until its answer is sent. */
  keep(result: ToolResult): void {
    const text = result.content[0]?.text;
    const structured = result.structuredContent;
    if (typeof text !== 'string' || !structured) return;
    if (this.kept.length >= this.limit) this.kept.shift();
    this.kept.push({ text, structured });
  }

  /** The JSON of an answer whose structuredContent's text is kept (forgetting it); undefined for any other message. */
  line(message: JSONRPCMessage): string | undefined {
    const msg: unknown = message;
    if (this.kept.length === 0 || !isPlainObject(msg)) return undefined;
    const result = msg.result;
    if (!isPlainObject(result)) return undefined;
    const content = result.content;
    if (!Array.isArray(content) || content.length !== 1) return undefined;
    const item = content[0] as { type?: unknown; text?: unknown } | undefined;
    if (item?.type !== 'text' || typeof item.text !== 'string') return undefined;
    const text = item.text;
    for (let i = 0; i < this.kept.length; i++) {
      const entry = this.kept[i]!;
      if (entry.text !== text || !serialisesAs(result.structuredContent, entry.structured)) continue;
      this.kept.splice(i, 1);
      return jsonWith(msg, 'result', jsonWith(result, 'structuredContent', text));
    }
    return undefined;
  }

  /** How many texts wait for their answer (for tests). */
  get size(): number {
    return this.kept.length;
  }
}

/** The AnswerTexts of each transport that writes its lines with them. */
const answerTexts = new WeakMap<Transport, AnswerTexts>();

/** An SDK Server answering tools/list and tools/call from the surface. */
export function createMcpServer(surface: Surface, logger?: Logger): Server {
  const server = new Server(
    { name: 'memory-service', version: SERVICE_VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: SERVER_INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: surface.tools.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema as { type: 'object' },
      ...(t.outputSchema ? { outputSchema: t.outputSchema as { type: 'object' } } : {}),
      annotations: t.annotations,
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const tool = surface.get(req.params.name);
    if (!tool) {
      return errorResult(
        new MemoryError('KERNEL_ERR_TOOL_UNKNOWN', `Unknown tool "${req.params.name}"`, {
          field: 'name',
          accepted: surface.tools.map((t) => t.name),
        }),
      );
    }
    let result: ToolResult;
    try {
      result = successResult(await tool.invoke(req.params.arguments ?? {}, extra.signal));
    } catch (err) {
      return errorResult(err, logger);
    }
    const transport = server.transport;
    if (transport) answerTexts.get(transport)?.keep(result);
    return result;
  });
  return server;
}

/**
 * The transport of the `memory-service` command under stdio: JSON-RPC lines on the process's
 * stdin and stdout (or the given streams). A tool's success answer is written with the JSON
 * text successResult computed (see AnswerTexts).
 */
export function stdioTransport(streams: { stdin?: Readable; stdout?: Writable } = {}): Transport {
  const texts = new AnswerTexts();
  const transport = new StdioTransport({ ...streams, serialize: (message) => texts.line(message) });
  answerTexts.set(transport, texts);
  return transport;
}

export interface HttpSession {
  transport: StreamableHTTPServerTransport;
  server: Server;
}

/** A streamable HTTP transport with a session id, wired to a fresh SDK Server for the surface. */
export async function openHttpSession(
  surface: Surface,
  logger: Logger,
  onOpen: (id: string, session: HttpSession) => void,
  onClose: (id: string) => void,
): Promise<HttpSession> {
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const server = createMcpServer(surface, logger);
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
    onsessioninitialized: (id) => onOpen(id, { transport, server }),
  });
  transport.onclose = () => {
    if (transport.sessionId) onClose(transport.sessionId);
  };
  await server.connect(transport);
  return { transport, server };
}

export { isInitializeRequest };

/** Connect a surface to an in-process transport pair; answers the client's end. */
export async function connectInProcess(surface: Surface, logger?: Logger): Promise<{ clientTransport: Transport; server: Server }> {
  const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const server = createMcpServer(surface, logger);
  await server.connect(serverTransport);
  return { clientTransport, server };
}
