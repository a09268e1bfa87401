import { asValue, createContainer, InjectionMode, type AwilixContainer } from 'awilix/browser';
import { rangeAccepts } from './kernel-range.js';
import { systemClock, type Clock } from './clock.js';
import { Config, type ConfigData } from './config.js';
import { checkSections } from './config-check.js';
import { MemoryError, shownValue, toMemoryError } from './errors.js';
import {
  createHooks,
  isLifecycleEvent,
  callTap,
  LIFECYCLE_EVENTS,
  pluginHooks,
  type EventContext,
  type EventResults,
  type Hooks,
  type Layer,
  type LifecycleEvent,
} from './hooks.js';
import { pluginLogger, stderrLogger, type Logger } from './logger.js';
import { once, settlesWithin } from './util.js';
import { safeJoin } from './paths.js';
import { z } from './zod.js';
import { checkPluginDefinition, type PluginContext, type PluginDefinition } from './plugin.js';
import { checkEventPayload, TEXT_LIMIT_DEFAULT, TEXT_LIMIT_KEY } from './event-payloads.js';
import { checkWellFormed } from './well-formed.js';
import { checkNoProtoKeys } from './proto-keys.js';
import { Storage } from './storage.js';
import { pluginStorage } from './plugin-storage.js';
import { pluginContainer, restoreContainer, snapshotContainer } from './plugin-container.js';
import { storageFailureError, type StorageFailureOptions } from './storage-failures.js';
import { readToolSchemas, type ToolJsonSchemas } from './tool-schemas.js';
import { ToolCallStats } from './call-stats.js';
import { CATALOG_TOOL, DISPATCHER_PREFIX, dispatcherName } from './surface.js';
import { RESERVED_EXPOSE_TOKENS } from './exposure.js';
import { checkOutput, checkToolDefinition, isPromiseLike, layerSchema, parseArgs, userIdSchema, validationError, withKeysGivenInstead, withToolFields, type RegisteredTool, type ToolCallContext, type ToolDefinition } from './tools.js';

