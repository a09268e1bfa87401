import { MemoryError, toMemoryError } from './errors.js';
import type { Storage } from './storage.js';
import { storageFailureError, type StorageFailureOptions } from './storage-failures.js';
import { checkOutput, isPromiseLike, parseArgs, withKeysGivenInstead, type RegisteredTool, type ToolCallContext } from './tools.js';

/** What of the kernel a tool call reaches (Kernel.callToolNow). */
export interface CallHost {
  readonly storage: Storage;
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
    if (tool.annotations.readOnlyHint || tool.transaction === false) {
      try {
        out = tool.handler(parsed, call);
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
      let answer: { value: unknown } | { promise: PromiseLike<unknown> };
      try {
        answer = host.storage.transaction(() => {
          const value = tool.handler(parsed, call);
          return isPromiseLike(value) ? { promise: value } : { value: checkOutput(tool, value) };
        });
      } catch (err) {
        // The call's transaction was rolled back (a savepoint, inside an open one): none of its writes stay.
        throw withKeysGivenInstead(host.failure(err, tool.plugin, { rolledBack: true, elapsedMs: performance.now() - start }), tool, args);
      }
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
