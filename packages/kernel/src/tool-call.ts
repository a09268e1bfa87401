import { MemoryError, toMemoryError } from './errors.js';
import { LockTaken } from './sql-transaction.js';
import type { Storage } from './storage.js';
import { storageFailureError, type StorageFailureOptions } from './storage-failures.js';
import { checkOutput, isPromiseLike, parseArgs, withKeysGivenInstead, type RegisteredTool, type ToolCallContext } from './tools.js';
import type { WriteQueue } from './write-queue.js';

/** What of the kernel a tool call reaches (Kernel.callToolNow). */
export interface CallHost {
  readonly storage: Storage;
  /** The write calls waiting for another process's write lock, in the order they came. */
  readonly writes: WriteQueue;
  failure(err: unknown, plugin: string, opts?: StorageFailureOptions): MemoryError;
  track<T>(work: Promise<T>, what: string): Promise<T>;
}

/**
 * What a tool or event handler threw, as a coded error carrying the plugin's name: a statement the
 * database refused (read-only, damaged, moved, the disk full, an I/O error) is a KERNEL_ERR_STORAGE
 * naming memory.db and what to do, a write that gave up waiting for another process's write lock
 * a KERNEL_ERR_BUSY saying so (storageFailureError); `rolledBack` when the call's writes were all
 * in its transaction, rolled back; `elapsedMs` how long the call had run.
 */
export function callFailure(file: string, err: unknown, plugin: string, opts: StorageFailureOptions = {}): MemoryError {
  const storage = storageFailureError(file, err, opts);
  if (storage && !storage.plugin) storage.plugin = plugin;
  return storage ?? toMemoryError(err, plugin);
}

/** Kernel.callToolNow once the tool is found (its comment says what a call does): validate, run, count, check the answer. */
export function runTool(host: CallHost, tool: RegisteredTool, args: unknown, call: ToolCallContext, name: string): unknown {
  // Every call of a registered tool is counted here, whatever the transport (call-stats.ts): a
  // clock read now and one when it settles, nothing allocated.
  const stats = tool.calls;
  const start = performance.now();
  let out: unknown;
  try {
    const parsed = parseArgs(tool, args);
    if (tool.annotations.readOnlyHint) {
      // Read-only: never waits behind the writes (below).
    } else if (host.writes.length !== 0 && !host.storage.db.inTransaction) {
      // Writes of this process wait for the lock already: this one waits behind them (their order is kept).
      return queued(host, tool, parsed, args, call, name, start, undefined);
    }
    if (tool.annotations.readOnlyHint || tool.transaction === false) {
      try {
        // A transaction: false handler's own writes wait for the lock within the budget counted from now (Storage.transactionWhenFree).
        out = tool.handler(parsed, tool.transaction === false ? { ...call, since: start } : call);
      } catch (err) {
        throw withKeysGivenInstead(host.failure(err, tool.plugin, { elapsedMs: performance.now() - start }), tool, args);
      }
      if (!isPromiseLike(out)) {
        const value = checkOutput(tool, out);
        stats.done(true, start);
        return value;
      }
    } else {
      // better-sqlite3 refuses a transaction function that answers a promise: it is boxed.
      let answer: Answer | LockTaken;
      try {
        answer = host.storage.transactionIfFree(() => inTransaction(tool, parsed, call));
      } catch (err) {
        // The call's transaction was rolled back (a savepoint, inside an open one): none of its writes stay.
        throw withKeysGivenInstead(host.failure(err, tool.plugin, { rolledBack: true, elapsedMs: performance.now() - start }), tool, args);
      }
      // Another process holds the write lock (nothing begun): wait for it without blocking the event loop.
      if (answer instanceof LockTaken) return queued(host, tool, parsed, args, call, name, start, answer);
      if ('value' in answer) {
        stats.done(true, start);
        return answer.value;
      }
      out = answer.promise;
    }
  } catch (err) {
    stats.done(false, start);
    throw err;
  }
  return host.track(Promise.resolve(out), `tool ${name} (plugin ${tool.plugin})`).then(
    (value) => {
      let checked: unknown;
      try {
        checked = checkOutput(tool, value);
      } catch (err) {
        stats.done(false, start);
        throw err;
      }
      stats.done(true, start);
      return checked;
    },
    (err: unknown) => {
      stats.done(false, start);
      throw withKeysGivenInstead(host.failure(err, tool.plugin, { elapsedMs: performance.now() - start }), tool, args);
    },
  );
}

/** A handler's answer from inside the call's transaction: its checked value, or its promise (boxed: a transaction function cannot answer one). */
type Answer = { value: unknown } | { promise: PromiseLike<unknown> };

/** The handler, run inside the call's transaction: its answer, checked when it is a value. */
function inTransaction(tool: RegisteredTool, parsed: Record<string, unknown>, call: ToolCallContext): Answer {
  const value = tool.handler(parsed, call);
  return isPromiseLike(value) ? { promise: value } : { value: checkOutput(tool, value) };
}

/** Marks a throw of the handler's promise (after its transaction): not rolled back. */
class AfterTransaction {
  constructor(readonly error: unknown) {}
}

/**
 * A write call that waits for the write lock in host.writes (write-queue.ts): another process held
 * it at its BEGIN (`first`), or calls of this process wait for it already. Tried again in its turn,
 * then answered as runTool answers; tracked, so close() waits for it (or fails it, closed). Its
 * budget is the connection's busy timeout from the call's start; past it the call fails
 * KERNEL_ERR_BUSY as a BEGIN that waited in SQLite's busy handler did. An abort of the call's signal
 * drops it.
 */
function queued(
  host: CallHost,
  tool: RegisteredTool,
  parsed: Record<string, unknown>,
  args: unknown,
  call: ToolCallContext,
  name: string,
  start: number,
  first: LockTaken | undefined,
): Promise<unknown> {
  const stats = tool.calls;
  const own = tool.transaction !== false;
  const attempt = own
    ? () => host.storage.transactionIfFree(() => inTransaction(tool, parsed, call))
    : (): Answer => {
        const value = tool.handler(parsed, { ...call, since: start });
        return isPromiseLike(value) ? { promise: value } : { value: checkOutput(tool, value) };
      };
  const budgetMs = first ? first.budgetMs : host.storage.busyTimeoutMs();
  const work = host.writes.wait(attempt, { since: start, budgetMs, first, signal: call.signal }).then(
    (got) => {
      const answer = got as Answer;
      if ('value' in answer) return answer.value;
      return Promise.resolve(answer.promise).then(
        (value) => checkOutput(tool, value),
        (err: unknown) => {
          throw new AfterTransaction(err);
        },
      );
    },
  );
  return host.track(work, `tool ${name} (plugin ${tool.plugin})`).then(
    (value) => {
      stats.done(true, start);
      return value;
    },
    (err: unknown) => {
      stats.done(false, start);
      const after = err instanceof AfterTransaction;
      const cause = after ? err.error : err;
      // A throw inside the call's own transaction was rolled back with it.
      throw withKeysGivenInstead(host.failure(cause, tool.plugin, { rolledBack: own && !after, elapsedMs: performance.now() - start }), tool, args);
    },
  );
}
