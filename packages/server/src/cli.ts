import { SERVICE_VERSION, type Logger } from '@memory-service/kernel';
import { PluginNotPreloaded } from './plugins.js';
import { startRefusal } from './start-refusal.js';
import { createService } from './service.js';
import { serveHttp, serveStdio, type HttpServing } from './serve.js';
import { applyHeap, type HeapMode, heapFromEnv } from './heap.js';
import { applyTiering, type Tiering, tieringFromEnv } from './tiering.js';

export interface CliOptions {
  transport: 'stdio' | 'http';
  port: number;
  host: string;
  dashboard: boolean;
}

const USAGE = `Usage: memory-service [--transport stdio|http] [--port 8000] [--host 127.0.0.1] [--dashboard]

Environment:
  MCP_MEMORY_DATA_DIR  data directory (default ~/.memory-service)
  MEMORY_EXPOSE        tiers to expose (default primitives; presets agent, operator, full, all)
  MEMORY_META          1 to wrap each non-primitive tier in one dispatcher tool
  MEMORY_PLUGINS       comma list of extra plugin packages or directories
  MEMORY_IMAGE         0 to start from the packages' modules instead of the server image
  MEMORY_V8_TIERING    eager (default: V8 optimizes hot code sooner) or default (V8's own thresholds)
  MEMORY_V8_HEAP       compact (default: a small young generation once ready) or default (V8's own sizing)
  MEMORY_LOG_QUIET     1 to leave info lines off stderr (warnings and errors still print)

Options: --help (-h) prints this, --version (-v) the version.
`;

export class UsageError extends Error {}

export function parseArgs(argv: string[]): CliOptions | 'help' | 'version' {
  const opts: CliOptions = { transport: 'stdio', port: 8000, host: '127.0.0.1', dashboard: false };
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i]!;
    const [flag, inline] = raw.includes('=') ? [raw.slice(0, raw.indexOf('=')), raw.slice(raw.indexOf('=') + 1)] : [raw, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || v.startsWith('--')) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--help':
      case '-h':
        return 'help';
      case '--version':
      case '-v':
        return 'version';
      case '--transport': {
        const v = value();
        if (v !== 'stdio' && v !== 'http') throw new UsageError(`--transport must be stdio or http, got "${v}"`);
        opts.transport = v;
        break;
      }
      case '--port': {
        const v = Number(value());
        if (!Number.isInteger(v) || v < 0 || v > 65535) throw new UsageError('--port must be an integer from 0 to 65535');
        opts.port = v;
        break;
      }
      case '--host':
        opts.host = value();
        break;
      case '--dashboard':
        opts.dashboard = true;
        break;
      default:
        throw new UsageError(`unknown option ${raw}`);
    }
  }
  return opts;
}

/** How the server image (@memory-service/image) runs the command; the bin passes none. */
export interface MainOptions {
  /** The plugin modules to take the plugin set from (ServiceOptions.modules). */
  modules?: ReadonlyMap<string, unknown>;
  /**
   * Called once the server is ready, before V8's tiering flags are set (the image writes its
   * code cache here: V8 refuses a cache made under other flags than it is read with). What it
   * returns is added to the ready log line.
   */
  onReady?: () => string | undefined;
}

/**
 * Resolves once what was written to stdout has left the process. Under stdio, answers to a client
 * that reads slowly wait in stdout's buffer, and the exit dropped them: a client that sent its
 * requests and closed stdin lost the end of its answers.
 */
function stdoutFlushed(): Promise<void> {
  if (process.stdout.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => process.stdout.write('', () => resolve()));
}

/**
 * An error that reached the process (uncaught, or a rejection nobody handled) as one line naming
 * the plugin when the error carries one (a MemoryError's `plugin`), then its stack's frames.
 */
export function processErrorText(what: string, err: unknown): string {
  const plugin = (err as { plugin?: unknown } | null)?.plugin;
  const from = typeof plugin === 'string' && plugin ? ` from plugin ${plugin}` : '';
  const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  // The stack's frames (its first lines repeat the message).
  const frames = err instanceof Error && typeof err.stack === 'string' ? err.stack.split('\n').filter((l) => /^\s+at /.test(l)) : [];
  return `${what}${from}: ${message}${frames.length ? `\n${frames.join('\n')}` : ''}`;
}

/**
 * The command's listeners for what plugin code throws outside any call (a timer's callback, a
 * promise nobody awaits), which reaches the process, not a tool call's error handling: it used to
 * end the server at once, with Node's trace and no stop sequence (no drain, no flush of the
 * batched writes). A rejection nobody handled leaves nothing half done: logged, and the server goes
 * on. An uncaught throw unwound code midway: logged, then `fatal` (the stop sequence, exit 1).
 * `logger` answers the service's logger once there is one (stderr before).
 */
