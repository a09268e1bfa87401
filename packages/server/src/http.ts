import { isUtf8 } from 'node:buffer';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { MemoryError, SERVICE_VERSION, toMemoryError } from '@memory-service/kernel';
import { isInitializeRequest, openHttpSession, type HttpSession } from './mcp-adapter.js';
import { registerDashboard } from './dashboard.js';
import type { Service } from './service.js';

export interface HttpOptions {
  host: string;
  port: number;
  dashboard: boolean;
  /** Largest accepted request body in bytes. */
  bodyLimit?: number;
  /** Most MCP sessions held at once; opening one more closes the one used longest ago. */
  maxSessions?: number;
  /** An MCP session unused for this long is closed. */
  sessionIdleMs?: number;
}

/** Defaults of HttpOptions: sessions held at once, and how long one may sit unused. */
export const MAX_SESSIONS = 1000;
export const SESSION_IDLE_MS = 30 * 60_000;
/** A request whose headers and body have not all arrived after this long is answered 408. */
export const REQUEST_TIMEOUT_MS = 60_000;

/** HTTP status for a coded error: 400 for bad input and unknown events, 404 for unknown things. */
export function statusFor(err: MemoryError): number {
  if (err.code === 'KERNEL_ERR_NOT_FOUND' || err.code === 'KERNEL_ERR_TOOL_UNKNOWN') return 404;
  if (err.code === 'KERNEL_ERR_CLOSED') return 503;
  if (err.code === 'KERNEL_ERR_TOOL_FAILED') return 500;
  return 400;
}

