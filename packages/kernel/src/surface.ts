import { z } from './zod.js';
import { ToolCallStats } from './call-stats.js';
import { MemoryError, invalid, shownValue, toMemoryError } from './errors.js';
import { isPromiseLike } from './promise-like.js';
import { checkMisspelledKeys } from './misspelled-keys.js';
import { once } from './util.js';
import { toNfc } from './identity.js';
import { isExposed, type Exposure } from './exposure.js';
import type { Kernel } from './kernel.js';
import { inputJsonSchema, layerSchema, outputJsonSchema, userIdSchema, type RegisteredTool, type ToolAnnotations, type ToolCallContext } from './tools.js';

/** Where a call's abort signal comes from: read only if the tool asks for it (an AbortController fits). */
export interface AbortSource {
  readonly signal: AbortSignal;
}

/** A tool as one MCP surface lists it: JSON schemas, annotations and two ways to call it. */
export interface SurfaceTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations: ToolAnnotations & { title: string };
  /**
   * Run the tool: the value itself when its handler answered synchronously (a transport can answer
   * within the same turn), else a promise. Failures are thrown or rejected as coded errors. The
   * source's signal is only read when the handler reads it: creating an AbortSignal costs more than
   * most calls that never look at it.
   */
  call(args: unknown, abort?: AbortSource): unknown;
  /** The same, always as a promise. */
  invoke(args: unknown, signal?: AbortSignal): Promise<unknown>;
}

/** The call context with its signal taken from `abort` when something reads it. */
function withAbort(call: ToolCallContext, abort: AbortSource | undefined): ToolCallContext {
  if (!abort) return call;
  return {
    exposedTiers: call.exposedTiers,
    exposeAll: call.exposeAll,
    get signal() {
      return abort.signal;
    },
  };
}

/** invoke() for a tool from its call(). */
function invoker(call: SurfaceTool['call']): SurfaceTool['invoke'] {
  return async (args, signal) => call(args, signal ? { signal } : undefined);
}

export interface Surface {
  exposure: Exposure;
  meta: boolean;
  tools: SurfaceTool[];
  get(name: string): SurfaceTool | undefined;
}

export const CATALOG_TOOL = 'memory_catalog';
export const DISPATCHER_PREFIX = 'memory_tier_';
export const dispatcherName = (tier: string) => `${DISPATCHER_PREFIX}${tier.replace(/-/g, '_')}`;

/** A dispatcher's or the catalogue's bad input: its first issue, naming the field (`root` for the whole input). */
function inputError(error: z.ZodError, root: string, accepted: (field: string) => unknown): MemoryError {
  const issue = error.issues[0]!;
  const field = issue.path.join('.') || root;
  return new MemoryError('KERNEL_ERR_VALIDATION', `Invalid input: field "${field}" ${issue.message}`, { field, accepted: accepted(field) });
}

/**
 * A tool's JSON Schema, or a KERNEL_ERR_TOOL_INVALID naming the tool and its plugin when its zod
 * schema cannot be built or converted (a third-party lazy schema that throws, or is not zod): the
 * list that reads it can then leave that tool out and say why.
 */
function schemaOf<T>(tool: RegisteredTool, which: 'input' | 'output', convert: (t: RegisteredTool) => T): T {
  try {
    return convert(tool);
  } catch (err) {
    throw new MemoryError('KERNEL_ERR_TOOL_INVALID', `Tool ${tool.name} (plugin ${tool.plugin}): its ${which} schema could not be built: ${(err as Error)?.message ?? String(err)}`, {
      plugin: tool.plugin,
      field: which,
      cause: err,
    });
  }
}

function flat(kernel: Kernel, tool: RegisteredTool, call: ToolCallContext): SurfaceTool {
  const run: SurfaceTool['call'] = (args, abort) => kernel.callToolNow(tool.name, args, withAbort(call, abort));
  // The JSON schemas are pure functions of the tool's zod schemas: computed on the first tools/list
  // instead of at start, and never for a surface nobody lists (the operator surface under stdio).
  const input = once(() => schemaOf(tool, 'input', inputJsonSchema));
  const output = once(() => schemaOf(tool, 'output', outputJsonSchema));
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    get inputSchema() {
      return input();
    },
    get outputSchema() {
      return output();
    },
    annotations: { title: tool.title, ...tool.annotations },
    call: run,
    invoke: invoker(run),
  };
}

function describe(tool: RegisteredTool) {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    tiers: tool.tiers,
    annotations: tool.annotations,
    input_schema: inputJsonSchema(tool),
  };
}

