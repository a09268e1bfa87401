import type { FastifyReply } from 'fastify';
import type { MemoryError } from '@memory-service/kernel';

/**
 * Retry-After (seconds) of a 503 for KERNEL_ERR_BUSY: the call already waited the busy timeout, and
 * the next one waits as long again for the lock, so a short pause is enough.
 */
export const BUSY_RETRY_AFTER_S = 1;

/** HTTP status for a coded error: 400 for bad input and unknown events, 404 for unknown things. */
export function statusFor(err: MemoryError): number {
  if (err.code === 'KERNEL_ERR_NOT_FOUND' || err.code === 'KERNEL_ERR_TOOL_UNKNOWN') return 404;
  // Closing, or the database cannot be written (a full disk, memory.db moved or deleted, an I/O
  // error): not the request's fault, and the same request may succeed once the operator acts.
  // Busy (KERNEL_ERR_BUSY): another process held the database's write lock past the busy timeout;
  // the same request works once it is done (replyError adds Retry-After).
  if (err.code === 'KERNEL_ERR_CLOSED' || err.code === 'KERNEL_ERR_STORAGE' || err.code === 'KERNEL_ERR_BUSY') return 503;
  if (err.code === 'KERNEL_ERR_TOOL_FAILED') return 500;
  return 400;
}

/**
 * Answer a coded error on an /api route: its JSON with statusFor's status, and Retry-After for a
 * write that waited for another process's write lock (the client may simply call again).
 */
export function replyError(reply: FastifyReply, e: MemoryError): FastifyReply {
  if (e.code === 'KERNEL_ERR_BUSY') void reply.header('retry-after', String(BUSY_RETRY_AFTER_S));
  return reply.code(statusFor(e)).send({ error: e.toJSON() });
}
