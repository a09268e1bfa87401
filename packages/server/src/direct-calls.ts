/**
 * What the stdio session answers without the MCP SDK (stdio-session.ts), and the tool-result shapes
 * the SDK Server's handlers share with it (mcp-adapter.ts): no value is imported from the SDK here,
 * so a start under stdio does not evaluate the SDK's modules (its protocol schemas took about
 * 20 ms of every start) unless a message only the SDK Server answers arrives.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isPromiseLike, MemoryError, SERVICE_VERSION, toMemoryError, type Logger, type Surface, type SurfaceTool } from '@memory-service/kernel';

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

/**
 * Shape an error as an MCP tool error whose JSON names the type, code, field and accepted values.
 * A tool failure is logged with its stack; a storage failure (KERNEL_ERR_STORAGE: the disk full,
 * memory.db moved, ...) or a write that gave up on another process's write lock (KERNEL_ERR_BUSY) as
 * one line, since its message names the file and what to do and its stack is the same for every
 * call (a full disk gave 11 lines per failed think).
 */
export function errorResult(err: unknown, logger?: Logger, tool?: string): ToolResult {
  const e = toMemoryError(err);
  if ((e.code === 'KERNEL_ERR_TOOL_FAILED' || e.code === 'KERNEL_ERR_STORAGE' || e.code === 'KERNEL_ERR_BUSY') && logger) {
    const cause = (e as { cause?: unknown }).cause;
    // The line names the tool and its plugin: a bare message ("tool failed: a bare string") named neither.
    const who = [tool && `tool ${tool}`, e.plugin && `plugin ${e.plugin}`].filter(Boolean).join(', ');
    const what = e.code === 'KERNEL_ERR_STORAGE' ? 'storage failure' : e.code === 'KERNEL_ERR_BUSY' ? 'database busy' : 'tool failed';
    const detail = e.code === 'KERNEL_ERR_TOOL_FAILED' && cause instanceof Error && cause.stack ? cause.stack : e.message;
    logger.error(`${what}${who ? ` (${who})` : ''}: ${detail}`);
  }
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: e.toJSON() }) }] };
}

/** The tool error for a name the surface does not have. */
export function unknownTool(surface: Surface, name: string): ToolResult {
  return errorResult(
    new MemoryError('KERNEL_ERR_TOOL_UNKNOWN', `Unknown tool "${name}"`, {
      field: 'name',
      accepted: surface.tools.map((t) => t.name),
    }),
  );
}

/** Call a tool of the surface and shape its answer; unknown tools and failures become tool errors. */
export async function callSurfaceTool(surface: Surface, name: string, args: unknown, signal: AbortSignal | undefined, logger?: Logger): Promise<ToolResult> {
  const tool = surface.get(name);
  if (!tool) return unknownTool(surface, name);
  try {
    return successResult(await tool.invoke(args ?? {}, signal));
  } catch (err) {
    return errorResult(err, logger, name);
  }
}

export type RequestId = string | number;

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON-RPC 2.0's error code for a request whose params are not what the method takes. */
export const INVALID_PARAMS = -32602;

/** JSON-RPC 2.0's error code for a failure inside the server. */
export const INTERNAL_ERROR = -32603;

/** What was thrown, in words: an error's message, else the value as a string (never throws). */
export function thrownMessage(err: unknown): string {
  try {
    return err instanceof Error ? err.message : String(err);
  } catch {
    return 'a value that cannot be shown';
  }
}

/** What was thrown, for the log: an error's stack when it has one. */
function thrownDetail(err: unknown): string {
  try {
    return err instanceof Error && err.stack ? err.stack : thrownMessage(err);
  } catch {
    return thrownMessage(err);
  }
}

/**
 * The JSON-RPC internal error answering a request whose answer could not be built (`method`: what
 * was asked, `err`: what was thrown), logged with its stack: a request the server answers itself is
 * answered, never left waiting for an answer that will not come.
 */
export function internalError(id: RequestId | null, method: string, err: unknown, logger: Logger | undefined): JSONRPCMessage {
  logger?.error(`${method} could not be answered: ${thrownDetail(err)}`);
  const message = `Internal error: ${method} could not be answered: ${thrownMessage(err)}`;
  return { jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message } } as JSONRPCMessage;
}

/** The method of a message, for an error about it. */
export const methodOf = (message: unknown): string => {
  const method = isObject(message) ? message.method : undefined;
  return typeof method === 'string' ? method : 'the request';
};

