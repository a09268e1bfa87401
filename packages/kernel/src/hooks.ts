import { AsyncParallelHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, SyncHook, SyncWaterfallHook } from './vendor.js';
import { MemoryError, shownValue, toMemoryError } from './errors.js';
import type { Logger } from './logger.js';
import { isPromiseLike } from './promise-like.js';

export type Layer = 'user' | 'agent';

export interface Scope {
  layer: Layer;
  user_id: string;
}

/** The seven lifecycle events of the spec, fired through memory_hook and POST /api/hooks/:event. */
export const LIFECYCLE_EVENTS = [
  'session_started',
  'session_ended',
  'new_message',
  'auto_save_candidate',
  'post_context_compression',
  'context_threshold',
  'memory_pressure',
] as const;
export type LifecycleEvent = (typeof LIFECYCLE_EVENTS)[number];

export interface EventContext extends Scope {
  event: LifecycleEvent;
  payload: Record<string, unknown>;
  /**
   * When the event came through a tool call (memory_hook): the call's start and its cancel signal,
   * so a handler that writes with `ctx.storage.transactionWhenFree(fn, e)` waits for another
   * process's write lock within the call's budget and stops waiting when the client cancels.
   */
  since?: number;
  signal?: AbortSignal;
}

/** Handler results of one lifecycle dispatch, keyed by the name of the plugin that answered. */
export type EventResults = Record<string, unknown>;

/** A block another plugin adds to the session_started inject. */
export interface InjectBlock {
  source: string;
  title: string;
  text: string;
  score?: number;
}

export interface MessageInfo extends Scope {
  text: string;
  importance: number;
  emotional_weight: number;
  ids: { store: string; id: string }[];
}

/**
 * What the nightly run hands each `nightly` tap: the (layer, user_id) it is visiting (one that had
 * a write since the run before) and the run.
 */
export interface NightlyContext extends Scope {
  /** The run's id (`night_<n>`), as memory_diagnose reports it. */
  run_id: string;
  /** ISO time the run started, by the kernel's clock. */
  started: string;
  /** ISO time after which the scope's writes are new to this run (the previous run's end, or the first start). */
  since: string;
}

/**
 * The nightly taps' outcomes in one scope so far, keyed by plugin name. A tap answers them with
 * its own outcome added under its plugin name (`{ ...results, [name]: { counts } }`); a tap that
 * throws gets `{ error }` there instead, and the next taps still run.
 */
export type NightlyResults = Record<string, unknown>;

/** What the nightly run hands each `nightly_scopes` tap, before it visits any scope. */
export interface NightlyScopesContext {
  /** The run's id (`night_<n>`). */
  run_id: string;
  /** ISO time the run started, by the kernel's clock. */
  started: string;
  /** ISO time after which a write makes a scope new to this run (the previous run's end, or the first start). */
  since: string;
}

/**
 * The scopes the `nightly_scopes` taps add to a nightly run, keyed by plugin name. A tap answers
 * them with the (layer, user_id) pairs its plugin's own tables had a write in after `since` added
 * under its plugin name (`{ ...found, [name]: [{ layer, user_id }] }`); a tap that throws gets
 * `{ error }` there instead, and the next taps still run.
 */
export type NightlyScopes = Record<string, readonly Scope[] | { error: Record<string, unknown> }>;

