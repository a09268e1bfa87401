import { asValue, createContainer, InjectionMode, type AwilixContainer } from 'awilix/browser';
import { rangeAccepts } from './kernel-range.js';
import { systemClock, type Clock } from './clock.js';
import { Config, type ConfigData } from './config.js';
import { checkSections } from './config-check.js';
import { MemoryError, shownValue, toMemoryError } from './errors.js';
import { createHooks, isLifecycleEvent, LIFECYCLE_EVENTS, type EventContext, type EventResults, type Hooks, type Layer, type LifecycleEvent } from './hooks.js';
import { stderrLogger, type Logger } from './logger.js';
import { z } from './zod.js';
import { checkPluginDefinition, type PluginDefinition } from './plugin.js';
import { checkEventPayload, TEXT_LIMIT_DEFAULT, TEXT_LIMIT_KEY } from './event-payloads.js';
import { checkWellFormed } from './well-formed.js';
import { checkNoProtoKeys } from './proto-keys.js';
import { Storage, type WriteWait } from './storage.js';
import { pluginStorage } from './plugin-storage.js';
import { restoreContainer, snapshotContainer } from './plugin-container.js';
import { pluginContext, untap, type ContextHost, type Registration } from './plugin-context.js';
import type { StorageFailureOptions } from './storage-failures.js';
import { ToolRegistry } from './tool-registry.js';
import { callFailure, runTool, type CallHost } from './tool-call.js';
import { Inflight, runCloseTaps, runReadyTaps } from './kernel-lifecycle.js';
import { layerSchema, userIdSchema, validationError, type RegisteredTool, type ToolCallContext } from './tools.js';
import { KERNEL_VERSION } from './version.js';

export { KERNEL_VERSION, SERVICE_VERSION } from './version.js';
export { stillRunning } from './kernel-lifecycle.js';

export interface KernelOptions {
  dataDir: string;
  clock?: Clock;
  /** Overrides merged over `<data_dir>/config.yaml`. */
  config?: ConfigData;
  logger?: Logger;
  /** How long a plugin's setup may take before registration fails naming it (default 30 s). */
  setupTimeoutMs?: number;
  /** How long close() waits for calls and events still running before it closes without them (default 3 s). */
  closeWaitMs?: number;
  /** How long a plugin's async tap on a hook a tool call waits for may take (default: config hooks.tap_timeout_ms, else 5 s). */
  hookTapTimeoutMs?: number;
}

/** How long a plugin's setup may take by default: a setup that never settles fails the start instead of hanging it. */
export const SETUP_TIMEOUT_MS = 30_000;

/**
 * How long close() waits by default for calls and events still running: a tap or handler that never
 * settles must not keep the close taps (the stores' batched writes) and the database close from
 * running. Below the 5 s after which the stdio server exits anyway.
 */
export const CLOSE_WAIT_MS = 3_000;

/**
 * How long a plugin's async tap or lifecycle handler may take, by default, on a hook a tool call
 * waits for (message_received, session_started... hooks.ts BOUNDED_HOOKS), counted from the end of
 * its synchronous part; config.yaml hooks.tap_timeout_ms sets another. Past it the tap counts as
 * failed and the call answers: well under the request timeouts of MCP clients (the SDK's is 60 s,
 * hosts use 10-30 s), so a caller is answered before it gives up and retries (a think retried so
 * was stored twice), and far over what a tap should wait inside a call (slow work goes to ctx.track).
 */
export const HOOK_TAP_TIMEOUT_MS = 5_000;

export type KernelState = 'registering' | 'ready' | 'closing' | 'closed';

export interface DispatchResult {
  event: LifecycleEvent;
  layer: Layer;
  user_id: string;
  results: EventResults;
}

const FULL_ACCESS: ToolCallContext = Object.freeze({ exposedTiers: new Set<string>(), exposeAll: true });

/** The scope a lifecycle event is fired for, checked as a tool's `layer` and `user_id` are. */
const EVENT_SCOPE = z.object({ layer: layerSchema, user_id: userIdSchema });

/**
 * The plugin host: register -> ready -> close. Owns the container, the storage context, the
 * frozen hook bus and the tool registry; holds no memory-domain logic.
 */