/** The id of a message that is a request (a method and a string or number id), else undefined. */
export const requestIdOf = (message: unknown): RequestId | undefined => {
  if (!isObject(message) || typeof message.method !== 'string') return undefined;
  const id = message.id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
};

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
export function invalidParams(id: RequestId, problem: string): JSONRPCMessage {
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
 * (progress-token and task calls, other methods and notifications) goes to DirectHandshake or the
 * SDK Server (stdio-session.ts). A notifications/cancelled naming a call in flight here aborts it
 * and its answer is not sent, as the SDK does.
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
      this.answer(id, () => unknownTool(this.surface, name));
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
      this.answer(id, () => errorResult(err, this.logger, name));
      return true;
    }
    if (!isPromiseLike(out)) {
      this.answer(id, () => this.shape(out));
      return true;
    }
    const running = controller();
    this.inFlight.set(id, running);
    // answer() never throws, so the chain cannot reject: the call is answered whatever it settled with.
    const settle = (result: () => ToolResult) => {
      this.inFlight.delete(id);
      if (!running.signal.aborted) this.answer(id, result);
    };
    Promise.resolve(out).then(
      (value) => settle(() => this.shape(value)),
      (err: unknown) => settle(() => errorResult(err, this.logger, name)),
    );
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
    writeAnswer(this.write, JSON.stringify(invalidParams(id, message)), this.logger);
    return true;
  }

  /**
   * Answer the call with the result `result` builds; when building or writing it throws (an error
   * value whose JSON cannot be written, say), the call is answered with an internal error instead.
   */
  private answer(id: RequestId, result: () => ToolResult): void {
    let line: string;
    try {
      line = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson(result())}}`;
    } catch (err) {
      line = JSON.stringify(internalError(id, 'tools/call', err, this.logger));
    }
    writeAnswer(this.write, line, this.logger);
  }
}

/** Write one answer line; one that cannot be written (the client has gone) is logged, not thrown. */
export function writeAnswer(write: (line: string) => Promise<void>, line: string, logger: Logger | undefined): void {
  const failed = (err: unknown) => logger?.error(`answer not written: ${thrownMessage(err)}`);
  let written: Promise<void>;
  try {
    written = write(line);
  } catch (err) {
    failed(err);
    return;
  }
  written.catch(failed);
}

/** The JSON of a tool result; a success's structuredContent is written as the text it already has. */
export function resultJson(result: ToolResult): string {
  const text = result.content[0]?.text;
  if (result.isError || !result.structuredContent || result.content.length !== 1 || typeof text !== 'string') return JSON.stringify(result);
  return `{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}}`;
}

/** What the server says of itself in its initialize answer. */
export const SERVER_INFO = Object.freeze({ name: 'memory-service', version: SERVICE_VERSION });
export const SERVER_CAPABILITIES = Object.freeze({ tools: Object.freeze({ listChanged: false }) });

/**
 * The protocol versions of the SDK this server is built with (its types.js LATEST_PROTOCOL_VERSION
 * and SUPPORTED_PROTOCOL_VERSIONS), copied so that answering initialize loads none of the SDK; a
 * test checks them against the SDK's, so an SDK upgrade that changes them fails until they follow.
 */
export const LATEST_PROTOCOL_VERSION = '2025-11-25';
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([LATEST_PROTOCOL_VERSION, '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07']);

/**
 * The answer to tools/list: every tool of the surface, as the SDK Server's handler gives it too.
 * A tool whose JSON schema cannot be built (a plugin's lazy schema that throws) is left out and
 * named on the logger, once per tool; the others are listed.
 */
export function toolsList(surface: Surface, logger?: Logger): { tools: Record<string, unknown>[] } {
  const tools: Record<string, unknown>[] = [];
  for (const t of surface.tools) {
    try {
      tools.push(listedTool(t));
    } catch (err) {
      // One tool whose schema cannot be built (a third party's lazy schema that throws) is left out,
      // said once on stderr; the others are listed, and calls of it answer the same error.
      if (!unlisted.has(t)) logger?.error(`tools/list leaves out ${t.name}: ${thrownMessage(err)}`);
      unlisted.add(t);
    }
  }
  return { tools };
}

/** The tools tools/list has left out and said so. */
const unlisted = new WeakSet<SurfaceTool>();

/** One tool as tools/list gives it. */
function listedTool(t: SurfaceTool): Record<string, unknown> {
  const schema = (key: 'inputSchema' | 'outputSchema') => {
    try {
      return t[key];
    } catch (err) {
      // The kernel's own refusal already names the tool, its plugin and the schema.
      if (err instanceof MemoryError) throw err;
      throw new Error(`the ${key} of tool "${t.name}" could not be built as JSON Schema: ${thrownMessage(err)}`, { cause: err });
    }
  };
  const inputSchema = schema('inputSchema');
  const outputSchema = schema('outputSchema');
  return {
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: inputSchema as { type: 'object' },
    ...(outputSchema ? { outputSchema: outputSchema as { type: 'object' } } : {}),
    annotations: t.annotations,
  };
}

/** The members a JSON-RPC request may have; a message with another goes to the SDK, which names it. */
const REQUEST_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params']);

/** Whether `m` is a request with a string or integer id and only the members a request has. */
function plainRequest(m: Record<string, unknown>): boolean {
  if (!(typeof m.id === 'string' || Number.isInteger(m.id))) return false;
  for (const key in m) if (!REQUEST_MEMBERS.has(key)) return false;
  return true;
}

/** No params, or params with no member. */
const noParams = (params: unknown): boolean => params === undefined || (isObject(params) && Object.keys(params).length === 0);

/** Whether every value of the object is a string. */
const allStrings = (o: Record<string, unknown>): boolean => Object.values(o).every((v) => typeof v === 'string');

/**
 * An initialize whose params the SDK's schema takes as they are: a protocol version, client
 * capabilities that are each an object, and client info of strings naming the client and its
 * version. Anything else (a _meta, icons, a capability that is not an object, a missing member)
 * is left to the SDK Server, which answers it or names what is wrong, as before.
 */
function plainInitialize(params: unknown): params is { protocolVersion: string } {
  if (!isObject(params)) return false;
  for (const key in params) if (key !== 'protocolVersion' && key !== 'capabilities' && key !== 'clientInfo') return false;
  const { protocolVersion, capabilities, clientInfo } = params;
  if (typeof protocolVersion !== 'string' || !isObject(capabilities) || !isObject(clientInfo)) return false;
  if (!Object.values(capabilities).every(isObject)) return false;
  return typeof clientInfo.name === 'string' && typeof clientInfo.version === 'string' && allStrings(clientInfo);
}

/**
 * The session's own answers to the handshake: a plain initialize (the SDK Server's answer: the
 * client's protocol version when supported, else the latest; capabilities, server info and
 * instructions), ping, tools/list without params, and the initialized notification (which the SDK
 * Server only passes to a callback this server does not set). take() answers false for anything
 * else: the session hands it to the SDK Server.
 */
export class DirectHandshake {
  constructor(
    private readonly surface: Surface,
    private readonly write: (line: string) => Promise<void>,
    private readonly logger?: Logger,
  ) {}

  take(message: JSONRPCMessage): boolean {
    const m = message as Record<string, unknown>;
    if (m.method === 'notifications/initialized') return !('id' in m) && (m.params === undefined || isObject(m.params));
    if (!plainRequest(m)) return false;
    if (m.method === 'initialize' && plainInitialize(m.params)) {
      const requested = m.params.protocolVersion;
      return this.answer(m.id as RequestId, () => ({
        protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION,
        capabilities: SERVER_CAPABILITIES,
        serverInfo: SERVER_INFO,
        instructions: SERVER_INSTRUCTIONS,
      }), 'initialize');
    }
    if (m.method === 'ping' && noParams(m.params)) return this.answer(m.id as RequestId, () => ({}), 'ping');
    if (m.method === 'tools/list' && noParams(m.params)) return this.answer(m.id as RequestId, () => toolsList(this.surface, this.logger), 'tools/list');
    return false;
  }

  /**
   * Answer `method` with the result `result` builds; when building or serialising it throws, the
   * request is answered with an internal error naming what failed, and the failure is logged.
   */
  private answer(id: RequestId, result: () => unknown, method: string): true {
    let line: string;
    try {
      line = JSON.stringify({ jsonrpc: '2.0', id, result: result() });
    } catch (err) {
      line = JSON.stringify(internalError(id, method, err, this.logger));
    }
    writeAnswer(this.write, line, this.logger);
    return true;
  }
}