export interface Hooks {
  // Lifecycle events (waterfall: each tap adds its result under its plugin name).
  session_started: AsyncSeriesWaterfallHook<[EventResults, EventContext]>;
  session_ended: AsyncSeriesWaterfallHook<[EventResults, EventContext]>;
  new_message: AsyncSeriesWaterfallHook<[EventResults, EventContext]>;
  auto_save_candidate: AsyncSeriesWaterfallHook<[EventResults, EventContext]>;
  post_context_compression: AsyncSeriesWaterfallHook<[EventResults, EventContext]>;
  context_threshold: AsyncSeriesWaterfallHook<[EventResults, EventContext]>;
  memory_pressure: AsyncSeriesWaterfallHook<[EventResults, EventContext]>;
  // Domain hooks emitted by operations.
  message_received: AsyncParallelHook<[MessageInfo]>;
  /**
   * think's stored thought, called synchronously inside think's transaction before it answers: a
   * tap's writes are part of the think (undone with it), and think stays a synchronous call. For
   * work on what think wrote (write-gate rules, watch rules); message_received is for the rest.
   */
  thought_stored: SyncHook<[MessageInfo]>;
  emotion_trigger: AsyncParallelHook<[MessageInfo]>;
  personality_shift: AsyncParallelHook<[Scope & { instruction: string; entry_id: string }]>;
  project_decision: AsyncParallelHook<[{ project: string; decision: string; outcome: string | null }]>;
  session_consolidation: AsyncParallelHook<[Scope & { session_id: string; summary: string }]>;
  graph_domain: AsyncParallelHook<[Scope & { node_id: string; node_type: string; content: string }]>;
  /** Other plugins add blocks to the session_started inject. */
  session_inject: AsyncSeriesWaterfallHook<[InjectBlock[], Scope & { text: string; budget: number }]>;
  /** memory_remember's importance gate: each tap may adjust the importance. */
  importance_gate: SyncWaterfallHook<[number, Scope & { key: string; value: string }]>;
  /**
   * The nightly run (stores' Nightly), once per scope visited, after its built-in phases: each tap
   * is recorded as a phase named after its plugin (ok, or failed with its error). A tap groups its
   * writes in ctx.storage.transaction itself (a transaction cannot span an await).
   */
  nightly: AsyncSeriesWaterfallHook<[NightlyResults, NightlyContext]>;
  /**
   * The nightly run (stores' Nightly), once per run before it visits any scope: each tap adds the
   * scopes its plugin's own tables had a write in since the run before, so a scope whose only
   * writes were a plugin's is visited (its `nightly` taps called) too. Synchronous: one read of the
   * plugin's tables on the kernel's connection; a tap that answers a promise fails. The run merges
   * them with the stores' own scopes, drops an entry that is not a valid scope (logged with the
   * plugin's name) and records each tapping plugin's outcome on the run (ok, or failed with its error).
   */
  nightly_scopes: SyncWaterfallHook<[NightlyScopes, NightlyScopesContext]>;
  // Kernel lifecycle.
  ready: AsyncSeriesHook<[]>;
  close: AsyncSeriesHook<[]>;
}

export type HookName = keyof Hooks;

/** Declared once: the hook names and their tapable semantics. Frozen on kernel.hooks. */
export function createHooks(): Readonly<Hooks> {
  const event = () => new AsyncSeriesWaterfallHook<[EventResults, EventContext]>(['results', 'event']);
  return Object.freeze({
    session_started: event(),
    session_ended: event(),
    new_message: event(),
    auto_save_candidate: event(),
    post_context_compression: event(),
    context_threshold: event(),
    memory_pressure: event(),
    message_received: new AsyncParallelHook<[MessageInfo]>(['message']),
    thought_stored: new SyncHook<[MessageInfo]>(['message']),
    emotion_trigger: new AsyncParallelHook<[MessageInfo]>(['message']),
    personality_shift: new AsyncParallelHook<[Scope & { instruction: string; entry_id: string }]>(['shift']),
    project_decision: new AsyncParallelHook<[{ project: string; decision: string; outcome: string | null }]>([
      'decision',
    ]),
    session_consolidation: new AsyncParallelHook<[Scope & { session_id: string; summary: string }]>(['session']),
    graph_domain: new AsyncParallelHook<[Scope & { node_id: string; node_type: string; content: string }]>(['node']),
    session_inject: new AsyncSeriesWaterfallHook<[InjectBlock[], Scope & { text: string; budget: number }]>([
      'blocks',
      'context',
    ]),
    importance_gate: new SyncWaterfallHook<[number, Scope & { key: string; value: string }]>(['importance', 'fact']),
    nightly: new AsyncSeriesWaterfallHook<[NightlyResults, NightlyContext]>(['results', 'run']),
    nightly_scopes: new SyncWaterfallHook<[NightlyScopes, NightlyScopesContext]>(['scopes', 'run']),
    ready: new AsyncSeriesHook<[]>([]),
    close: new AsyncSeriesHook<[]>([]),
  });
}

export function isLifecycleEvent(name: string): name is LifecycleEvent {
  return (LIFECYCLE_EVENTS as readonly string[]).includes(name);
}