function mergedAnnotations(members: RegisteredTool[]): ToolAnnotations {
  return {
    readOnlyHint: members.every((m) => m.annotations.readOnlyHint),
    destructiveHint: members.some((m) => m.annotations.destructiveHint),
    idempotentHint: members.every((m) => m.annotations.idempotentHint),
    openWorldHint: members.some((m) => m.annotations.openWorldHint),
  };
}

/**
 * The calls of the tools a surface answers itself (the catalogue; a dispatcher's `list` and the
 * input it refuses), by name, per kernel: surfaces are built per transport and exposure, and each
 * name counts once. A dispatcher's call of a member is the member's, counted by Kernel.callToolNow.
 */
const surfaceStats = new WeakMap<Kernel, Map<string, ToolCallStats>>();

function statsOf(kernel: Kernel, name: string): ToolCallStats {
  let byName = surfaceStats.get(kernel);
  if (!byName) surfaceStats.set(kernel, (byName = new Map()));
  let stats = byName.get(name);
  if (!stats) byName.set(name, (stats = new ToolCallStats()));
  return stats;
}

/** The calls of the catalogue and the dispatchers' own answers so far, for /metrics (names with no call yet are left out). */
export function surfaceCallStats(kernel: Kernel): { name: string; calls: ToolCallStats }[] {
  const out: { name: string; calls: ToolCallStats }[] = [];
  for (const [name, calls] of surfaceStats.get(kernel) ?? []) if (calls.count > 0) out.push({ name, calls });
  return out;
}

/** The scope arguments every memory tool takes, which a dispatcher also takes at its top level. */
const SCOPE_FIELDS = ['layer', 'user_id'] as const;
type ScopeField = (typeof SCOPE_FIELDS)[number];

/** What a dispatcher's own field accepts, for its bad-input error. */
function dispatcherAccepted(field: string, names: string[]): unknown {
  if (field === 'action') return ['list', ...names];
  if (field === 'layer') return layerSchema.options;
  if (field === 'user_id') return 'string';
  return 'object';
}

/**
 * The member's arguments with the dispatcher's top-level scope put in where args leave it out.
 * A scope argument the member does not take, or one args give with another value, is refused
 * naming it: dropping either would run the member in a scope the caller did not ask for.
 */
function memberArgs(
  member: RegisteredTool,
  args: Record<string, unknown>,
  scope: Partial<Record<ScopeField, string>>,
  beside: readonly string[],
): Record<string, unknown> | MemoryError {
  // A member's own argument given beside action instead of inside args would be dropped, and the
  // member run without it: a clear's `key` left out cleared every note.
  for (const field of beside) {
    if (!Object.hasOwn(member.input.shape, field) || (SCOPE_FIELDS as readonly string[]).includes(field)) continue;
    return invalid(
      field,
      `is an argument of ${member.name}: give it inside args ({"action": "${member.name}", "args": {"${field}": ...}}); beside action it would be dropped`,
      `args.${field}`,
    );
  }
  let out = args;
  for (const field of SCOPE_FIELDS) {
    const top = scope[field];
    if (top === undefined) continue;
    if (!Object.hasOwn(member.input.shape, field)) {
      return invalid(
        field,
        `is not taken by ${member.name}: leave it out beside action (${member.name} takes: ${Object.keys(member.input.shape).join(', ') || 'no arguments'})`,
        Object.keys(member.input.shape),
      );
    }
    // top was parsed (a user_id is taken in NFC: userIdSchema); inner is as sent, parsed by the member.
    const inner = args[field];
    if (inner === undefined) {
      if (out === args) out = { ...args };
      out[field] = top;
    } else if (inner !== top && !(field === 'user_id' && typeof inner === 'string' && toNfc(inner) === top)) {
      return invalid(
        field,
        `differs between the dispatcher's and args' values (${shownValue(top)} and ${shownValue(inner)}): give it once, or the same value in both`,
        [inner],
      );
    }
  }
  return out;
}

/**
 * A member's error as the dispatcher's caller sees it: every argument of the member is inside
 * `args`, so a field it names is `args.<field>`, and the message names the member. Named bare, a
 * stash's bad `action` read as the dispatcher's own `action`, which takes member names.
 */
function inArgs(member: string, err: unknown): MemoryError {
  const e = toMemoryError(err);
  if (e.field === undefined || e.field.startsWith('args.')) return e;
  const field = `args.${e.field}`;
  return new MemoryError(e.code, `${member}: ${e.message.replace(`field "${e.field}"`, `field "${field}"`)}`, {
    field,
    accepted: e.accepted,
    plugin: e.plugin,
    details: e.details,
    cause: err,
  });
}

