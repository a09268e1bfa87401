/**
 * The one place the MCP SDK is used on the server side: a surface of tools becomes an SDK
 * Server, and the SDK's transports are created here. An SDK upgrade touches this file only.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, isInitializeRequest, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { MemoryError, SERVICE_VERSION, toMemoryError, type Logger, type Surface } from '@memory-service/kernel';

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
    try {
      return successResult(await tool.invoke(req.params.arguments ?? {}, extra.signal));
    } catch (err) {
      return errorResult(err, logger);
    }
  });
  return server;
}

export function stdioTransport(): StdioServerTransport {
  return new StdioServerTransport();
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
