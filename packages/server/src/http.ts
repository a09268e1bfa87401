import { isUtf8 } from 'node:buffer';
import { maxHeaderSize, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { MemoryError, SERVICE_VERSION, checkMisspelledKeys, toMemoryError } from '@memory-service/kernel';
import { isInitializeRequest, isRequest, malformedBody, openHttpSession, type HttpSession } from './mcp-adapter.js';
import { authRefusal, hostAllowed, LOOPBACK, LOOPBACK_NAMES, openAccessWarning, originAllowed, type ApiKeyChecker } from './http-access.js';
import { registerDashboard } from './dashboard.js';
import { replyError } from './error-status.js';
import { registerMetrics } from './metrics-route.js';
import type { Service } from './service.js';

export { BUSY_RETRY_AFTER_S, statusFor } from './error-status.js';

export interface HttpOptions {
  host: string;
  port: number;
  dashboard: boolean;
  /** Largest accepted request body in bytes. */
  bodyLimit?: number;
  /**
   * Most MCP sessions held at once; opening one more closes the one used longest ago that has no
   * request running (503 when every one has).
   */
  maxSessions?: number;
  /** An MCP session unused for this long, with no request running, is closed. */
  sessionIdleMs?: number;
  /** How long closing the app waits for the requests already received to be answered. */
  drainMs?: number;
}

/** Defaults of HttpOptions: sessions held at once, and how long one may sit unused. */
export const MAX_SESSIONS = 1000;
export const SESSION_IDLE_MS = 30 * 60_000;
/** A request whose headers and body have not all arrived after this long is answered 408. */
export const REQUEST_TIMEOUT_MS = 60_000;
/**
 * Closing the app (SIGTERM, SIGINT) waits this long for the requests already received to be
 * answered; those still running then are answered with an error.
 */
export const DRAIN_MS = 10_000;
/** After the drain, how long the answers written to the last requests get to leave before their connections are closed. */
const FLUSH_MS = 1_000;
/** A stop closes the listener once no connection has opened and no request come for this long. */
const QUIET_MS = 100;

/** After a body is refused as too large, how many more of its bytes are read and dropped before its connection is closed. */
const DISCARD_MAX = 64 * 1024 * 1024;

/** Connections whose answer was sent while the rest of their body is read and dropped (discardRest). */
const discarding = new WeakSet<Duplex>();

/**
 * Read and drop the rest of a body refused as too large, so its client reads the 413: closing the
 * connection with bytes of the body still unread makes the kernel reset it, and a client still
 * sending (Node's fetch, and so the MCP SDK's client) got EPIPE instead of the answer saying why.
 * The connection stays open for the next request; past DISCARD_MAX bytes it is closed, and Node's
 * request timeout still ends a body that never does.
 */
function discardRest(req: IncomingMessage): void {
  if (req.complete) return;
  const socket = req.socket;
  discarding.add(socket);
  req.once('end', () => discarding.delete(socket));
  let left = DISCARD_MAX;
  req.on('data', (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) socket.destroy();
  });
  req.resume();
}

/** The request member a parse error of Node's names (llhttp's codes), for the error's field. */
const PARSE_FIELDS: Record<string, string> = {
  HPE_INVALID_CONTENT_LENGTH: 'content-length',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'content-length',
  HPE_INVALID_TRANSFER_ENCODING: 'transfer-encoding',
  HPE_INVALID_CHUNK_SIZE: 'body',
  HPE_INVALID_METHOD: 'method',
  HPE_INVALID_URL: 'url',
  HPE_INVALID_VERSION: 'version',
  HPE_INVALID_HEADER_TOKEN: 'headers',
};

/**
 * Answer a request Node could not read (before fastify sees it) in the kernel's error shape, naming
 * what was wrong, as fastify's own refusals are: fastify's default answered "Client Error" alone.
 */