/** The kernel's own version; plugins declare the range they work with. */
export const KERNEL_VERSION = '1.0.0';
/** The service (API) version reported by /health. */
export const SERVICE_VERSION = '1.8.0';

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
  private readonly toolMap = new Map<string, RegisteredTool>();
  /** Per plugin with a toolSchemas file: its schemas, read on first use (undefined when unusable). */
  private readonly schemaFiles = new Map<string, () => Map<string, ToolJsonSchemas> | undefined>();
  private readonly tierOrder: string[] = [];
  /** Calls, events and taps still running, each with what it is (close() names those that never settle). */
  private readonly inflight = new Map<Promise<unknown>, string>();
  private readonly setupTimeoutMs: number;
  private readonly closeWaitMs: number;
  private readonly hookTapTimeoutMs: number;

  constructor(opts: KernelOptions) {
    this.dataDir = opts.dataDir;
    this.setupTimeoutMs = opts.setupTimeoutMs ?? SETUP_TIMEOUT_MS;
    this.closeWaitMs = opts.closeWaitMs ?? CLOSE_WAIT_MS;
    this.clock = opts.clock ?? systemClock;
    this.logger = opts.logger ?? stderrLogger();
    this.config = Config.load(opts.dataDir, opts.config);
    this.hookTapTimeoutMs = opts.hookTapTimeoutMs ?? this.config.integer('hooks.tap_timeout_ms', HOOK_TAP_TIMEOUT_MS, 100, 600_000);
    this.storage = new Storage(opts.dataDir, { logger: this.logger });
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
  }

  get state(): KernelState {
    return this.stateValue;
  }

  /** Tiers in registration order (first-party and third-party). */
  get tiers(): string[] {
    return [...this.tierOrder];
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
    const tiersBefore = this.tierOrder.length;
    const tierProblem = this.tierProblem(plugin.tier);
    if (tierProblem) {
      this.plugins.delete(plugin.name);
      throw new MemoryError('KERNEL_ERR_PLUGIN_INVALID', `Plugin ${plugin.name}: tier "${plugin.tier}" ${tierProblem}`, { plugin: plugin.name, field: 'tier' });
    }
    if (!this.tierOrder.includes(plugin.tier)) this.tierOrder.push(plugin.tier);
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
      await Promise.race([plugin.setup(this.contextFor(plugin, reg, storage)), timeout]);
    } catch (err) {
      // Nothing of a failed plugin stays: its tools, taps and tiers go, and a setup still running
      // (timed out) cannot add more.
      reg.failed = true;
      for (const name of reg.tools) this.toolMap.delete(name);
      for (const hook of reg.hooks) untap(hook, plugin.name);
      restoreContainer(this.container, container);
      this.tierOrder.splice(tiersBefore);
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

  private contextFor(plugin: PluginDefinition, reg: Registration, storage: Storage): PluginContext {
    // Inside a tool call's transaction, a tap or event handler that throws has its own writes undone (a savepoint).
    // (Boxed: better-sqlite3 refuses a transaction function that answers a promise, as an async tap does.)
    const atomic = <T>(fn: () => T): T => (this.storage.db.inTransaction ? this.storage.transaction(() => ({ value: fn() })).value : fn());
    const hooks = pluginHooks(this.hooks, plugin.name, {
      logger: this.logger,
      atomic,
      track: (work, hook) => this.track(work, `${plugin.name}'s tap on ${hook}`),
      canTap: () => !this.sealed && !reg.failed,
      tapped: (hook) => reg.hooks.add(hook),
      tapTimeoutMs: this.hookTapTimeoutMs,
    });
    return Object.freeze({
      name: plugin.name,
      tier: plugin.tier,
      kernelVersion: KERNEL_VERSION,
      dataDir: this.dataDir,
      config: this.config,
      clock: this.clock,
      storage,
      db: this.storage.db,
      container: pluginContainer(this.container, () =>
        reg.failed ? new MemoryError('KERNEL_ERR_PLUGIN_SETUP', `Plugin ${plugin.name} failed in setup; it can no longer register services in the container`, { plugin: plugin.name }) : undefined,
      ),
      hooks,
      logger: pluginLogger(this.logger, plugin.name),
      tools: {
        register: (tool: ToolDefinition<any, any>) => {
          if (reg.failed) {
            throw new MemoryError('KERNEL_ERR_PLUGIN_SETUP', `Plugin ${plugin.name} failed in setup; its tool ${tool?.name} is not registered`, { plugin: plugin.name });
          }
          this.addTool(plugin, tool);
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
            const e = this.failure(err, plugin.name);
            // One line, as for a tool (a storage failure's message says all there is to say).
            if (e.code === 'KERNEL_ERR_TOOL_FAILED' || e.code === 'KERNEL_ERR_STORAGE' || e.code === 'KERNEL_ERR_BUSY') this.logger.error(`${plugin.name} failed on ${event}: ${e.message}`);
            answer = { error: e.toJSON() };
          }
          return { ...results, [plugin.name]: answer };
        });
      },
      track: <T>(work: Promise<T>) => this.track(work, `${plugin.name}'s tracked work`),
      resolvePath: (...segments: string[]) => safeJoin(this.dataDir, ...segments),
    });
  }

  private addTool(plugin: PluginDefinition, tool: ToolDefinition): void {
    // A tool given as a plain object (not through defineTool) is held to the same checks.
    try {
      checkToolDefinition(tool);
    } catch (err) {
      (err as MemoryError).plugin = plugin.name;
      throw err;
    }
    if (this.sealed) {
      throw new MemoryError('KERNEL_ERR_AFTER_READY', `Cannot register tool ${tool.name} after ready`, { plugin: plugin.name });
    }
    if (this.toolMap.has(tool.name)) {
      const owner = this.toolMap.get(tool.name)!.plugin;
      throw new MemoryError('KERNEL_ERR_TOOL_DUPLICATE', `Tool ${tool.name} is already registered by ${owner}`, {
        plugin: plugin.name,
      });
    }
    if (tool.name === CATALOG_TOOL || tool.name.startsWith(DISPATCHER_PREFIX)) {
      throw new MemoryError(
        'KERNEL_ERR_TOOL_INVALID',
        `Tool name ${tool.name} is reserved for MEMORY_META's catalogue and tier dispatchers (${CATALOG_TOOL}, ${DISPATCHER_PREFIX}<tier>); choose another name`,
        { plugin: plugin.name, field: 'name' },
      );
    }
    const tiers = new Set(tool.tiers?.length ? tool.tiers : [plugin.tier]);
    if (tool.name.startsWith('wiki_')) tiers.add('wiki');
    for (const t of tiers) {
      const problem = this.tierProblem(t);
      if (problem) throw new MemoryError('KERNEL_ERR_TOOL_INVALID', `Tool ${tool.name}: tier "${t}" ${problem}`, { plugin: plugin.name, field: 'tiers' });
    }
    for (const t of tiers) if (!this.tierOrder.includes(t)) this.tierOrder.push(t);
    const schemas = this.schemaFile(plugin);
    this.toolMap.set(
      tool.name,
      withToolFields(tool, {
        tiers: [...tiers],
        plugin: plugin.name,
        jsonSchemas: schemas && (() => schemas()?.get(tool.name)),
        calls: new ToolCallStats(),
        annotations: {
          readOnlyHint: tool.annotations.readOnlyHint,
          destructiveHint: tool.annotations.destructiveHint ?? !tool.annotations.readOnlyHint,
          idempotentHint: tool.annotations.idempotentHint ?? tool.annotations.readOnlyHint,
          openWorldHint: tool.annotations.openWorldHint ?? false,
        },
      }),
    );
  }

  /**
   * Why a tier name cannot be added, or null: a MEMORY_EXPOSE preset token would never select it,
   * and two tiers with one dispatcher name (`a-b` and `a_b`) would list two tools of one name.
   */
  private tierProblem(tier: string): string | null {
    if (this.tierOrder.includes(tier)) return null;
    if (typeof tier !== 'string' || !tier) return 'must be a non-empty string';
    if (RESERVED_EXPOSE_TOKENS.includes(tier)) return `is a MEMORY_EXPOSE preset token (${RESERVED_EXPOSE_TOKENS.join(', ')}); choose another tier name`;
    const clash = this.tierOrder.find((t) => dispatcherName(t) === dispatcherName(tier));
    return clash ? `has the same MEMORY_META dispatcher name (${dispatcherName(tier)}) as tier "${clash}"; choose another tier name` : null;
  }

  /** The reader of a plugin's toolSchemas file, shared by its tools; undefined when it names none. */
  private schemaFile(plugin: PluginDefinition): (() => Map<string, ToolJsonSchemas> | undefined) | undefined {
    const file = plugin.toolSchemas;
    if (!file) return undefined;
    let read = this.schemaFiles.get(plugin.name);
    if (!read) {
      read = once(() => {
        const schemas = readToolSchemas(file, plugin.name);
        if (!schemas) this.logger.warn(`${plugin.name}: tool schemas file ${file.pathname} is missing or not usable; converting the zod schemas`);
        return schemas;
      });
      this.schemaFiles.set(plugin.name, read);
    }
    return read;
  }

  /** Every registered tool, in registration order. */
  tools(): RegisteredTool[] {
    return [...this.toolMap.values()];
  }

  getTool(name: string): RegisteredTool | undefined {
    return this.toolMap.get(name);
  }

  async ready(): Promise<void> {
    if (this.sealed) {
      throw new MemoryError('KERNEL_ERR_AFTER_READY', `ready() called when the kernel is ${this.stateValue === 'registering' ? 'getting ready' : this.stateValue}`);
    }
    // The plugin set is known now: a config section no plugin reads is a mistake to name at start.
    checkSections(this.config.data, [...this.plugins.values()].flatMap((p) => [p.tier, p.name]));
    this.sealed = true;
    await this.runReadyTaps();
    this.stateValue = 'ready';
  }

  /**
   * The ready hook's taps in order, each given at most the setup limit (setupTimeoutMs, 30 s by
   * default): one that never settles fails the start naming its plugin, as a setup that never
   * settles does. The hook's own series call waited for it for ever, and with nothing else pending
   * the process ended with code 0, without a word and without answering initialize. The timer is
   * referenced, so the process waits for it.
   */
  private async runReadyTaps(): Promise<void> {
    const taps = [...(this.hooks.ready as unknown as { taps: { name: string; type: string; fn: (...a: unknown[]) => unknown }[] }).taps];
    for (const tap of taps) {
      // A tap's error is already a setup error naming its plugin (hooks.ts, guarded): thrown on.
      if (!(await settlesWithin(callTap(tap), this.setupTimeoutMs))) {
        throw new MemoryError(
          'KERNEL_ERR_PLUGIN_SETUP',
          `Plugin ${tap.name} failed on ready: its ready tap did not finish within ${this.setupTimeoutMs / 1000} s (a ready tap must not wait on work that never ends)`,
          { plugin: tap.name },
        );
      }
    }
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
    const tool = this.toolMap.get(name);
    if (!tool) {
      throw new MemoryError('KERNEL_ERR_TOOL_UNKNOWN', `Unknown tool "${name}"`, { field: 'name', accepted: [...this.toolMap.keys()] });
    }
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
          throw withKeysGivenInstead(this.failure(err, tool.plugin, { elapsedMs: performance.now() - start }), tool, args);
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
          answer = this.storage.transaction(() => {
            const value = tool.handler(parsed, call);
            return isPromiseLike(value) ? { promise: value } : { value: checkOutput(tool, value) };
          });
        } catch (err) {
          // The call's transaction was rolled back (a savepoint, inside an open one): none of its writes stay.
          throw withKeysGivenInstead(this.failure(err, tool.plugin, { rolledBack: true, elapsedMs: performance.now() - start }), tool, args);
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
    return this.track(Promise.resolve(out), `tool ${name} (plugin ${tool.plugin})`).then(
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
        throw withKeysGivenInstead(this.failure(err, tool.plugin, { elapsedMs: performance.now() - start }), tool, args);
      },
    );
  }

  /**
   * What a tool or event handler threw, as a coded error carrying the plugin's name: a statement the
   * database refused (read-only, damaged, moved, the disk full, an I/O error) is a KERNEL_ERR_STORAGE
   * naming memory.db and what to do, a write that gave up waiting for another process's write lock
   * a KERNEL_ERR_BUSY saying so (storageFailureError); `rolledBack` when the call's writes were all
   * in its transaction, rolled back; `elapsedMs` how long the call had run.
   */
  private failure(err: unknown, plugin: string, opts: StorageFailureOptions = {}): MemoryError {
    const storage = storageFailureError(this.storage.file, err, opts);
    if (storage && !storage.plugin) storage.plugin = plugin;
    return storage ?? toMemoryError(err, plugin);
  }

  /** callToolNow, always answering with a promise. */
  async callTool(name: string, args: unknown, call: ToolCallContext = FULL_ACCESS): Promise<unknown> {
    return this.callToolNow(name, args, call);
  }

  /** Fire one lifecycle event; answers each handler's result keyed by plugin name. */
  async dispatchEvent(event: string, payload: unknown = {}, layer: unknown = 'user', userId: unknown = 'default'): Promise<DispatchResult> {
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
    const results = await this.track(this.hooks[event].promise({}, ctx), `event ${event}`);
    return { event, layer: eventLayer, user_id, results };
  }

  /**
   * Wait for the calls and events still running (and those they start) for at most closeWaitMs;
   * then say how many never settled, and go on closing without them.
   */
  private async settleInflight(): Promise<void> {
    const deadline = Date.now() + this.closeWaitMs;
    while (this.inflight.size) {
      const left = deadline - Date.now();
      if (left <= 0) {
        this.logger.warn(
          `closing with ${this.inflight.size} call(s) or event(s) still running after ${this.closeWaitMs} ms (${stillRunning([...this.inflight.values()])}): a tool call, hook tap or event handler that never settles`,
        );
        return;
      }
      await settlesWithin(Promise.allSettled([...this.inflight.keys()]), left);
    }
  }

  /**
   * The close hook's taps in order, each given at most closeWaitMs: one that never settles is named
   * on the logger and left behind, and the taps after it still run (the hook's own series call
   * waited for it for ever, and the database was never closed).
   */
  private async runCloseTaps(): Promise<void> {
    const taps = [...(this.hooks.close as unknown as { taps: { name: string; type: string; fn: (...a: unknown[]) => unknown }[] }).taps];
    for (const tap of taps) {
      try {
        if (!(await settlesWithin(callTap(tap), this.closeWaitMs))) {
          this.logger.warn(`closing without ${tap.name}'s close tap: it did not settle within ${this.closeWaitMs} ms`);
        }
      } catch (err) {
        this.logger.error(`${tap.name}'s close tap failed: ${(err as Error)?.message ?? String(err)}`);
      }
    }
  }

  /** Background work close() waits for; `what` names it if it never settles (a tool and its plugin, a plugin's tap). */
  track<T>(work: Promise<T>, what = 'background work'): Promise<T> {
    this.inflight.set(work, what);
    const done = () => this.inflight.delete(work);
    work.then(done, done);
    return work;
  }

  /** Wait for running work, let plugins stop their timers, close the database. */
  async close(): Promise<void> {
    if (this.stateValue === 'closed' || this.stateValue === 'closing') return;
    this.stateValue = 'closing';
    this.sealed = true;
    await this.settleInflight();
    try {
      await this.runCloseTaps();
    } finally {
      this.storage.close();
      this.stateValue = 'closed';
    }
  }
}

/** What one plugin's setup has registered so far, removed again when the setup fails. */
interface Registration {
  tools: string[];
  hooks: Set<object>;
  failed: boolean;
}

/** What is still running at close, named, the same ones counted once: at most 10, then how many more. */
export function stillRunning(what: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const w of what) counts.set(w, (counts.get(w) ?? 0) + 1);
  const named = [...counts].map(([w, n]) => (n > 1 ? `${w} x${n}` : w));
  return named.length > 10 ? `${named.slice(0, 10).join('; ')}; and ${named.length - 10} more` : named.join('; ');
}

/** Remove a plugin's taps from a hook (tapable recompiles the hook's call on its next use). */
function untap(hook: object, plugin: string): void {
  const h = hook as { taps: { name: string }[]; _resetCompilation?: () => void };
  h.taps = h.taps.filter((t) => t.name !== plugin);
  h._resetCompilation?.();
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