function sendError(reply: FastifyReply, err: unknown): FastifyReply {
  const e = toMemoryError(err);
  return reply.code(statusFor(e)).send({ error: e.toJSON() });
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/** The methods that have a route at `url`'s path (none when the path has no route at all). */
function methodsAt(app: FastifyInstance, url: string): string[] {
  const path = url.split('?')[0]!;
  return METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** The host name of a Host header (`[::1]:3000` -> `[::1]`, `localhost:80` -> `localhost`). */
function hostName(host: string | undefined): string {
  const h = (host ?? '').trim().toLowerCase();
  return h.startsWith('[') ? h.slice(0, h.indexOf(']') + 1) : h.split(':')[0]!;
}

/**
 * A server listening on a loopback address only answers requests made to a loopback name: a page
 * whose own domain was made to resolve to 127.0.0.1 (DNS rebinding) sends its own domain as Host,
 * and as Origin, which the origin rule alone would accept as "the host the request was made to".
 */
function hostAllowed(req: FastifyRequest, listeningOnLoopback: boolean): boolean {
  return !listeningOnLoopback || LOOPBACK.has(hostName(req.headers.host));
}

/** Browsers send Origin; accept only loopback origins or the host the request was made to. */
function originAllowed(req: FastifyRequest): boolean {
  const origin = req.headers.origin;
  if (!origin) return true;
  try {
    const url = new URL(origin);
    const host = (req.headers.host ?? '').split(':')[0];
    return LOOPBACK.has(url.hostname) || url.hostname === host;
  } catch {
    return false;
  }
}

/** The charset a Content-Type names, lower-cased, or undefined when it names none. */
function charsetOf(contentType: string | undefined): string | undefined {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return m ? m[1]!.toLowerCase() : undefined;
}

/** The fastify app: /mcp (streamable HTTP with sessions), health routes and the hook route. */
export async function buildHttpApp(service: Service, opts: HttpOptions): Promise<FastifyInstance> {
  const { kernel } = service;
  const bodyLimit = opts.bodyLimit ?? 4 * 1024 * 1024;
  const app = Fastify({
    logger: false,
    forceCloseConnections: true,
    bodyLimit,
    requestTimeout: REQUEST_TIMEOUT_MS,
    // A URL the router cannot decode answers in the same error shape as everything else.
    frameworkErrors: (err, _req, reply) => {
      void (reply as FastifyReply).code(400).send({ error: { type: 'ValidationError', code: 'KERNEL_ERR_VALIDATION', message: `Invalid URL: ${err.message}`, field: 'url' } });
    },
  });
  /** Open MCP sessions, least recently used first (a use moves a session to the end). */
  const sessions = new Map<string, HttpSession>();
  const maxSessions = opts.maxSessions ?? MAX_SESSIONS;
  const idleMs = opts.sessionIdleMs ?? SESSION_IDLE_MS;
  const lastUse = new Map<string, number>();
  const closeSession = (id: string) => {
    const s = sessions.get(id);
    sessions.delete(id);
    lastUse.delete(id);
    // close() ends the transport, whose onclose removes the session (already gone here).
    if (s) void s.server.close().catch(() => undefined);
  };
  const touch = (id: string) => {
    const s = sessions.get(id);
    if (!s) return;
    sessions.delete(id);
    sessions.set(id, s);
    lastUse.set(id, Date.now());
  };
  const sweep = setInterval(() => {
    const before = Date.now() - idleMs;
    for (const [id, at] of lastUse) if (at < before) closeSession(id);
  }, Math.min(60_000, Math.max(1_000, Math.floor(idleMs / 4))));
  sweep.unref();

  // JSON bodies must be UTF-8 (RFC 8259): bytes that are not, or another charset named, are refused
  // rather than decoded with replacement characters into what gets stored. The parse itself is
  // fastify's own (with its __proto__ and constructor checks).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  // Bodies are JSON only: a text/plain body was taken as a string and refused as "(arguments)".
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit }, (req, body, done) => {
    const charset = charsetOf(req.headers['content-type']);
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      const err = Object.assign(new Error(`Unsupported charset "${charset}": send JSON as UTF-8`), { statusCode: 415 });
      return done(err, undefined);
    }
    const bytes = body as Buffer;
    if (!isUtf8(bytes)) return done(Object.assign(new Error('The body is not valid UTF-8: send JSON as UTF-8'), { statusCode: 400 }), undefined);
    return parseJson(req, bytes.toString('utf8'), done);
  });

  // A browser page may only reach this server from a loopback origin or this server's own host,
  // on every route: /api/tools reaches every tool.
  const listeningOnLoopback = LOOPBACK.has(opts.host.toLowerCase()) || opts.host.startsWith('127.');
  app.addHook('onRequest', async (req, reply) => {
    if (!hostAllowed(req, listeningOnLoopback)) {
      return reply.code(403).send({ error: { type: 'ForbiddenError', message: `Host ${req.headers.host} is not allowed: this server listens on ${opts.host} only` } });
    }
    if (!originAllowed(req)) {
      return reply.code(403).send({ error: { type: 'ForbiddenError', message: `Origin ${req.headers.origin} is not allowed` } });
    }
  });

  app.setNotFoundHandler((req, reply) => {
    // A path that exists under other methods is a wrong method (405 with Allow), not a missing route.
    const allow = methodsAt(app, req.url);
    if (allow.length > 0) {
      return reply
        .code(405)
        .header('allow', allow.join(', '))
        .send({
          error: {
            type: 'MethodNotAllowedError',
            message: `${req.method} is not allowed on ${req.url.split('?')[0]}: use ${allow.join(' or ')}`,
            field: 'method',
            accepted: allow,
          },
        });
    }
    return reply.code(404).send({ error: { type: 'NotFoundError', code: 'KERNEL_ERR_NOT_FOUND', message: `No route ${req.method} ${req.url}` } });
  });
  app.setErrorHandler((err: any, req, reply) => {
    const status = typeof err?.statusCode === 'number' ? err.statusCode : 500;
    if (err instanceof MemoryError) return sendError(reply, err);
    if (status >= 500) return reply.code(status).send({ error: { type: 'ServerError', message: err?.message ?? String(err) } });
    // Fastify's own refusals of a request, in the kernel's error shape, saying what is accepted.
    const error: Record<string, unknown> = { type: 'ValidationError', code: 'KERNEL_ERR_VALIDATION', message: err?.message ?? String(err) };
    if (err?.code === 'FST_ERR_CTP_BODY_TOO_LARGE') Object.assign(error, { message: `The body is larger than ${bodyLimit} bytes`, field: 'body', accepted: { max: bodyLimit } });
    else if (err?.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      Object.assign(error, { message: `Unsupported content type ${JSON.stringify(req.headers['content-type'] ?? '')}: send the body as application/json`, field: 'content-type', accepted: 'application/json' });
    } else if (err?.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') Object.assign(error, { field: 'body', accepted: 'a JSON object, or no content-type for an empty body' });
    else if (status === 415) Object.assign(error, { field: 'content-type', accepted: 'application/json; charset=utf-8' });
    else if (/JSON|UTF-8/.test(String(err?.message))) error.field = 'body';
    return reply.code(status).send({ error });
  });

  app.get('/alive', async () => ({ alive: true }));

  app.get('/health', async (_req, reply) => {
    const connected = kernel.storage.ping();
    return reply.code(connected ? 200 : 503).send({
      status: connected ? 'ok' : 'degraded',
      version: SERVICE_VERSION,
      uptime_seconds: Math.round((Date.now() - service.startedAt) / 1000),
      database: { connected, path: kernel.storage.file },
    });
  });

  app.get('/ready', async (_req, reply) => {
    const connected = kernel.storage.ping();
    const migrations = connected ? kernel.storage.status() : [];
    const current = migrations.every((m) => m.pending.length === 0);
    const ready = connected && current && kernel.state === 'ready';
    return reply.code(ready ? 200 : 503).send({ ready, database: { connected }, migrations: { current, owners: migrations } });
  });

  app.post<{ Params: { event: string }; Body: { payload?: unknown; layer?: unknown; user_id?: unknown } | undefined }>(
    '/api/hooks/:event',
    async (req, reply) => {
      const body = req.body ?? {};
      if (typeof body !== 'object' || Array.isArray(body)) {
        return sendError(reply, new MemoryError('KERNEL_ERR_VALIDATION', 'Invalid input: the body must be a JSON object', { field: 'body' }));
      }
      try {
        return await kernel.dispatchEvent(req.params.event, body.payload ?? {}, body.layer ?? 'user', body.user_id ?? 'default');
      } catch (err) {
        return sendError(reply, err);
      }
    },
  );

  const mcp = async (req: FastifyRequest, reply: FastifyReply) => {
    const id = req.headers['mcp-session-id'];
    let session = typeof id === 'string' ? sessions.get(id) : undefined;
    if (session) touch(id as string);
    if (!session) {
      if (typeof id === 'string') {
        return reply.code(404).send({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
      }
      if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
        return reply.code(400).send({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: no session; send initialize first' }, id: null });
      }
      session = await openHttpSession(
        service.surface,
        kernel.logger,
        (sid, s) => {
          // At the cap, the session used longest ago makes room (its client must initialize again).
          while (sessions.size >= maxSessions) closeSession(sessions.keys().next().value as string);
          sessions.set(sid, s);
          lastUse.set(sid, Date.now());
        },
        (sid) => {
          sessions.delete(sid);
          lastUse.delete(sid);
        },
      );
    }
    reply.hijack();
    await session.transport.handleRequest(req.raw, reply.raw, req.body);
  };
  app.post('/mcp', mcp);
  app.get('/mcp', mcp);
  app.delete('/mcp', mcp);

  if (opts.dashboard) registerDashboard(app, service);

  app.addHook('onClose', async () => {
    clearInterval(sweep);
    await Promise.allSettled([...sessions.values()].map((s) => s.server.close()));
    sessions.clear();
    lastUse.clear();
  });
  return app;
}