type TapOptions = string | { name: string; stage?: number; before?: string | string[] };

function named(options: TapOptions, plugin: string): { name: string; stage?: number; before?: string | string[] } {
  return typeof options === 'string' ? { name: plugin } : { ...options, name: plugin };
}

/** Hooks whose taps hand a value on to the next tap (and to the caller): a failing tap hands on what it got. */
const WATERFALLS: ReadonlySet<string> = new Set<string>([...LIFECYCLE_EVENTS, 'session_inject', 'importance_gate', 'nightly', 'nightly_scopes']);
/** Waterfalls whose value is keyed by plugin name: a failing tap's error is added under its name. */
const KEYED_RESULTS: ReadonlySet<string> = new Set<string>([...LIFECYCLE_EVENTS, 'nightly', 'nightly_scopes']);
/**
 * Hooks whose taps' answers are checked: the kind of a wrong answer (a tap answering it is
 * ignored, and logged once per tap and kind), or undefined when the answer is fine.
 */
const ANSWER_CHECKS: Readonly<Record<string, ((answer: unknown) => string | undefined) & { accepted: string }>> = {
  // memory_remember's importance: a tap answering NaN or "high" was ignored without a word.
  importance_gate: Object.assign(
    (answer: unknown) => {
      if (answer === undefined || (typeof answer === 'number' && Number.isFinite(answer))) return undefined;
      if (typeof answer === 'number') return 'not finite';
      return answer === null ? 'null' : Array.isArray(answer) ? 'a list' : `a ${typeof answer}`;
    },
    { accepted: 'a finite number (the importance, clamped to 0.05..1.0 when stored)' },
  ),
};
/** Hooks called synchronously (`call`): their taps cannot be waited for. Every other hook is async. */
const SYNC_HOOKS: ReadonlySet<string> = new Set<string>(['importance_gate', 'thought_stored', 'nightly_scopes']);
/**
 * Async hooks a tool call waits on (think, evolve, project, memory_hook, memory_graph_add,
 * memory_session_end...): each tap's wait is bounded (PluginHookOptions.tapTimeoutMs), so one
 * plugin's tap or lifecycle handler that never settles cannot hang the call for every caller. Not
 * `ready` (bounded by the setup limit), `close` (by the close wait) nor `nightly` (a background run
 * whose taps may rightly work for long).
 */
export const BOUNDED_HOOKS: ReadonlySet<string> = new Set<string>([
  ...LIFECYCLE_EVENTS,
  'message_received',
  'emotion_trigger',
  'personality_shift',
  'project_decision',
  'session_consolidation',
  'graph_domain',
  'session_inject',
]);

/** What a plugin's view of the hooks needs from the kernel. */
export interface PluginHookOptions {
  /** Where a failing tap is reported, with the plugin's name. */
  logger: Logger;
  /** False once the kernel is sealed (ready or later), or the plugin's setup failed: taps are refused then. */
  canTap: () => boolean;
  /** Told of each hook the plugin taps (so a failed setup's taps can be removed). */
  tapped?: (hook: object) => void;
  /**
   * Runs the synchronous part of each tap call: inside an open transaction (a tool call's), the
   * kernel runs it in a savepoint, so a tap that throws has its own writes undone and no other's.
   */
  atomic?: <T>(fn: () => T) => T;
  /**
   * How long, in ms, a tap of a BOUNDED_HOOKS hook may wait (the time after its synchronous part)
   * before it counts as failed for the hook (logged once naming the plugin and the hook, handled as
   * a tap that throws) and the caller goes on; none: unbounded.
   */
  tapTimeoutMs?: number;
  /**
   * Told of each call of an async tap, named by its hook (so close() can name a tap that never
   * settles), and of a tap's work still running past its limit, which close() waits for (bounded).
   */
  track?: (work: Promise<unknown>, hook: string) => Promise<unknown>;
}

/**
 * A tap's function, made to fail alone: what it throws becomes a coded error carrying the
 * plugin's name, and the database writes of its synchronous part are undone (`atomic`). A `ready` tap's error is thrown on (the start fails naming the plugin). Any other
 * is logged and the hook goes on as if the tap had answered nothing: a waterfall gets the value the
 * tap was given (a lifecycle event, `nightly` and `nightly_scopes` also the error under the plugin's name), so one plugin's
 * failure neither breaks the operation that fired the hook nor hides the other taps' answers, and
 * a parallel hook still waits for every other tap, so close() waits for their work too.
 */
