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
  InitializeRequestSchema,
  isInitializeRequest,
  JSONRPCErrorResponseSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  JSONRPCResultResponseSchema,
  ListToolsRequestSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { isPromiseLike, MemoryError, SERVICE_VERSION, toMemoryError, type Logger, type Surface } from '@memory-service/kernel';
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

/** The tool error for a name the surface does not have. */
function unknownTool(surface: Surface, name: string): ToolResult {
  return errorResult(
    new MemoryError('KERNEL_ERR_TOOL_UNKNOWN', `Unknown tool "${name}"`, {
      field: 'name',
      accepted: surface.tools.map((t) => t.name),
    }),
  );
}

/** Call a tool of the surface and shape its answer; unknown tools and failures become tool errors. */
async function callSurfaceTool(surface: Surface, name: string, args: unknown, signal: AbortSignal | undefined, logger?: Logger): Promise<ToolResult> {
  const tool = surface.get(name);
  if (!tool) return unknownTool(surface, name);
  try {
    return successResult(await tool.invoke(args ?? {}, signal));
  } catch (err) {
    return errorResult(err, logger);
  }
}

type RequestId = string | number;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON-RPC 2.0's error code for a request whose params are not what the method takes. */
const INVALID_PARAMS = -32602;

/**
 * What is wrong with a tools/call's params, or null: a call without a tool name, or with arguments
 * that are not an object, is the caller's error (invalid params, naming the member), where the SDK
 * Server answers it as an internal error with its schema's raw report.
 */
export function toolCallParamsProblem(params: unknown): string | null {
  if (!isObject(params)) return 'params must be an object with the tool name (name) and its arguments (arguments)';
  if (typeof params.name !== 'string') return 'params.name must be a string: the name of a tool from tools/list';
  if (params.arguments !== undefined && !isObject(params.arguments)) return "params.arguments must be an object of the tool's arguments";
  if (params.task !== undefined && !isObject(params.task)) return 'params.task must be an object (task metadata) when given';
  return null;
}

/** The JSON-RPC error answer to a tools/call with malformed params. */
function invalidParams(id: RequestId, problem: string): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code: INVALID_PARAMS, message: `Invalid params: ${problem}` } } as JSONRPCMessage;
}

/**
 * tools/call over stdio, answered without the SDK's Protocol. Through the SDK Server, every call
 * parses the request with the SDK's schemas twice, builds a request context and an abort
 * controller, and parses (copies) the result with the result schema before the message is
 * serialised, with the answer's JSON written twice. Here a plain tools/call (a name, arguments
 * that are an object if given, no progress token, no task) goes straight to the surface, and the
 * answer's line embeds the JSON text successResult already computed as structuredContent. A tool
 * that answers synchronously (most reads) is answered within the same turn, before the stream and
 * microtask work that would otherwise come first; its abort signal is only created if the tool
 * reads it. A call with malformed params is answered here with invalid params. Everything else
 * (initialize, ping, tools/list, notifications, task calls) goes to the SDK Server as before. A notifications/cancelled naming a call in flight here aborts
 * it and its answer is not sent, as the SDK does.
 */
export class DirectToolCalls {
  private readonly inFlight = new Map<RequestId, AbortController>();

  constructor(
    private readonly surface: Surface,
    private readonly write: (line: string) => Promise<void>,
    private readonly logger?: Logger,
  ) {}

  /** Whether the message was taken here; false hands it to the SDK Server. */
  take(message: JSONRPCMessage): boolean {
    const m = message as { method?: unknown; id?: unknown; params?: unknown };
    if (m.method === 'notifications/cancelled') {
      const id = isObject(m.params) ? (m.params.requestId as RequestId | undefined) : undefined;
      const call = id === undefined ? undefined : this.inFlight.get(id);
      if (!call) return false;
      call.abort(isObject(m.params) ? m.params.reason : undefined);
      return true;
    }
    if (m.method !== 'tools/call' || (typeof m.id !== 'string' && typeof m.id !== 'number')) return false;
    const problem = toolCallParamsProblem(m.params);
    if (problem) return this.refuse(m.id, problem);
    const { name, arguments: args, _meta: meta, task } = m.params as { name: string; arguments?: unknown; _meta?: unknown; task?: unknown };
    if (task !== undefined) return false;
    if (meta !== undefined && (!isObject(meta) || meta.progressToken !== undefined)) return false;
    const id = m.id;
    if (this.inFlight.has(id)) return false;
    const tool = this.surface.get(name);
    if (!tool) {
      this.answer(id, unknownTool(this.surface, name));
      return true;
    }
    // The controller is made only when the tool reads its signal, or when the call outlives this
    // turn and a notifications/cancelled can reach it: most answers come within the turn.
    let made: AbortController | undefined;
    const controller = () => (made ??= new AbortController());
    let out: unknown;
    try {
      out = tool.call(args ?? {}, {
        get signal() {
          return controller().signal;
        },
      });
    } catch (err) {
      this.answer(id, errorResult(err, this.logger));
      return true;
    }
    if (!isPromiseLike(out)) {
      this.answer(id, this.shape(out));
      return true;
    }
    const running = controller();
    this.inFlight.set(id, running);
    Promise.resolve(out)
      .then(
        (value) => this.shape(value),
        (err: unknown) => errorResult(err, this.logger),
      )
      .then((result) => {
        if (!running.signal.aborted) this.answer(id, result);
      })
      .finally(() => this.inFlight.delete(id));
    return true;
  }

