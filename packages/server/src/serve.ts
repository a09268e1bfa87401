/**
 * A service answering MCP on a transport, as the `memory-service` command does: for an integrator
 * who builds the service in code (createService with the plugin set of their choice) and runs
 * their own entry point. The command itself starts through these.
 */
import type { Readable, Writable } from 'node:stream';
import { openStdioSession } from './stdio-session.js';
import type { Service } from './service.js';

export interface StdioServing {
  /**
   * Resolves, with the reason, once the transport has ended: stdin closed (the host is gone) or
   * stdout failed (it stopped reading). The service stays open: close it then.
   */
  readonly ended: Promise<string>;
  /** Stop answering; the service stays open. */
  close(): Promise<void>;
}

/**
 * Answer MCP over stdio (JSON-RPC lines on the process's stdin and stdout, or the given streams)
 * with the service's surface (MEMORY_EXPOSE / MEMORY_META). Nothing but protocol may reach stdout
 * while it runs: log to stderr.
 */
export async function serveStdio(service: Service, streams: { stdin?: Readable; stdout?: Writable } = {}): Promise<StdioServing> {
  let end!: (why: string) => void;
  const ended = new Promise<string>((resolve) => (end = resolve));
  let stdinEnded = false;
  (streams.stdin ?? process.stdin).once('end', () => (stdinEnded = true));
  const session = await openStdioSession(service.surface, service.kernel.logger, streams);
  // The transport closes at the end of stdin, once the requests it had read are handled (it may
  // have been waiting for stdout to drain), and when stdout fails (the client stopped reading).
  session.onclose = () => end(stdinEnded ? 'stdin closed' : 'stdio closed');
  return { ended, close: () => session.close() };
}

export interface HttpServeOptions {
  /** Address to listen on (default 127.0.0.1). */
  host?: string;
  /** Port to listen on (default 8000, as the command's; 0 picks a free one). */
  port?: number;
  /** Also serve the read-only dashboard at /dashboard (default false). */
  dashboard?: boolean;
}

export interface HttpServing {
  /** The address listened on, e.g. http://127.0.0.1:8000 (MCP at /mcp). */
  readonly address: string;
  /** How long close() waits for the requests already received to be answered, in ms. */
  readonly drainMs: number;
  /** Stop listening, answering the requests already received first (up to drainMs); the service stays open. */
  close(): Promise<void>;
}

/**
 * Answer MCP over streamable HTTP at /mcp, with /health, /ready, /alive, POST /api/hooks/:event and /metrics,
 * as `memory-service --transport http` does. Rejects when the address cannot be listened on
 * (the error's `code` is Node's: EADDRINUSE, EADDRNOTAVAIL...); the service stays open.
 */
export async function serveHttp(service: Service, opts: HttpServeOptions = {}): Promise<HttpServing> {
  // fastify loads only for the HTTP transport: a stdio start stays lean.
  const { buildHttpApp, DRAIN_MS } = await import('./http.js');
  const host = opts.host ?? '127.0.0.1';
  const port = opts.port ?? 8000;
  const app = await buildHttpApp(service, { host, port, dashboard: opts.dashboard ?? false });
  let address: string;
  try {
    address = await app.listen({ host, port });
  } catch (err) {
    await app.close().catch(() => {});
    throw err;
  }
  return { address, drainMs: DRAIN_MS, close: () => app.close() };
}