function guarded(
  hook: string,
  kind: 'tap' | 'tapAsync' | 'tapPromise',
  tapFn: (...args: any[]) => any,
  plugin: string,
  logger: Logger,
  atomic?: <T>(fn: () => T) => T,
  bound?: { ms: number; track?: (work: Promise<unknown>) => void },
) {
  // A tap that throws has the writes of its synchronous part undone (in a savepoint inside a tool
  // call's transaction), not those of the call that fired the hook.
  const fn = atomic ? (...args: unknown[]) => atomic(() => tapFn(...args)) : tapFn;
  const recover = (err: unknown, args: unknown[]): unknown => {
    const e = toMemoryError(err, plugin);
    if (hook === 'ready') throw new MemoryError('KERNEL_ERR_PLUGIN_SETUP', `Plugin ${plugin} failed on ready: ${e.message}`, { plugin, cause: err });
    logger.error(`${plugin} failed on hook ${hook}: ${e.message}`);
    if (!WATERFALLS.has(hook)) return undefined;
    if (KEYED_RESULTS.has(hook)) return { ...(args[0] as EventResults), [plugin]: { error: e.toJSON() } };
    return args[0];
  };
  if (bound && kind !== 'tap') {
    const within = boundedTap(hook, plugin, bound, recover);
    if (kind === 'tapPromise') {
      return (...args: unknown[]) => {
        const given = ownArgs(hook, args);
        let work: Promise<unknown>;
        try {
          work = Promise.resolve(fn(...given));
        } catch (err) {
          return Promise.resolve().then(() => recover(err, args));
        }
        return within(work, args, given);
      };
    }
    return (...args: unknown[]) => {
      const callback = args.pop() as (err: unknown, result?: unknown) => void;
      const given = ownArgs(hook, args);
      const work = new Promise<unknown>((resolve, reject) => {
        try {
          fn(...given, (err: unknown, result?: unknown) => (err ? reject(err) : resolve(result)));
        } catch (err) {
          reject(err ?? new Error('tap threw'));
        }
      });
      within(work, args, given).then(
        (result) => callback(null, result),
        (err) => callback(err),
      );
    };
  }
  if (kind === 'tapPromise') {
    return async (...args: unknown[]) => {
      try {
        return await fn(...args);
      } catch (err) {
        return recover(err, args);
      }
    };
  }
  if (kind === 'tapAsync') {
    return (...args: unknown[]) => {
      const callback = args.pop() as (err: unknown, result?: unknown) => void;
      const answer = (err: unknown, result?: unknown) => {
        if (!err) return callback(null, result);
        try {
          callback(null, recover(err, args));
        } catch (e) {
          callback(e);
        }
      };
      try {
        fn(...args, answer);
      } catch (err) {
        answer(err ?? new Error('tap threw'));
      }
    };
  }
  const checkAnswer = ANSWER_CHECKS[hook];
  // The kinds of wrong answer already reported for this tap: one line per kind, not one per call.
  const reported = new Set<string>();
  return (...args: unknown[]) => {
    let out: unknown;
    try {
      out = fn(...args);
    } catch (err) {
      return recover(err, args);
    }
    if (checkAnswer && !isPromiseLike(out)) {
      const wrong = checkAnswer(out);
      if (wrong === undefined) return out;
      if (!reported.has(wrong)) {
        reported.add(wrong);
        logger.warn(`${plugin}'s tap on ${hook} answered ${shownValue(out)} (${wrong}), not ${checkAnswer.accepted}: ignored, the next tap and the caller get ${shownValue(args[0])} (said once per kind of answer)`);
      }
      return args[0];
    }
    if (!isPromiseLike(out)) return out;
    // Only a synchronous hook gets here (on an async hook `tap` is registered as tapPromise): its
    // caller cannot wait, so a promise is refused as the tap's answer and a rejection is logged.
    out.then(undefined, (err: unknown) => logger.error(`${plugin} failed on hook ${hook}: ${toMemoryError(err, plugin).message}`));
    return recover(new MemoryError('KERNEL_ERR_PLUGIN_INVALID', `a tap on the synchronous hook ${hook} answered a promise; it must answer at once`), args);
  };
}