function dispatcher(kernel: Kernel, tier: string, members: RegisteredTool[], call: ToolCallContext): SurfaceTool {
  const names = members.map((m) => m.name);
  const byName = new Map(members.map((m) => [m.name, m]));
  const input = z.object({
    action: z.enum(['list', ...names] as [string, ...string[]]).describe('A member tool of this tier, or list to describe them all'),
    args: z.record(z.string(), z.unknown()).default({}).describe("The member tool's own arguments"),
    // No default: left out (here and in args), the member's own default applies.
    layer: layerSchema
      .optional()
      .describe("Memory layer: user (facts about the user) or agent (the agent itself); passed to the member as its layer when args leave it out (a different value in args is refused); left out, the member's default"),
    user_id: userIdSchema
      .removeDefault()
      .optional()
      .describe('Namespace within the layer; passed to the member as its user_id when args leave it out (a different value in args is refused); left out, the member\'s default ("default")'),
  });
  const known = Object.keys(input.shape);
  const name = dispatcherName(tier);
  const title = `Memory ${tier} tools`;
  const inputSchema = once(() => {
    const s = z.toJSONSchema(input, { io: 'input' }) as Record<string, unknown>;
    delete s.$schema;
    return s;
  });
  const own = statsOf(kernel, name);
  const run: SurfaceTool['call'] = (raw, abort) => {
    const start = performance.now();
    const parsed = input.safeParse(raw ?? {});
    let refused: MemoryError | undefined;
    // A usual other name of a scope argument (`user`, `lyr`) or a misspelling of one beside action
    // is refused as a tool's own would be, not dropped; a scope argument args give counts as given.
    const beside = parsed.success && raw ? Object.keys(raw).filter((k) => !known.includes(k)) : [];
    if (parsed.success && beside.length > 0 && parsed.data.action !== 'list') {
      const member = memberArgs(byName.get(parsed.data.action)!, {}, {}, beside);
      if (member instanceof MemoryError) refused = member;
    }
    if (parsed.success && !refused && beside.length > 0) {
      const given = { ...(raw as Record<string, unknown>) };
      for (const field of SCOPE_FIELDS) if (parsed.data.args[field] !== undefined) given[field] ??= parsed.data.args[field];
      try {
        checkMisspelledKeys(given, known);
      } catch (err) {
        refused = err as MemoryError;
      }
    }
    // A member's call is the member's (Kernel.callToolNow counts it); the list and refused input are the dispatcher's.
    if (parsed.success && !refused && parsed.data.action !== 'list') {
      const { action, args, layer, user_id } = parsed.data;
      const merged = memberArgs(byName.get(action)!, args, { layer, user_id }, []);
      if (!(merged instanceof MemoryError)) {
        const fail = (err: unknown): never => {
          throw inArgs(action, err);
        };
        try {
          const answer = kernel.callToolNow(action, merged, withAbort(call, abort));
          return isPromiseLike(answer) ? Promise.resolve(answer).then(undefined, fail) : answer;
        } catch (err) {
          throw inArgs(action, err);
        }
      }
      refused = merged;
    }
    return own.time(() => {
      if (!parsed.success) throw inputError(parsed.error, 'action', (field) => dispatcherAccepted(field, names));
      if (refused) throw refused;
      return { tier, tools: members.map(describe) };
    }, start);
  };
  return {
    name,
    title,
    description:
      `Dispatcher for the ${tier} tier (${names.length} tools: ${names.join(', ')}). ` +
      `Call with {"action": "<tool name>", "args": {...}} to run a member with its own arguments, ` +
      `or {"action": "list"} to get every member's description, annotations and input schema. ` +
      `The scope arguments "layer" (user or agent) and "user_id" may be given beside action, for a member that takes them: ` +
      `they are passed to the member when args leave them out, and a different value in args is refused.`,
    get inputSchema() {
      return inputSchema();
    },
    annotations: { title, ...mergedAnnotations(members) },
    call: run,
    invoke: invoker(run),
  };
}

/** Function words of a request, which say nothing of the tool it asks for. */
const CATALOG_STOP_WORDS: ReadonlySet<string> = new Set(
  'an the to of in on at by for from with and or my me is are be it its this that what which how do does can all any some into out up about'.split(' '),
);