  /** A tool's value as a result; a value JSON cannot hold (a BigInt, a cycle) becomes a tool error, not a lost answer. */
  private shape(value: unknown): ToolResult {
    try {
      return successResult(value);
    } catch (err) {
      return errorResult(err, this.logger);
    }
  }

  /** Answer a tools/call whose params are malformed with JSON-RPC's invalid params; the message was taken. */
  private refuse(id: RequestId, message: string): true {
    this.write(JSON.stringify(invalidParams(id, message))).catch((err: unknown) =>
      this.logger?.error(`tools/call answer not written: ${(err as Error).message}`),
    );
    return true;
  }

  private answer(id: RequestId, result: ToolResult): void {
    this.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson(result)}}`).catch((err: unknown) =>
      this.logger?.error(`tools/call answer not written: ${(err as Error).message}`),
    );
  }
}

/** The JSON of a tool result; a success's structuredContent is written as the text it already has. */
export function resultJson(result: ToolResult): string {
  const text = result.content[0]?.text;
  if (result.isError || !result.structuredContent || result.content.length !== 1 || typeof text !== 'string') return JSON.stringify(result);
  return `{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}}`;
}

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
  server.setRequestHandler(CallToolRequestSchema, (req, extra) => callSurfaceTool(surface, req.params.name, req.params.arguments, extra.signal, logger));
  return server;
}

/**
 * The transport of the `memory-service` command under stdio: JSON-RPC lines on the process's
 * stdin and stdout (or the given streams), with plain tools/call requests answered directly from
 * the surface (see DirectToolCalls) and every other message handled by the SDK Server.
 */
export function stdioTransport(surface: Surface, logger?: Logger, streams: { stdin?: Readable; stdout?: Writable } = {}): Transport {
  const refuse = (id: RequestId | null, code: number, message: string) => {
    transport.writeLine(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })).catch((err: unknown) => logger?.error(`answer not written: ${(err as Error).message}`));
    return true as const;
  };
  const transport: StdioTransport = new StdioTransport({ ...streams, take: (message) => direct.take(message) || refuseMalformedRequest(message, refuse) });
  const direct = new DirectToolCalls(surface, (line) => transport.writeLine(line), logger);
  return transport;
}

/**
 * Answer a request (a method and a string or integer id) that the SDK's JSON-RPC request schema
 * refuses, naming the member: the SDK's Protocol drops a message it cannot classify without a word
 * (a `_meta` that is not an object, a progress token that is neither a string nor an integer, params
 * that are not an object, an unknown top-level member), and its client waited for an answer for ever.
 * Only messages handed on to the SDK Server are checked, and they are few (initialize, tools/list, ping,
 * progress-token calls): a plain tools/call was answered before this.
 */
function refuseMalformedRequest(message: JSONRPCMessage, refuse: (id: RequestId | null, code: number, message: string) => true): boolean {
  const m = message as { method?: unknown; id?: unknown };
  if (typeof m.method !== 'string') return false;
  if (!(typeof m.id === 'string' || Number.isInteger(m.id))) {
    // A method with an id that is neither (null, a fraction, an object) was dropped by the SDK's
    // Protocol without an answer too; a notification has no id member.
    return 'id' in m && refuse(null, -32600, 'Invalid Request: id: must be a string or an integer');
  }
  const parsed = JSONRPCRequestSchema.safeParse(message);
  if (parsed.success) return false;
  const problem = schemaProblem(parsed.error.issues[0]!, '');
  return refuse(m.id as RequestId, problem.code, problem.message);
}

interface SchemaIssue {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
}

/** A schema's first issue as a JSON-RPC error naming the member (`prefix`: where the message is in a batch). */
function schemaProblem(issue: SchemaIssue, prefix: string): { code: number; message: string } {
  const path = [...issue.path, ...(issue.code === 'unrecognized_keys' && issue.keys ? [issue.keys.join(', ')] : [])].map(String);
  const where = prefix + (path.join('.') || 'the message');
  const inParams = issue.path[0] === 'params';
  // The id's schema is a union, whose issue says only "Invalid input".
  const what = path.length === 1 && path[0] === 'id' ? 'must be a string or an integer' : issue.message;
  return { code: inParams ? INVALID_PARAMS : -32600, message: `${inParams ? 'Invalid params' : 'Invalid Request'}: ${where}: ${what}` };
}

/**
 * The error answer to a POST /mcp body (one message or a batch) the SDK's JSON-RPC schemas refuse,
 * naming the member, or null when every message passes. The SDK's transport answers such a body
 * with a bare -32700 "Parse error: Invalid JSON-RPC message" (for JSON that parsed) with id null,
 * naming nothing; stdio names the member (refuseMalformedRequest). An initialize is also checked
 * with its own schema: one the SDK does not take as an initialize was answered "no session; send
 * initialize first".
 */
export function malformedBody(body: unknown): { jsonrpc: '2.0'; id: RequestId | null; error: { code: number; message: string } } | null {
  const batch = Array.isArray(body);
  const refuse = (id: unknown, problem: { code: number; message: string }) => ({
    jsonrpc: '2.0' as const,
    id: typeof id === 'string' || Number.isInteger(id) ? (id as RequestId) : null,
    error: problem,
  });
  if (batch && body.length === 0) return refuse(null, { code: -32600, message: 'Invalid Request: the batch is empty' });
  const messages: unknown[] = batch ? body : [body];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    const prefix = batch ? `[${i}].` : '';
    if (!isObject(m) || m.jsonrpc !== '2.0') {
      const message = `Invalid Request: ${batch ? `[${i}] ` : ''}must be a JSON-RPC 2.0 message object with "jsonrpc": "2.0"${batch ? '' : ', or a batch (list) of them'}`;
      return refuse(isObject(m) ? m.id : null, { code: -32600, message });
    }
    const schema = 'method' in m ? ('id' in m ? JSONRPCRequestSchema : JSONRPCNotificationSchema) : 'error' in m ? JSONRPCErrorResponseSchema : JSONRPCResultResponseSchema;
    let issues = schema.safeParse(m).error?.issues;
    if (!issues && m.method === 'initialize') issues = InitializeRequestSchema.safeParse(m).error?.issues;
    if (issues) return refuse(m.id, schemaProblem(issues[0] as SchemaIssue, prefix));
  }
  return null;
}

export interface HttpSession {
  transport: StreamableHTTPServerTransport;
  server: Server;
  /**
   * Reserve the request ids of a POST body (one message or a batch) before the transport reads it:
   * `reused` is an id that a request of this session not yet answered already has, or that the
   * body gives twice (nothing is reserved then). `release` frees the ids the transport did not
   * take as requests (a body it refused); call it once it has handled the POST.
   */
  claimIds(body: unknown): { reused?: RequestId; release: () => void };
  /** Whether a request of this session is running (received, or reserved by claimIds, and not yet answered). */
  busy(): boolean;
}

/** Whether a JSON-RPC message is a request: a method and an id that is a string or a number. */
export const isRequest = (m: unknown): m is { method: string; id: RequestId } =>
  isObject(m) && typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number');

/** A streamable HTTP transport with a session id, wired to a fresh SDK Server for the surface. */
export async function openHttpSession(
  surface: Surface,
  logger: Logger,
  onOpen: (id: string, session: HttpSession) => void,
  onClose: (id: string) => void,
): Promise<HttpSession> {
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const server = createMcpServer(surface, logger);
  // The ids of the requests taken and not yet answered, and those reserved by a POST the transport
  // has not read yet. The SDK's transport routes an answer to the HTTP response of the request
  // with its id: a second request with the id of one still running took its route, and the first
  // was never answered (its response stayed open).
  const inFlight = new Set<RequestId>();
  const claimed = new Set<RequestId>();
  const claimIds = (body: unknown): { reused?: RequestId; release: () => void } => {
    const ids = new Set<RequestId>();
    for (const m of Array.isArray(body) ? body : [body]) {
      if (!isRequest(m)) continue;
      if (inFlight.has(m.id) || claimed.has(m.id) || ids.has(m.id)) return { reused: m.id, release: () => undefined };
      ids.add(m.id);
    }
    for (const id of ids) claimed.add(id);
    return { release: () => ids.forEach((id) => claimed.delete(id)) };
  };
  const busy = () => inFlight.size > 0 || claimed.size > 0;
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
    onsessioninitialized: (id) => onOpen(id, { transport, server, claimIds, busy }),
  });
  const sendMessage = transport.send.bind(transport);
  transport.send = (message, options) => {
    const m = message as { method?: unknown; id?: unknown };
    if (m.method === undefined && (typeof m.id === 'string' || typeof m.id === 'number')) inFlight.delete(m.id);
    return sendMessage(message, options);
  };
  transport.onclose = () => {
    if (transport.sessionId) onClose(transport.sessionId);
  };
  await server.connect(transport);
  // As under stdio (DirectToolCalls): a tools/call with malformed params is answered with invalid
  // params here, before the SDK Server would answer it as an internal error.
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const m = message as { method?: unknown; id?: unknown; params?: unknown };
    // An id is in flight until its request is answered; a cancelled one is not (the SDK drops its answer).
    if (isRequest(message)) {
      claimed.delete(message.id);
      inFlight.add(message.id);
    } else if (m.method === 'notifications/cancelled' && isObject(m.params)) inFlight.delete(m.params.requestId as RequestId);
    const problem = m.method === 'tools/call' && (typeof m.id === 'string' || typeof m.id === 'number') ? toolCallParamsProblem(m.params) : null;
    if (problem === null) return deliver?.(message, extra);
    transport.send(invalidParams(m.id as RequestId, problem)).catch((err: unknown) => logger.error(`tools/call answer not written: ${(err as Error).message}`));
  };
  return { transport, server, claimIds, busy };
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