/**
 * The wait for a tap's work, bounded: when it has not settled `bound.ms` after its synchronous part,
 * the tap counts as failed (recover: logged once naming the plugin and the hook, and the hook gets
 * what a tap that throws hands on) and the caller goes on. What the tap answers or throws later is
 * dropped: it cannot change the caller's result. Its work is given to `bound.track`, so close() still
 * waits for it (bounded).
 */
function boundedTap(hook: string, plugin: string, bound: { ms: number; track?: (work: Promise<unknown>) => void }, recover: (err: unknown, args: unknown[]) => unknown) {
  return (work: Promise<unknown>, args: unknown[], given: unknown[]): Promise<unknown> =>
    new Promise((resolve, reject) => {
      let done = false;
      const settle = (answer: () => unknown) => {
        try {
          resolve(answer());
        } catch (err) {
          reject(err);
        }
      };
      const timer = setTimeout(() => {
        done = true;
        bound.track?.(work.then(noop, noop));
        const late = new MemoryError(
          'KERNEL_ERR_HOOK_TIMEOUT',
          `its tap did not settle within ${bound.ms} ms (hooks.tap_timeout_ms); the call went on without it, and what it answers later is dropped`,
          { plugin },
        );
        settle(() => recover(late, args));
      }, bound.ms);
      work.then(
        (value) => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          // A waterfall tap that answers nothing hands on the value it was given (its own copy, which it may have changed).
          settle(() => (value === undefined && WATERFALLS.has(hook) ? given[0] : value));
        },
        (err: unknown) => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          settle(() => recover(err, args));
        },
      );
    });
}

const noop = (): void => {};

/**
 * The arguments a bounded tap is called with: a waterfall's value (a list or a plain object) as a
 * copy of its own, so a tap past its limit cannot change, later, the value the caller went on with.
 */
function ownArgs(hook: string, args: unknown[]): unknown[] {
  if (!WATERFALLS.has(hook)) return args;
  const v = args[0];
  const copy = Array.isArray(v) ? [...v] : v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype ? { ...v } : v;
  return copy === v ? args : [copy, ...args.slice(1)];
}

/**
 * Call one tap of a hook by itself, whichever way it was tapped: its callback (tapAsync), its
 * promise or its value. For callers that run a hook's taps one at a time (each bounded, or each
 * answer checked under the tap's name, which is its plugin's name).
 */
export function callTap(tap: { type: string; fn: unknown }, ...args: unknown[]): Promise<unknown> {
  const fn = tap.fn as (...a: unknown[]) => unknown;
  if (tap.type === 'async') return new Promise((resolve, reject) => void fn(...args, (err: unknown, result?: unknown) => (err ? reject(err) : resolve(result))));
  return Promise.resolve().then(() => fn(...args));
}

/**
 * The view of the hooks a plugin gets: tapping an unknown hook, or any hook once the kernel is
 * sealed, is a coded error; every tap carries the plugin's name whatever name the caller passed,
 * and fails alone (guarded).
 */