function catalog(kernel: Kernel, visible: RegisteredTool[], tierOf: (t: RegisteredTool) => string): SurfaceTool {
  const input = z.object({
    query: z.string().max(200).default('').describe('Keywords matched against tool names, titles and descriptions; empty lists every tool'),
    tool: z.string().max(64).optional().describe('A tool name to describe in full, with its input schema'),
  });
  const title = 'Memory tool catalogue';
  const inputSchema = once(() => {
    const s = z.toJSONSchema(input, { io: 'input' }) as Record<string, unknown>;
    delete s.$schema;
    return s;
  });
  const stats = statsOf(kernel, CATALOG_TOOL);
  const run: SurfaceTool['call'] = (raw) => stats.time(() => answer(raw));
  const answer = (raw: unknown) => {
    const parsed = input.safeParse(raw ?? {});
    if (!parsed.success) throw inputError(parsed.error, 'query', () => 'string');
    const { query, tool } = parsed.data;
    const via = (t: RegisteredTool) => (tierOf(t) === 'primitives' ? t.name : dispatcherName(tierOf(t)));
    if (tool) {
      const found = visible.find((t) => t.name === tool);
      if (!found) {
        throw new MemoryError('KERNEL_ERR_NOT_FOUND', `No exposed tool named "${tool}"`, {
          field: 'tool',
          accepted: visible.map((t) => t.name),
        });
      }
      // The result's shape too: a dispatcher publishes no output schema of its members.
      return { count: 1, tools: [{ ...describe(found), output_schema: outputJsonSchema(found) ?? null, call_via: via(found) }] };
    }
    // Words that say nothing of a tool ("the", "a", "my") matched every description, and a
    // one-letter word the name of any tool holding that letter: left out of the score.
    const terms = query
      .toLowerCase()
      .split(/[^a-z0-9_]+/)
      .filter((w) => w.length > 1 && !CATALOG_STOP_WORDS.has(w));
    const scored = visible
      .map((t) => {
        const hay = `${t.name} ${t.title} ${t.description}`.toLowerCase();
        const score = terms.reduce((s, term) => s + (t.name.includes(term) ? 3 : 0) + (hay.includes(term) ? 1 : 0), 0);
        return { t, score };
      })
      .filter((x) => terms.length === 0 || x.score > 0)
      .sort((a, b) => b.score - a.score || a.t.name.localeCompare(b.t.name));
    return {
      count: scored.length,
      tools: scored.map(({ t }) => ({ name: t.name, title: t.title, description: t.description, tiers: t.tiers, call_via: via(t) })),
    };
  };
  return {
    name: CATALOG_TOOL,
    title,
    description:
      'Search and describe every exposed memory tool across tiers. Give keywords in query to find tools ' +
      '(e.g. "graph edges", "backup"), or a tool name in tool for its full description and input schema. ' +
      'Returns for each tool the dispatcher to call it through (memory_tier_<tier>) or that it is called directly.',
    get inputSchema() {
      return inputSchema();
    },
    annotations: { title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    call: run,
    invoke: invoker(run),
  };
}

/**
 * The tool list one MCP surface shows: flat tools filtered by MEMORY_EXPOSE, or with MEMORY_META
 * the primitives flat plus one dispatcher per other exposed tier and the catalogue.
 */
export function buildSurface(kernel: Kernel, exposure: Exposure, meta: boolean): Surface {
  const call: ToolCallContext = { exposedTiers: exposure.tiers, exposeAll: exposure.all };
  const visible = kernel.tools().filter((t) => isExposed(exposure, t.name, t.tiers));
  let tools: SurfaceTool[];
  if (!meta) {
    tools = visible.map((t) => flat(kernel, t, call));
  } else {
    const primitives = visible.filter((t) => t.tiers.includes('primitives'));
    tools = primitives.map((t) => flat(kernel, t, call));
    const rest = visible.filter((t) => !t.tiers.includes('primitives'));
    const firstTier = new Map<RegisteredTool, string>();
    for (const tier of kernel.tiers) {
      if (tier === 'primitives') continue;
      const members = rest.filter((t) => (exposure.all || exposure.tiers.has(tier) || exposure.tools.has(t.name)) && t.tiers.includes(tier));
      if (!members.length) continue;
      members.forEach((m) => firstTier.has(m) || firstTier.set(m, tier));
      tools.push(dispatcher(kernel, tier, members, call));
    }
    if (rest.length) tools.push(catalog(kernel, visible, (t) => (t.tiers.includes('primitives') ? 'primitives' : firstTier.get(t) ?? t.tiers[0]!)));
  }
  const byName = new Map(tools.map((t) => [t.name, t]));
  return { exposure, meta, tools, get: (name) => byName.get(name) };
}