export function processErrorListeners(logger: () => Logger | undefined, fatal: () => void) {
  const log = (what: string, err: unknown) => {
    const text = processErrorText(what, err);
    const l = logger();
    if (l) l.error(text);
    else process.stderr.write(`memory-service: ${text}\n`);
  };
  return {
    unhandledRejection: (reason: unknown) => log('unhandled rejection', reason),
    uncaughtException: (err: unknown) => {
      log('uncaught exception', err);
      fatal();
    },
  };
}

/**
 * The `memory-service` command. Under stdio nothing but protocol reaches stdout. With
 * `options.modules`, a plugin set reaching outside them rejects with PluginNotPreloaded before
 * anything starts, so that the caller can start from the modules instead.
 */
export async function main(argv: string[], options: MainOptions = {}): Promise<void> {
  // A host may close stderr (or never read it): then only log lines are lost. Without a listener,
  // the first log line's EPIPE would be an unhandled 'error' event and end the server.
  process.stderr.on('error', () => {});
  let parsed: ReturnType<typeof parseArgs>;
  let tiering: Tiering = 'eager';
  let heap: HeapMode = 'compact';
  try {
    parsed = parseArgs(argv);
    if (parsed !== 'help' && parsed !== 'version') {
      tiering = tieringFromEnv(process.env);
      heap = heapFromEnv(process.env);
    }
  } catch (err) {
    process.stderr.write(`memory-service: ${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  if (parsed === 'help') return void process.stderr.write(USAGE);
  if (parsed === 'version') return void process.stderr.write(`${SERVICE_VERSION}\n`);
  const opts = parsed;

  // Installed here, in the command, not in the library code tests and integrators use.
  // Before the service is up there is nothing to stop: exit 1 at once.
  let fatal: (why: string) => void = () => process.exit(1);
  let service: Awaited<ReturnType<typeof createService>> | undefined;
  const listeners = processErrorListeners(
    () => service?.kernel.logger,
    () => fatal('uncaught exception'),
  );
  process.on('unhandledRejection', listeners.unhandledRejection);
  process.on('uncaughtException', listeners.uncaughtException);
  try {
    service = await createService({ modules: options.modules });
  } catch (err) {
    if (err instanceof PluginNotPreloaded) {
      // The caller starts the command again from the packages' modules, which installs its own.
      process.off('unhandledRejection', listeners.unhandledRejection);
      process.off('uncaughtException', listeners.uncaughtException);
      throw err;
    }
    process.stderr.write(startRefusal(err));
    process.exit(1);
  }
  const started = service;
  const { kernel } = started;
  let stopping = false;
  let stopTransport: () => Promise<void> = async () => {};
  /** How long a stop may take before the process exits anyway (HTTP waits for the requests received). */
  let stopWithinMs = 5000;
  /** Exit 0 on a stop asked for (a signal, the end of stdin), 1 after an uncaught exception. */
  let exitCode = 0;
  const shutdown = async (why: string) => {
    if (stopping) return;
    stopping = true;
    kernel.logger.info(`stopping (${why})`);
    const force = setTimeout(() => process.exit(exitCode), stopWithinMs);
    force.unref();
    // The service is closed (hook work awaited, the database closed) even when the transport's stop
    // failed; then the answers still queued for stdout are written (within the same bound).
    for (const step of [stopTransport, () => started.close(), stdoutFlushed]) {
      try {
        await step();
      } catch (err) {
        kernel.logger.error(`error while stopping: ${(err as Error).message}`);
      }
    }
    process.exit(exitCode);
  };
  fatal = (why) => {
    exitCode = 1;
    void shutdown(why);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  if (opts.transport === 'stdio') {
    const serving = await serveStdio(started);
    stopTransport = () => serving.close();
    void serving.ended.then((why) => shutdown(why));
    const note = options.onReady?.();
    kernel.logger.info(`ready on stdio (${started.surface.tools.length} tools, data dir ${kernel.dataDir}${note ? `, ${note}` : ''})`);
    // Once started: start-up code runs once, so optimizing it sooner would only slow the start; and
    // the image's code cache, written by onReady, is made under the flags it is read with.
    applyTiering(tiering);
    applyHeap(heap);
  } else {
    let serving: HttpServing;
    try {
      serving = await serveHttp(started, { host: opts.host, port: opts.port, dashboard: opts.dashboard });
    } catch (err) {
      // A taken port or an address not on this machine: say which option, close the data, exit 1.
      const e = err as NodeJS.ErrnoException;
      const why = e.code === 'EADDRINUSE' ? 'the port is in use (--port)' : e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND' ? 'no such address here (--host)' : e.message;
      process.stderr.write(`memory-service: cannot listen on ${opts.host}:${opts.port}: ${why}\n`);
      await started.close();
      process.exit(1);
    }
    // Closing answers the requests already received (up to drainMs) before the data is closed.
    stopTransport = () => serving.close();
    stopWithinMs = serving.drainMs + 5000;
    const address = serving.address;
    const note = options.onReady?.();
    kernel.logger.info(`listening on ${address} (MCP at /mcp${opts.dashboard ? ', dashboard at /dashboard' : ''}${note ? `, ${note}` : ''})`);
    applyTiering(tiering);
    applyHeap(heap);
  }
}
