/** Whether a value is a promise (any thenable) rather than a value: a tool's answer, a hook tap's, a migration's. */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
