/**
 * The one place the MCP SDK's values are used on the server side: a surface of tools becomes an
 * SDK Server, and the transports are created here (the SDK's for HTTP and in-process; under stdio,
 * stdio-session.ts answers the handshake and plain tool calls itself (direct-calls.ts) and loads
 * this module for anything else, connecting the SDK Server through attachSdkServer). An SDK
 * upgrade touches this file, direct-calls.ts (the protocol versions, checked by a test) and
 * stdio-transport.ts only.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  InitializeRequestSchema,
  isInitializeRequest,
  JSONRPCErrorResponseSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  JSONRPCResultResponseSchema,
  ListToolsRequestSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { z, type Logger, type Surface } from '@memory-service/kernel';
import {
  callSurfaceTool,
  internalError,
  INVALID_PARAMS,
  invalidParams,
  isObject,
  SERVER_CAPABILITIES,
  SERVER_INFO,
  SERVER_INSTRUCTIONS,
  toolCallParamsProblem,
  toolsList,
  writeAnswer,
  type RequestId,
} from './direct-calls.js';
import { StdioTransport } from './stdio-transport.js';

export type { Transport };

/**
 * tools/call as its handler reads it. The SDK Server still checks each request with its own
 * CallToolRequestSchema before the handler runs, but hands the handler what this schema parsed:
 * the arguments as sent. The SDK's schema parses them as a record, which drops a `__proto__` key
 * without a word; the kernel refuses that key, naming its path (kernel proto-keys.ts), as it does
 * for a call answered without the SDK under stdio.
 */
const CallToolAsSentSchema = z.object({
  method: z.literal('tools/call'),
  params: z.looseObject({ name: z.string(), arguments: z.unknown().optional() }),
});

/** An SDK Server answering tools/list and tools/call from the surface. */
export function createMcpServer(surface: Surface, logger?: Logger): Server {
  // Copies: the SDK keeps (and may merge into) what it is given.
  const server = new Server({ ...SERVER_INFO }, { capabilities: { tools: { ...SERVER_CAPABILITIES.tools } }, instructions: SERVER_INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    try {
      const list = toolsList(surface, logger);
      // A value JSON cannot hold would only fail in the transport's send, where the SDK logs nothing
      // and answers nothing: it is found here, and answered as the error below.
      JSON.stringify(list);
      return list as { tools: { name: string; inputSchema: { type: 'object' } }[] };
    } catch (err) {
      // The SDK answers with the thrown error's code and message; the failure is logged here.
      const { error } = internalError(null, 'tools/list', err, logger) as { error: { code: number; message: string } };
      throw Object.assign(new Error(error.message), { code: error.code });
    }
  });
  server.setRequestHandler(CallToolAsSentSchema, (req, extra) => callSurfaceTool(surface, req.params.name, req.params.arguments, extra.signal, logger));
  return server;
}

/** The SDK Server's side of a stdio session (stdio-session.ts). */
export interface SdkLink {
  /** Hand over a message the session does not answer itself. */
  deliver(message: JSONRPCMessage): void;
  /** Tell the SDK Server the transport has closed. */
  closed(): void;
}

/**
 * Connect an SDK Server to a stdio transport the session has started and reads: the session hands
 * over each message it does not answer itself (initialize with extra members, a tools/call with a
 * progress token or a task, methods this server does not have, notifications/cancelled of the
 * SDK's requests...) and the SDK Server answers through the transport. A request the SDK's
 * JSON-RPC schema refuses is answered here, naming the member (refuseMalformedRequest).
 */
export async function attachSdkServer(surface: Surface, logger: Logger | undefined, transport: StdioTransport): Promise<SdkLink> {
  const server = createMcpServer(surface, logger);
  const link: Transport = {
    // The session started the transport: the SDK Server's connect() starts nothing.
    start: async () => undefined,
    send: (message) => transport.send(message),
    close: () => transport.close(),
  };
  await server.connect(link);
  const refuse = (id: RequestId | null, code: number, message: string) => {
    writeAnswer((line) => transport.writeLine(line), JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }), logger);
    return true as const;
  };
  return {
    deliver: (message) => {
      if (!refuseMalformedRequest(message, refuse)) link.onmessage?.(message);
    },
    closed: () => link.onclose?.(),
  };
}

/**
 * Answer a request (a method and a string or integer id) that the SDK's JSON-RPC request schema
 * refuses, naming the member: the SDK's Protocol drops a message it cannot classify without a word
 * (a `_meta` that is not an object, a progress token that is neither a string nor an integer, params
 * that are not an object, an unknown top-level member), and its client waited for an answer for ever.
 * Only messages handed on to the SDK Server are checked, and they are few: the handshake and plain
 * tool calls were answered before this.
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

/** The JSON-RPC error code of a request the client cancelled, as LSP numbers it (JSON-RPC names none). */
export const REQUEST_CANCELLED = -32800;

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
    let cancelled: RequestId | undefined;
    if (isRequest(message)) {
      claimed.delete(message.id);
      inFlight.add(message.id);
    } else if (m.method === 'notifications/cancelled' && isObject(m.params)) {
      const id = m.params.requestId as RequestId;
      if (inFlight.delete(id)) cancelled = id;
    }
    const problem = m.method === 'tools/call' && (typeof m.id === 'string' || typeof m.id === 'number') ? toolCallParamsProblem(m.params) : null;
    if (problem === null) {
      deliver?.(message, extra);
      // The SDK aborts the cancelled request and sends nothing for it, and its transport ends a
      // POST's event stream only once every request in it is answered: the stream stayed open for
      // ever (a connection per cancelled call, and a stop that waited out its drain). An error for
      // the id ends it; a client that cancelled ignores what comes for the id afterwards.
      if (cancelled !== undefined) {
        transport.send({ jsonrpc: '2.0', id: cancelled, error: { code: REQUEST_CANCELLED, message: 'Request cancelled (notifications/cancelled named it): no result follows' } }).catch(() => {
          // Answered or its stream gone meanwhile: nothing is left to end.
        });
      }
      return;
    }
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
