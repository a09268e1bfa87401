import type { AwilixContainer } from 'awilix/browser';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import { MemoryError, shownValue } from './errors.js';
import { isLifecycleEvent, LIFECYCLE_EVENTS, pluginHooks, type EventContext, type EventResults, type Hooks, type LifecycleEvent } from './hooks.js';
import { pluginLogger, type Logger } from './logger.js';
import { safeJoin } from './paths.js';
import type { PluginContext, PluginDefinition } from './plugin.js';
import { pluginContainer } from './plugin-container.js';
import type { Storage } from './storage.js';
import type { ToolDefinition } from './tools.js';
import { KERNEL_VERSION } from './version.js';

/** What of the kernel a plugin's context reaches (Kernel.register builds one per kernel). */
export interface ContextHost {
  readonly dataDir: string;
  readonly config: Config;
  readonly clock: Clock;
  readonly storage: Storage;
  readonly hooks: Readonly<Hooks>;
  readonly logger: Logger;
  readonly container: AwilixContainer;
  /** How long an async tap on a hook a tool call waits for may take. */
  readonly hookTapTimeoutMs: number;
  /** Whether ready() has started (or close()): nothing more registers. */
  sealed(): boolean;
  track<T>(work: Promise<T>, what: string): Promise<T>;
  /** What a handler threw, as a coded error carrying the plugin's name (Kernel.failure). */
  failure(err: unknown, plugin: string): MemoryError;
  addTool(plugin: PluginDefinition, tool: ToolDefinition): void;
}

/** What one plugin's setup has registered so far, removed again when the setup fails. */
export interface Registration {
  tools: string[];
  hooks: Set<object>;
  failed: boolean;
}

/** Remove a plugin's taps from a hook (tapable recompiles the hook's call on its next use). */
export function untap(hook: object, plugin: string): void {
  const h = hook as { taps: { name: string }[]; _resetCompilation?: () => void };
  h.taps = h.taps.filter((t) => t.name !== plugin);
  h._resetCompilation?.();
}

/** The context a plugin's setup gets: the kernel's services, and registrations recorded in `reg`. */
export function pluginContext(host: ContextHost, plugin: PluginDefinition, reg: Registration, storage: Storage): PluginContext {
  // Inside a tool call's transaction, a tap or event handler that throws has its own writes undone (a savepoint).
  // (Boxed: better-sqlite3 refuses a transaction function that answers a promise, as an async tap does.)
  const atomic = <T>(fn: () => T): T => (host.storage.db.inTransaction ? host.storage.transaction(() => ({ value: fn() })).value : fn());
  const hooks = pluginHooks(host.hooks, plugin.name, {
    logger: host.logger,
    atomic,
    track: (work, hook) => host.track(work, `${plugin.name}'s tap on ${hook}`),
    canTap: () => !host.sealed() && !reg.failed,
    tapped: (hook) => reg.hooks.add(hook),
    tapTimeoutMs: host.hookTapTimeoutMs,
  });
  return Object.freeze({
    name: plugin.name,
    tier: plugin.tier,
    kernelVersion: KERNEL_VERSION,
    dataDir: host.dataDir,
    config: host.config,
    clock: host.clock,
    storage,
    db: host.storage.db,
    container: pluginContainer(host.container, () =>
      reg.failed ? new MemoryError('KERNEL_ERR_PLUGIN_SETUP', `Plugin ${plugin.name} failed in setup; it can no longer register services in the container`, { plugin: plugin.name }) : undefined,
    ),
    hooks,
    logger: pluginLogger(host.logger, plugin.name),
    tools: {
      register: (tool: ToolDefinition<any, any>) => {
        if (reg.failed) {
          throw new MemoryError('KERNEL_ERR_PLUGIN_SETUP', `Plugin ${plugin.name} failed in setup; its tool ${tool?.name} is not registered`, { plugin: plugin.name });
        }
        host.addTool(plugin, tool);
        reg.tools.push(tool.name);
      },
    },
    onEvent: (event: LifecycleEvent, handler: (e: EventContext) => unknown) => {
      if (!isLifecycleEvent(event)) {
        throw new MemoryError('KERNEL_ERR_HOOK_UNKNOWN', `Unknown lifecycle event ${shownValue(event)}; known events: ${LIFECYCLE_EVENTS.join(', ')}`, {
          plugin: plugin.name,
          field: 'event',
          accepted: LIFECYCLE_EVENTS,
        });
      }
      if (typeof handler !== 'function') {
        throw new MemoryError('KERNEL_ERR_PLUGIN_INVALID', `Plugin ${plugin.name}: the handler of ${event} must be a function`, { plugin: plugin.name, field: 'handler' });
      }
      // One plugin's failing handler answers an error under its name; the other handlers still run.
      hooks[event].tapPromise(plugin.name, async (results: EventResults, ctx: EventContext) => {
        let answer: unknown;
        try {
          answer = await atomic(() => handler(ctx));
          // An answer JSON cannot carry (a BigInt, a cycle) is this handler's failure, not the whole event's.
          JSON.stringify(answer);
        } catch (err) {
          const e = host.failure(err, plugin.name);
          // One line, as for a tool (a storage failure's message says all there is to say).
          if (e.code === 'KERNEL_ERR_TOOL_FAILED' || e.code === 'KERNEL_ERR_STORAGE' || e.code === 'KERNEL_ERR_BUSY') host.logger.error(`${plugin.name} failed on ${event}: ${e.message}`);
          answer = { error: e.toJSON() };
        }
        return { ...results, [plugin.name]: answer };
      });
    },
    track: <T>(work: Promise<T>) => host.track(work, `${plugin.name}'s tracked work`),
    resolvePath: (...segments: string[]) => safeJoin(host.dataDir, ...segments),
  });
}