function clientError(err: Error & { code?: string; reason?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  let status = 400;
  let error: Record<string, unknown>;
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    status = 408;
    error = { message: `The request did not arrive whole within ${REQUEST_TIMEOUT_MS} ms`, field: 'body' };
  } else if (err.code === 'HPE_HEADER_OVERFLOW') {
    status = 431;
    error = { message: `The request line and headers are larger than ${maxHeaderSize} bytes`, field: 'headers', accepted: { max: maxHeaderSize } };
  } else {
    error = { message: `Malformed HTTP request: ${err.reason ?? err.message}`, field: PARSE_FIELDS[err.code ?? ''] ?? 'request' };
  }
  const body = JSON.stringify({ error: { type: 'ValidationError', code: 'KERNEL_ERR_VALIDATION', ...error } });
  // A body still read after its 413 that times out already has its answer: no second one.
  if (socket.writable && !discarding.has(socket)) {
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}

/** JSON-RPC's implementation-defined server error, as the SDK uses for a refused request. */
const SERVER_ERROR = -32000;

/** The JSON-RPC ids of the requests in a /mcp body (one message or a batch); notifications have none. */
function requestIds(body: unknown): (string | number)[] {
  return (Array.isArray(body) ? body : [body]).filter(isRequest).map((m) => m.id);
}

/** A request received and not yet answered: its response, and its parsed body (for the JSON-RPC ids). */
interface Pending {
  req: FastifyRequest;
  res: ServerResponse;
}

/** The keys of a POST /api/hooks/{event} body. */
const HOOK_BODY_KEYS = ['payload', 'layer', 'user_id'] as const;

function sendError(reply: FastifyReply, err: unknown): FastifyReply {
  return replyError(reply, toMemoryError(err));
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/** The methods that have a route at `url`'s path (none when the path has no route at all). */
function methodsAt(app: FastifyInstance, url: string): string[] {
  const path = url.split('?')[0]!;
  return METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
}

/** Whether a request is to the MCP endpoint. */
function isMcp(req: FastifyRequest): boolean {
  return req.url.split('?')[0] === '/mcp';
}

/** The charset a Content-Type names, lower-cased, or undefined when it names none. */
function charsetOf(contentType: string | undefined): string | undefined {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return m ? m[1]!.toLowerCase() : undefined;
}

/** The fastify app: /mcp (streamable HTTP with sessions), health routes, the hook route and /metrics. */
export async function buildHttpApp(service: Service, opts: HttpOptions): Promise<FastifyInstance> {
  const { kernel } = service;
  const bodyLimit = opts.bodyLimit ?? 4 * 1024 * 1024;
  const drainMs = opts.drainMs ?? DRAIN_MS;
  const app = Fastify({
    logger: false,
    // Once the requests received have been answered (preClose below), the connections left are idle
    // or a session's GET stream: they are closed rather than waited for.
    forceCloseConnections: true,
    // Requests that come while stopping are refused by the onRequest hook, in each route's shape.
    return503OnClosing: false,
    bodyLimit,
    requestTimeout: REQUEST_TIMEOUT_MS,
    // Fastify bounds each hook, preClose included, by pluginTimeout (10 s by default): the drain
    // below waits up to drainMs and FLUSH_MS, and at the default drainMs the bound fired first, so
    // app.close() failed, the requests still running got no answer and the database was not closed.
    pluginTimeout: drainMs + FLUSH_MS + 10_000,
    clientErrorHandler: clientError,
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
  /**
   * The requests of each session (by its mcp-session-id header) that have arrived and whose
   * response has not closed: counted from the request hook, so a body still uploading counts.
   */
  const running = new Map<string, number>();
  /** Count a request of session `id` as running until its response closes; it is a use of the session at both ends. */
  const arrived = (id: string, res: ServerResponse) => {
    running.set(id, (running.get(id) ?? 0) + 1);
    touch(id);
    res.once('close', () => {
      const left = running.get(id)! - 1;
      if (left > 0) running.set(id, left);
      else running.delete(id);
      // Its idle time counts from the end of its last request.
      touch(id);
    });
  };
  // A session with a request running is not closed (idle, or to make room): closing it ended that
  // request's response with no answer, though the call may have taken effect. A request runs from
  // its arrival: one whose body was still uploading was taken as idle, and answered 404 once read.
  const busy = (id: string, s: HttpSession | undefined) => running.has(id) || s?.busy() === true;
  /** Close the session used longest ago that has no request running; false when every one has. */
  const closeLeastUsed = (): boolean => {
    for (const [id, s] of sessions) {
      if (!busy(id, s)) {
        closeSession(id);
        return true;
      }
    }
    return false;
  };
  const sweep = setInterval(() => {
    const before = Date.now() - idleMs;
    for (const [id, at] of lastUse) if (at < before && !busy(id, sessions.get(id))) closeSession(id);
  }, Math.min(60_000, Math.max(1_000, Math.floor(idleMs / 4))));
  sweep.unref();

  /** The requests received and not yet answered, and whether the app is stopping. */
  const pending = new Set<Pending>();
  let draining = false;
  /** When the last connection was opened, or the last request refused while stopping. */
  let lastArrival = 0;
  app.server.on('connection', () => (lastArrival = Date.now()));
  let settled: (() => void) | undefined;
  /** Resolves when every request received has been answered, or after `ms`. */
  const allAnswered = (ms: number) =>
    new Promise<void>((resolve) => {
      if (pending.size === 0) return resolve();
      const timer = setTimeout(resolve, ms);
      settled = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  /** Answer a request still running at the end of the drain with an error, in the shape of its route. */
  const answerStopped = ({ req, res }: Pending) => {
    // The handler may still write to it when its work ends: a write after end must not throw.
    res.on('error', () => undefined);
    if (res.writableEnded) return;
    const message = `The server stopped before this request was answered (it waited ${drainMs} ms for it): it may or may not have taken effect`;
    if (!isMcp(req)) {
      if (res.headersSent) return void res.end();
      res.writeHead(503, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
      return void res.end(JSON.stringify({ error: new MemoryError('KERNEL_ERR_CLOSED', message).toJSON() }));
    }
    const ids = requestIds(req.body);
    const errors = (ids.length > 0 ? ids : [null]).map((id) => ({ jsonrpc: '2.0', error: { code: SERVER_ERROR, message }, id }));
    if (!res.headersSent) {
      res.writeHead(503, { 'content-type': 'application/json', connection: 'close' });
      return void res.end(JSON.stringify(errors.length === 1 ? errors[0] : errors));
    }
    // Headers already sent to a POST are the SDK's event stream for its answers (a JSON answer is
    // sent whole): the errors are its last events.
    if (req.method === 'POST' && res.statusCode === 200) {
      for (const e of errors) res.write(`event: message\ndata: ${JSON.stringify(e)}\n\n`);
    }
    res.end();
  };
  // Stopping: new requests are refused (onRequest), those already received run to their answer for
  // up to drainMs, then the ones left are answered with an error; only then are connections closed.
  app.addHook('preClose', async () => {
    // Requests whose bytes had come when the stop began are read in the same turn of the event
    // loop as the signal (one poll of the sockets): they were received and are run. Refusing starts after it.
    await new Promise((resolve) => setImmediate(resolve));
    draining = true;
    clearInterval(sweep);
    const deadline = Date.now() + drainMs;
    // The listener stays open until nothing has come for QUIET_MS: requests already sent (on a
    // connection the server has not read yet, or still in the listen backlog) are then answered
    // with a 503 rather than reset by closing it under them.
    for (;;) {
      await allAnswered(deadline - Date.now());
      const quiet = Date.now() - lastArrival;
      if (Date.now() >= deadline || (pending.size === 0 && quiet >= QUIET_MS)) break;
      if (pending.size === 0) await new Promise((resolve) => setTimeout(resolve, Math.min(QUIET_MS - quiet, deadline - Date.now())));
    }
    for (const entry of pending) answerStopped(entry);
    await allAnswered(FLUSH_MS);
  });

  // JSON bodies must be UTF-8 (RFC 8259): bytes that are not, or another charset named, are refused
  // rather than decoded with replacement characters into what gets stored. The parse itself is
  // fastify's own, taking every key as plain JSON.parse does (as stdio reads a line): its __proto__
  // check refused valid JSON as "Body is not valid JSON", where stdio took the call. A __proto__
  // key (an own key after JSON.parse, touching no prototype) is refused by the kernel, naming its
  // path, on every transport (kernel proto-keys.ts); a "constructor" key is an ordinary key on both.
  const parseJson = app.getDefaultJsonParser('ignore', 'ignore');
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
  const apiKeys = kernel.container.hasRegistration('apiKeys') ? kernel.container.resolve<ApiKeyChecker>('apiKeys') : null;
  const listeningOnLoopback = LOOPBACK.has(opts.host.toLowerCase()) || opts.host.startsWith('127.');
  // Off loopback, API keys are the only thing between the network and every user's memory (no
  // Host check applies there): say so at start when there is none.
  app.addHook('onListen', async () => {
    if (listeningOnLoopback) return;
    const warning = openAccessWarning(apiKeys, opts.host);
    if (warning) kernel.logger.warn(warning);
  });
  app.addHook('onRequest', async (req, reply) => {
    if (!hostAllowed(req, listeningOnLoopback)) {
      const what = req.headers.host === undefined ? 'The Host header is missing' : `Host ${req.headers.host} is not allowed`;
      const message = `${what}: this server listens on ${opts.host} only, and answers requests made to localhost, 127.0.0.1 or [::1]`;
      return reply.code(403).send({ error: { type: 'ForbiddenError', message, field: 'host', accepted: [...LOOPBACK_NAMES] } });
    }
    if (!originAllowed(req)) {
      const message = `Origin ${req.headers.origin} is not allowed: only a loopback origin or the origin the request was made to (Host ${req.headers.host ?? 'missing'}) is`;
      return reply.code(403).send({ error: { type: 'ForbiddenError', message, field: 'origin' } });
    }
    // API keys (memory_api_key): checked before the request is run or counted.
    let refusal: ReturnType<typeof authRefusal>;
    try {
      refusal = authRefusal(apiKeys, req);
    } catch (err) {
      // The key store cannot be read (the database is closing or broken): refuse rather than let the request through.
      refusal = { status: 503, error: { type: 'ServerError', message: `API keys cannot be checked: ${(err as Error).message}` } };
    }
    if (refusal) {
      if (refusal.status === 401) void reply.header('www-authenticate', 'Bearer');
      return isMcp(req)
        ? reply.code(refusal.status).send({ jsonrpc: '2.0', error: { code: SERVER_ERROR, message: String(refusal.error.message) }, id: null })
        : reply.code(refusal.status).send({ error: refusal.error });
    }
    // A GET /mcp is a session's stream of server messages, open until the session ends: a stop
    // does not wait for it. Every other request is answered before the connections are closed.
    if (!(req.method === 'GET' && isMcp(req)) || draining) {
      const entry: Pending = { req, res: reply.raw };
      pending.add(entry);
      reply.raw.once('close', () => {
        pending.delete(entry);
        if (pending.size === 0) settled?.();
      });
    }
    // Stopping: a request that comes now is refused, in the shape of its route, and not run.
    if (draining) {
      lastArrival = Date.now();
      const message = 'The server is stopping: this request was not run; send it again once the server is back';
      void reply.code(503).header('connection', 'close').header('retry-after', '1');
      return isMcp(req) ? reply.send({ jsonrpc: '2.0', error: { code: SERVER_ERROR, message }, id: null }) : sendError(reply, new MemoryError('KERNEL_ERR_CLOSED', message));
    }
    // A session's request runs from now (its body may still be arriving) until its response
    // closes; a GET opens the session's stream, a use of it but not a request that runs.
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string' && isMcp(req)) {
      if (req.method === 'GET') touch(sid);
      else arrived(sid, reply.raw);
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
    if (err?.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      Object.assign(error, { message: `The body is larger than ${bodyLimit} bytes`, field: 'body', accepted: { max: bodyLimit } });
      // fastify asks for the connection to be closed, with the rest of the body unread (see discardRest).
      reply.removeHeader('connection');
      discardRest(req.raw);
    } else if (err?.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
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
      // No file path: /health answers without a key (probes), and the data dir's place on disk is the operator's (/ready, behind the key, names it).
      database: { connected },
    });
  });

  app.get('/ready', async (_req, reply) => {
    const connected = kernel.storage.ping();
    const migrations = connected ? kernel.storage.status() : [];
    const current = migrations.every((m) => m.pending.length === 0);
    const ready = connected && current && kernel.state === 'ready';
    return reply.code(ready ? 200 : 503).send({ ready, database: { connected, path: kernel.storage.file }, migrations: { current, owners: migrations } });
  });

  app.post<{ Params: { event: string }; Body: { payload?: unknown; layer?: unknown; user_id?: unknown } | undefined }>(
    '/api/hooks/:event',
    async (req, reply) => {
      const body = req.body ?? {};
      if (typeof body !== 'object' || Array.isArray(body)) {
        return sendError(reply, new MemoryError('KERNEL_ERR_VALIDATION', 'Invalid input: the body must be a JSON object', { field: 'body' }));
      }
      try {
        // A key meant as layer or user_id but named otherwise (`user`, `userId`, `layr`) is refused, as
        // memory_hook refuses it: dropped, it fired the event in the default user's memory.
        checkMisspelledKeys(body, HOOK_BODY_KEYS, 'a key of the hook body');
        // A key left out takes the dispatcher's default; a null one is refused, as memory_hook refuses it.
        return await kernel.dispatchEvent(req.params.event, body.payload, body.layer, body.user_id);
      } catch (err) {
        return sendError(reply, err);
      }
    },
  );

  const mcp = async (req: FastifyRequest, reply: FastifyReply) => {
    const id = req.headers['mcp-session-id'];
    let session = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!session && typeof id === 'string') {
      return reply.code(404).send({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
    }
    const malformed = req.method === 'POST' ? malformedBody(req.body) : null;
    if (malformed) return reply.code(400).send(malformed);
    if (!session) {
      if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
        // An initialize in a batch is refused by the SDK's transport too, and MCP asks it to come alone.
        const batched = Array.isArray(req.body) && req.body.some((m) => isInitializeRequest(m));
        const error = batched ? { code: -32600, message: 'Invalid Request: send initialize alone, not in a batch' } : { code: -32000, message: 'Bad Request: no session; send initialize first' };
        return reply.code(400).send({ jsonrpc: '2.0', error, id: null });
      }
      // At the cap, the session used longest ago with no request running makes room (its client must initialize again).
      // Requests whose bytes came in the same turn of the event loop as this one (after a long call
      // held the loop) are read first: the sessions they name then count as busy.
      if (sessions.size >= maxSessions) await new Promise((resolve) => setImmediate(resolve));
      while (sessions.size >= maxSessions) {
        if (closeLeastUsed()) continue;
        const message = `Too many sessions: all ${maxSessions} have a request running; try again shortly`;
        return reply.code(503).header('retry-after', '1').send({ jsonrpc: '2.0', error: { code: SERVER_ERROR, message }, id: null });
      }
      session = await openHttpSession(
        service.surface,
        kernel.logger,
        (sid, s) => {
          // Sessions opened at once may each have passed the check above.
          while (sessions.size >= maxSessions && closeLeastUsed());
          sessions.set(sid, s);
          lastUse.set(sid, Date.now());
        },
        (sid) => {
          sessions.delete(sid);
          lastUse.delete(sid);
        },
      );
    }
    const { reused, release } = session.claimIds(req.method === 'POST' ? req.body : undefined);
    if (reused !== undefined) {
      const message = `Invalid Request: id ${JSON.stringify(reused)} is already the id of a request of this session not yet answered: give each request its own id`;
      return reply.code(400).send({ jsonrpc: '2.0', error: { code: -32600, message }, id: reused });
    }
    reply.hijack();
    try {
      await session.transport.handleRequest(req.raw, reply.raw, req.body);
    } finally {
      release();
      // Its idle time counts from the end of its last request (a request in the session is also touched as its response closes).
      if (session.transport.sessionId !== undefined) touch(session.transport.sessionId);
    }
  };
  app.post('/mcp', mcp);
  // No HEAD: the SDK's transport answers it 405, so it is not offered in Allow either.
  app.get('/mcp', { exposeHeadRoute: false }, mcp);
  app.delete('/mcp', mcp);

  registerMetrics(app, service);
  if (opts.dashboard) registerDashboard(app, service);

  app.addHook('onClose', async () => {
    clearInterval(sweep);
    await Promise.allSettled([...sessions.values()].map((s) => s.server.close()));
    sessions.clear();
    lastUse.clear();
  });
  return app;
}