export function pluginHooks(hooks: Readonly<Hooks>, plugin: string, opts: PluginHookOptions): Readonly<Hooks> {
  const wrapped = new Map<string, unknown>();
  const target = hooks;
  // The proxy's own target is a plain object: a frozen target would forbid answering wrapped hooks.
  return new Proxy({} as Hooks, {
    get(_view, prop) {
      if (typeof prop !== 'string') return undefined;
      if (!(prop in target)) {
        throw new MemoryError('KERNEL_ERR_HOOK_UNKNOWN', `Unknown hook "${prop}"; declared hooks: ${Object.keys(target).join(', ')}`, {
          plugin,
          field: 'hook',
          accepted: Object.keys(target),
        });
      }
      if (!wrapped.has(prop)) {
        const hook = (target as any)[prop];
        // A method is bound once and handed out again while the hook holds the same function
        // (tapable swaps call and promise for compiled versions, and back when a tap is added):
        // isUsed() on every write then costs no new function.
        const bound = new Map<PropertyKey, { fn: (...args: unknown[]) => unknown; bound: unknown }>();
        wrapped.set(
          prop,
          new Proxy(hook, {
            get(h, key) {
              if (key === 'tap' || key === 'tapAsync' || key === 'tapPromise') {
                return (options: TapOptions, fn: (...args: any[]) => any) => {
                  // tapable's own refusal ("tapPromise is not supported on a SyncHook") named neither the hook nor the fix.
                  if (key !== 'tap' && SYNC_HOOKS.has(prop)) {
                    throw new MemoryError(
                      'KERNEL_ERR_PLUGIN_INVALID',
                      `Plugin ${plugin}: hook ${prop} is synchronous and takes tap only, not ${key}: use ctx.hooks.${prop}.tap(ctx.name, fn) with a function that answers at once (not async); the synchronous hooks are ${[...SYNC_HOOKS].join(', ')}`,
                      { plugin, field: key, accepted: 'tap' },
                    );
                  }
                  if (!opts.canTap()) {
                    throw new MemoryError('KERNEL_ERR_AFTER_READY', `Plugin ${plugin} cannot tap hook ${prop} outside its setup: tap hooks in setup`, { plugin });
                  }
                  if (typeof fn !== 'function') {
                    throw new MemoryError('KERNEL_ERR_PLUGIN_INVALID', `Plugin ${plugin}: the tap on hook ${prop} must be a function`, { plugin });
                  }
                  opts.tapped?.(h);
                  // `tap` on an async hook is a tapPromise: a tap answering a promise (an async
                  // function) is then waited for, its rejection fails alone, and a waterfall gets
                  // its value rather than the promise. A sync tap tapable would not wait for, so
                  // its work outran close() and a rejection ended the process (unhandled).
                  const kind = key === 'tap' && !SYNC_HOOKS.has(prop) ? 'tapPromise' : key;
                  const track = opts.track;
                  const bound =
                    opts.tapTimeoutMs !== undefined && BOUNDED_HOOKS.has(prop)
                      ? { ms: opts.tapTimeoutMs, track: track ? (work: Promise<unknown>) => void track(work, prop) : undefined }
                      : undefined;
                  const tapFn = guarded(prop, kind, fn, plugin, opts.logger, opts.atomic, bound);
                  const tracked = kind === 'tapPromise' && track ? (...args: unknown[]) => track(tapFn(...args) as unknown as Promise<unknown>, prop) : tapFn;
                  return h[kind](named(options, plugin), tracked);
                };
              }
              // Other plugins' taps are read-only here: a copy, frozen (the live list let a plugin drop them).
              if (key === 'taps') return Object.freeze(h.taps.map((t: object) => Object.freeze({ ...t })));
              if (key === 'intercept') {
                return (interceptor: { register?: unknown }) => {
                  if (interceptor?.register !== undefined) {
                    throw new MemoryError('KERNEL_ERR_PLUGIN_INVALID', `Plugin ${plugin}: an interceptor of hook ${prop} may not rewrite taps (register)`, { plugin, field: 'register' });
                  }
                  return h.intercept(interceptor);
                };
              }
              const v = h[key];
              if (typeof v !== 'function') return v;
              const kept = bound.get(key);
              if (kept && kept.fn === v) return kept.bound;
              const b = v.bind(h);
              bound.set(key, { fn: v, bound: b });
              return b;
            },
            set(_h, key) {
              throw new MemoryError('KERNEL_ERR_PLUGIN_INVALID', `Plugin ${plugin} cannot change hook ${prop} (${String(key)}): tap it instead`, { plugin });
            },
          }),
        );
      }
      return wrapped.get(prop);
    },
    has: (_view, prop) => prop in target,
    ownKeys: () => Reflect.ownKeys(target),
    getOwnPropertyDescriptor: (_view, prop) => {
      const d = Reflect.getOwnPropertyDescriptor(target, prop);
      return d ? { ...d, configurable: true } : undefined;
    },
    set() {
      throw new MemoryError('KERNEL_ERR_HOOK_UNKNOWN', 'Hooks are declared by the kernel and cannot be added', { plugin });
    },
  }) as Readonly<Hooks>;
}
