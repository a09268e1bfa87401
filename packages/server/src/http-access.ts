/**
 * Who may make a request of the HTTP app: the Host and Origin checks a browser's page is held to,
 * and the API keys (memory_api_key) every request but the probes must carry once one exists.
 */
import type { FastifyRequest } from 'fastify';

export const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);
/** The loopback names a Host header may give when the server listens on a loopback address. */
export const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

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
export function hostAllowed(req: FastifyRequest, listeningOnLoopback: boolean): boolean {
  return !listeningOnLoopback || LOOPBACK.has(hostName(req.headers.host));
}

/**
 * The `host:port` a Host header names, as a URL of `protocol` writes it (lower case, the scheme's
 * default port left out, an IPv6 address in brackets), or null when it is not a plain host and
 * optional port (user info, a path, spaces).
 */
function hostOf(host: string | undefined, protocol: string): string | null {
  if (!host || /[\s@/?#\\]/.test(host)) return null;
  try {
    return new URL(`${protocol}//${host}`).host;
  } catch {
    return null;
  }
}

/**
 * Browsers send Origin; accept only loopback origins (any port) or the origin the request was
 * made to: the Origin's host and port, its scheme's default port when it names none, against the
 * Host header's.
 */
export function originAllowed(req: FastifyRequest): boolean {
  const origin = req.headers.origin;
  if (!origin) return true;
  try {
    const url = new URL(origin);
    return LOOPBACK.has(url.hostname) || url.host === hostOf(req.headers.host, url.protocol);
  } catch {
    return false;
  }
}

/**
 * The API keys memory_api_key manages, as the stores register them in the kernel's container
 * (`apiKeys`); the server only asks whether any exists and what a presented key is.
 */
export interface ApiKeyChecker {
  any(): boolean;
  verify(key: string): 'ok' | 'unknown' | 'revoked';
}

/**
 * The warning for a server listening on `host`, not a loopback address, when no API key protects
 * it, or null when one does.
 */
export function openAccessWarning(checker: ApiKeyChecker | null, host: string): string | null {
  const exposed = `HTTP listens on ${host}, which is not a loopback address, with no API key: anyone who can reach this port can read and change every user's memory`;
  if (!checker) return `${exposed} (this plugin set has no API keys); listen on 127.0.0.1 (--host) or behind a proxy that authenticates`;
  try {
    if (checker.any()) return null;
  } catch {
    // The key store cannot be read: requests are refused with 503 until it can, nothing to warn of.
    return null;
  }
  return `${exposed}. Create a key with the memory_api_key tool (action "create", in the admin tier: MEMORY_EXPOSE=admin, also over stdio on the same data dir); every request then needs "Authorization: Bearer <key>"`;
}

/** The routes answered without a key: a load balancer's or orchestrator's probes. */
const OPEN_PATHS = new Set(['/health', '/alive']);

/**
 * Once any API key has been created, every request but /health and /alive must carry
 * `Authorization: Bearer <API_KEY>`: none (or another scheme) is a 401, a key that is unknown or
 * revoked a 403. Answers the refusal, or null to let the request through.
 */
export function authRefusal(checker: ApiKeyChecker | null, req: FastifyRequest): { status: number; error: Record<string, unknown> } | null {
  if (!checker || OPEN_PATHS.has(req.url.split('?')[0]!)) return null;
  if (!checker.any()) return null;
  const header = req.headers.authorization;
  const m = typeof header === 'string' ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null;
  if (!m) {
    const message = header === undefined ? 'This server requires an API key: send Authorization: Bearer <API_KEY>' : 'The Authorization header must be "Bearer <API_KEY>"';
    return { status: 401, error: { type: 'AuthenticationError', message, field: 'authorization', accepted: 'Bearer <API_KEY>' } };
  }
  const verdict = checker.verify(m[1]!);
  if (verdict === 'ok') return null;
  return { status: 403, error: { type: 'ForbiddenError', message: verdict === 'revoked' ? 'This API key was revoked' : 'Unknown API key', field: 'authorization' } };
}