export class Kernel {
  readonly dataDir: string;
  readonly clock: Clock;
  readonly config: Config;
  readonly logger: Logger;
  readonly storage: Storage;
  readonly hooks: Readonly<Hooks>;
  readonly container: AwilixContainer;
  private stateValue: KernelState = 'registering';
  /** Set as ready() starts: from then on no plugin, tool or tap registers (ready taps included). */
  private sealed = false;
  private readonly plugins = new Map<string, PluginDefinition>();
  private readonly registry: ToolRegistry;
  /** Calls, events and taps still running, each with what it is (close() names those that never settle). */
  private readonly inflight = new Inflight();
  private readonly setupTimeoutMs: number;
  private readonly closeWaitMs: number;
  private readonly hookTapTimeoutMs: number;
  /** What a tool call and a plugin's context reach of the kernel (tool-call.ts, plugin-context.ts). */
  private readonly callHost: CallHost;
  private readonly contextHost: ContextHost;

  constructor(opts: KernelOptions) {
    this.dataDir = opts.dataDir;
    this.setupTimeoutMs = opts.setupTimeoutMs ?? SETUP_TIMEOUT_MS;
    this.closeWaitMs = opts.closeWaitMs ?? CLOSE_WAIT_MS;
    this.clock = opts.clock ?? systemClock;
    this.logger = opts.logger ?? stderrLogger();
    this.config = Config.load(opts.dataDir, opts.config);
    this.hookTapTimeoutMs = opts.hookTapTimeoutMs ?? this.config.integer('hooks.tap_timeout_ms', HOOK_TAP_TIMEOUT_MS, 100, 600_000);
    this.storage = new Storage(opts.dataDir, { logger: this.logger });
    this.registry = new ToolRegistry(this.logger);
    this.hooks = createHooks();
    this.container = createContainer({ injectionMode: InjectionMode.PROXY, strict: true });
    this.container.register({
      kernel: asValue(this),
      clock: asValue(this.clock),
      config: asValue(this.config),
      logger: asValue(this.logger),
      storage: asValue(this.storage),
      db: asValue(this.storage.db),
      dataDir: asValue(this.dataDir),
      hooks: asValue(this.hooks),
    });
    this.callHost = {
      storage: this.storage,
      writes: this.storage.writes,
      failure: (err, plugin, failureOpts) => this.failure(err, plugin, failureOpts),
      track: (work, what) => this.track(work, what),
    };
    this.contextHost = {
      dataDir: this.dataDir,
      config: this.config,
      clock: this.clock,
      storage: this.storage,
      hooks: this.hooks,
      logger: this.logger,
      container: this.container,
      hookTapTimeoutMs: this.hookTapTimeoutMs,
      sealed: () => this.sealed,
      track: (work, what) => this.track(work, what),
      failure: (err, plugin) => this.failure(err, plugin),
      addTool: (plugin, tool) => this.registry.add(plugin, tool, this.sealed),
    };
  }

  get state(): KernelState {
    return this.stateValue;
  }

  /** Tiers in registration order (first-party and third-party). */
  get tiers(): string[] {
    return [...this.registry.tierOrder];
  }

  get pluginNames(): string[] {
    return [...this.plugins.keys()];
  }

  /** Register one plugin: check its kernel range, apply its migrations, run its setup. */
  async register(plugin: PluginDefinition): Promise<void> {
    if (this.sealed) {
      throw new MemoryError('KERNEL_ERR_AFTER_READY', `Cannot register ${plugin?.name}: the kernel is ${this.stateValue === 'registering' ? 'getting ready' : this.stateValue}`, {
        plugin: plugin?.name,
      });
    }
    checkPluginDefinition(plugin);
    if (this.plugins.has(plugin.name)) {
      throw new MemoryError('KERNEL_ERR_PLUGIN_DUPLICATE', `Plugin ${plugin.name} is already registered`, { plugin: plugin.name });
    }
    if (!rangeAccepts(KERNEL_VERSION, plugin.kernel)) {
      throw new MemoryError(
        'KERNEL_ERR_PLUGIN_KERNEL_RANGE',
        `Plugin ${plugin.name}@${plugin.version} requires kernel ${plugin.kernel}, but this kernel is ${KERNEL_VERSION}`,
        { plugin: plugin.name, field: 'kernel', accepted: KERNEL_VERSION },
      );
    }
    this.plugins.set(plugin.name, plugin);
    const tiersBefore = this.registry.tierOrder.length;
    const tierProblem = this.registry.tierProblem(plugin.tier);
    if (tierProblem) {
      this.plugins.delete(plugin.name);
      throw new MemoryError('KERNEL_ERR_PLUGIN_INVALID', `Plugin ${plugin.name}: tier "${plugin.tier}" ${tierProblem}`, { plugin: plugin.name, field: 'tier' });
    }
    if (!this.registry.tierOrder.includes(plugin.tier)) this.registry.tierOrder.push(plugin.tier);
    const reg: Registration = { tools: [], hooks: new Set(), failed: false };
    // What the container holds, put back if the setup fails (plugin-container.ts).
    const container = snapshotContainer(this.container);
    const storage = pluginStorage(this.storage, plugin);
    let timer: NodeJS.Timeout | undefined;
    try {
      // A plugin's migrations may touch only the schema objects named with its tier that no other
      // owner made (schema-scope.ts, schema-owners.ts); so may those it runs itself (ctx.storage).
      if (plugin.migrations?.length) storage.migrate(plugin.name, plugin.migrations);
      // A referenced timer: a setup waiting on nothing would otherwise let the process end in silence.
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`did not finish within ${this.setupTimeoutMs / 1000} s (a setup must not wait on work that never ends)`)),
          this.setupTimeoutMs,
        );
      });
      await Promise.race([plugin.setup(pluginContext(this.contextHost, plugin, reg, storage)), timeout]);
    } catch (err) {
      // Nothing of a failed plugin stays: its tools, taps, tiers and container registrations go
      // (what they replaced comes back), and a setup still running (timed out) cannot add more.
      reg.failed = true;
      for (const name of reg.tools) this.registry.byName.delete(name);
      for (const hook of reg.hooks) untap(hook, plugin.name);
      restoreContainer(this.container, container);
      this.registry.tierOrder.splice(tiersBefore);
      this.plugins.delete(plugin.name);
      const cause = toMemoryError(err, plugin.name);
      throw new MemoryError('KERNEL_ERR_PLUGIN_SETUP', `Plugin ${plugin.name} failed in setup: ${cause.message}`, {
        plugin: plugin.name,
        cause: err,
      });
    } finally {
      clearTimeout(timer);
    }
  }

  /** Every registered tool, in registration order. */
  tools(): RegisteredTool[] {
    return this.registry.list();
  }

  getTool(name: string): RegisteredTool | undefined {
    return this.registry.get(name);
  }

  async ready(): Promise<void> {
    if (this.sealed) {
      throw new MemoryError('KERNEL_ERR_AFTER_READY', `ready() called when the kernel is ${this.stateValue === 'registering' ? 'getting ready' : this.stateValue}`);
    }
    // The plugin set is known now: a config section no plugin reads is a mistake to name at start.
    checkSections(this.config.data, [...this.plugins.values()].flatMap((p) => [p.tier, p.name]));
    this.sealed = true;
    await runReadyTaps(this.hooks, this.setupTimeoutMs);
    this.stateValue = 'ready';
  }

  private assertOpen(): void {
    if (this.stateValue === 'closing' || this.stateValue === 'closed') {
      throw new MemoryError('KERNEL_ERR_CLOSED', 'The kernel is closed');
    }
  }

  /**
   * Validate arguments and run the handler. A handler that answers with a value (not a promise)
   * has it returned at once, so a transport can answer within the same turn; one that answers with
   * a promise gets a promise back, tracked until it settles (close() waits for it). Any failure is a
   * coded error carrying the plugin's name, thrown or rejected as the handler failed.
   *
   * A tool that is not read-only (annotations.readOnlyHint false) and does not opt out
   * (`transaction: false`) runs in one transaction (Storage.transaction; a savepoint when one is
   * open): when its handler throws, or answers a value its output schema refuses, every database
   * write the call made is rolled back. A handler that answers a promise has what it wrote before
   * answering committed then; what it writes after an await is its own to group
   * (ctx.storage.transaction). Read-only tools run without one.
   */
  callToolNow(name: string, args: unknown, call: ToolCallContext = FULL_ACCESS): unknown {
    this.assertOpen();
    const tool = this.registry.byName.get(name);
    if (!tool) {
      throw new MemoryError('KERNEL_ERR_TOOL_UNKNOWN', `Unknown tool "${name}"`, { field: 'name', accepted: [...this.registry.byName.keys()] });
    }
    return runTool(this.callHost, tool, args, call, name);
  }

  /** What a tool or event handler threw, as a coded error carrying the plugin's name (callFailure, tool-call.ts). */
  private failure(err: unknown, plugin: string, opts: StorageFailureOptions = {}): MemoryError {
    return callFailure(this.storage.file, err, plugin, opts);
  }

  /** callToolNow, always answering with a promise. */
  async callTool(name: string, args: unknown, call: ToolCallContext = FULL_ACCESS): Promise<unknown> {
    return this.callToolNow(name, args, call);
  }

  /**
   * Fire one lifecycle event; answers each handler's result keyed by plugin name. `call` (a tool
   * call's context, memory_hook) hands its start and cancel signal to the handlers (EventContext).
   */
  async dispatchEvent(event: string, payload: unknown = {}, layer: unknown = 'user', userId: unknown = 'default', call?: WriteWait): Promise<DispatchResult> {
    this.assertOpen();
    if (!isLifecycleEvent(event)) {
      throw new MemoryError('KERNEL_ERR_UNKNOWN_EVENT', `Unknown event ${shownValue(event)}; known events: ${LIFECYCLE_EVENTS.join(', ')}`, {
        field: 'event',
        accepted: LIFECYCLE_EVENTS,
      });
    }
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
      throw new MemoryError('KERNEL_ERR_VALIDATION', 'Invalid input: field "payload" must be an object', {
        field: 'payload',
        accepted: 'object',
      });
    }
    // The same layer and user_id rules as every tool's arguments (tools.ts), not a copy of them;
    // reportInput lets the error tell a user_id of the wrong type from a missing one, as parseArgs does.
    const scope = EVENT_SCOPE.safeParse({ layer, user_id: userId }, { reportInput: true });
    if (!scope.success) throw validationError(scope.error);
    const { layer: eventLayer, user_id } = scope.data;
    // As for a tool's arguments: no unpaired surrogate anywhere (well-formed.ts), named by its path.
    checkWellFormed({ user_id, payload });
    // As for a tool's arguments: no __proto__ key anywhere (proto-keys.ts), named by its path.
    checkNoProtoKeys(payload, 'payload');
    checkEventPayload(event, payload as Record<string, unknown>, this.config.integer(TEXT_LIMIT_KEY, TEXT_LIMIT_DEFAULT, 100, 10_000_000));
    const ctx: EventContext = { event, payload: payload as Record<string, unknown>, layer: eventLayer, user_id };
    // A tool call's start and cancel signal (memory_hook): the handlers' writes wait for the lock within its budget.
    if (call?.since !== undefined) ctx.since = call.since;
    if (call?.signal) ctx.signal = call.signal;
    const results = await this.track(this.hooks[event].promise({}, ctx), `event ${event}`);
    return { event, layer: eventLayer, user_id, results };
  }

  /** Background work close() waits for; `what` names it if it never settles (a tool and its plugin, a plugin's tap). */
  track<T>(work: Promise<T>, what = 'background work'): Promise<T> {
    return this.inflight.track(work, what);
  }

  /** Wait for running work, let plugins stop their timers, close the database. */
  async close(): Promise<void> {
    if (this.stateValue === 'closed' || this.stateValue === 'closing') return;
    this.stateValue = 'closing';
    this.sealed = true;
    // Write calls still waiting for another process's write lock get it within the wait or fail
    // (KERNEL_ERR_CLOSED, nothing written): none is left hanging on a closed database.
    const started = Date.now();
    await this.callHost.writes.settle(this.closeWaitMs);
    await this.inflight.settle(Math.max(0, this.closeWaitMs - (Date.now() - started)), this.logger);
    try {
      await runCloseTaps(this.hooks, this.closeWaitMs, this.logger);
    } finally {
      this.storage.close();
      this.stateValue = 'closed';
    }
  }
}

/** Create a kernel and register the given plugins in order. */
export async function createKernel(opts: KernelOptions & { plugins?: PluginDefinition[] }): Promise<Kernel> {
  const kernel = new Kernel(opts);
  try {
    for (const p of opts.plugins ?? []) await kernel.register(p);
  } catch (err) {
    await kernel.close();
    throw err;
  }
  return kernel;
}
