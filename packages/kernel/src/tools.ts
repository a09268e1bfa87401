import { z } from './zod.js';
import { MemoryError, invalid } from './errors.js';
import type { ToolJsonSchemas } from './tool-schemas.js';
import type { ToolCallStats } from './call-stats.js';
import { fastArgs } from './fast-args.js';
import { fastOutput } from './fast-output.js';
import { jsonGuard, jsonProblem } from './json-output.js';
import { checkWellFormed } from './well-formed.js';
import { checkNoProtoKeys } from './proto-keys.js';
import { checkMisspelledKeys, keysGivenInstead } from './misspelled-keys.js';
import { isBlank } from './blank.js';
import { describeHiddenAt, hiddenFormatAt, toNfc } from './identity.js';
import { checkActionFields, type ActionFields } from './action-fields.js';
import { JSON_INPUT_TYPES, notJsonField } from './json-input.js';

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** What a handler learns about the call besides its arguments. */
export interface ToolCallContext {
  /** The tiers exposed on the surface the call came from (all tiers for the operator HTTP surface). */
  exposedTiers: ReadonlySet<string>;
  /** True when the surface exposes every tool. */
  exposeAll: boolean;
  /** Aborted when the client cancels the request. */
  signal?: AbortSignal;
  /**
   * performance.now() when the kernel took the call, given to a `transaction: false` handler: it
   * passes its call to ctx.storage.transactionWhenFree, whose wait for another process's write
   * lock then counts from the call's start, as a call in the kernel's transaction does.
   */
  since?: number;
}

export type AnyZodObject = z.ZodObject<any>;

export interface ToolDefinition<I extends AnyZodObject = AnyZodObject, O = unknown> {
  name: string;
  title: string;
  /** Written for a model: what the tool does, when to use it, what it returns. */
  description: string;
  /** The tiers the tool belongs to; defaults to the registering plugin's tier. */
  tiers?: string[];
  input: I;
  output?: z.ZodType<O>;
  annotations: Partial<ToolAnnotations> & Pick<ToolAnnotations, 'readOnlyHint'>;
  /**
   * Whether a call of a tool that is not read-only runs in one database transaction, rolled back
   * when the handler throws (default true; read-only tools never do). Set false only for a handler
   * that must run outside a transaction: one that runs VACUUM, ATTACH or a journal_mode pragma, or
   * that must not hold the write lock while it works (its writes are then its own to group with
   * `await ctx.storage.transactionWhenFree(fn, call)`, which waits for another process's write lock
   * without blocking the server; ctx.storage.transaction waits in SQLite's busy handler, and the
   * whole process with it).
   */
  transaction?: boolean;
  /**
   * For a tool with an `action` argument: the fields each action takes (action-fields.ts). A call
   * giving a field its action does not take is refused before the handler runs, naming it.
   */
  actionFields?: ActionFields;
  /**
   * Runs the call. A synchronous handler's writes are rolled back when it throws or answers what
   * `output` refuses. An async one (any answering a promise) gets no rollback: the transaction
   * commits when it hands back its promise, so what it wrote before its first `await` stays even if
   * it then fails; it writes after its last await in ctx.storage.transaction, or compensates.
   */
  handler(args: z.infer<I>, call: ToolCallContext): O | Promise<O>;
}

/** A tool as the registry keeps it: tiers resolved, annotations complete, owner known. */
export interface RegisteredTool extends ToolDefinition {
  tiers: string[];
  annotations: ToolAnnotations;
  plugin: string;
  /** The tool's JSON Schemas from its plugin's build (tool-schemas.ts), read on first use; undefined: convert. */
  jsonSchemas?: () => ToolJsonSchemas | undefined;
  /** Its calls since the kernel was made (call-stats.ts): counted by callToolNow, read by the server's /metrics. */
  calls: ToolCallStats;
}

const NAME = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * A tool as its plugin writes it: like ToolDefinition, but `input` and `output` may each be given
 * as a function returning the schema. Such a schema is built on its first use (a call, or a
 * tools/list without the plugin's tool schemas file), not when the plugin is set up: building a
 * zod schema costs, and a start builds none for the tools it does not call.
 */
export type ToolSpec<I extends AnyZodObject = AnyZodObject, O = unknown> = Omit<ToolDefinition<I, O>, 'input' | 'output'> & {
  input: I | (() => I);
  output?: z.ZodType<O> | (() => z.ZodType<O>);
};

function checkInput(name: string, input: unknown): void {
  if (!(input instanceof z.ZodObject)) {
    throw new MemoryError('KERNEL_ERR_TOOL_INVALID', `Tool ${name} needs a zod object input schema`, { field: 'input' });
  }
  // A field no JSON argument can carry (z.date(), z.bigint(), ...): published as {}, refused in every call.
  const notJson = notJsonField(input);
  if (notJson) {
    throw new MemoryError(
      'KERNEL_ERR_TOOL_INVALID',
      `Tool ${name}: input field "${notJson.path}" is ${notJson.kind}, which no JSON argument can carry (tools/list would publish it as {} and every call would be refused); ` +
        `declare it as a type JSON carries: ${JSON_INPUT_TYPES}, e.g. z.iso.datetime() for a date or z.coerce.date() to make one from a string`,
      { field: `input.${notJson.path}`, accepted: JSON_INPUT_TYPES },
    );
  }
}

function checkOutputSchema(name: string, output: unknown): void {
  if (!(output instanceof z.ZodType)) {
    throw new MemoryError('KERNEL_ERR_TOOL_INVALID', `Tool ${name} needs a zod output schema (or none)`, { field: 'output' });
  }
}

/** The tier names a tool may list (`tiers`), as a plugin's own tier must be. */
export const TOOL_TIER = /^[a-z][a-z0-9_-]{0,31}$/;
const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/**
 * Check a tool definition: defineTool does, and so does the kernel for a tool registered as a plain
 * object. A schema given as a function is checked when it is first built (not here: that would
 * build it); a schema given as a value, the name, title, description, annotations, handler, tiers
 * and transaction flag are checked now. Throws KERNEL_ERR_TOOL_INVALID naming the field.
 */
export function checkToolDefinition(def: unknown): void {
  const fail = (name: string, field: string, why: string) => new MemoryError('KERNEL_ERR_TOOL_INVALID', `Tool ${name}: ${field} ${why}`, { field });
  if (!def || typeof def !== 'object') throw new MemoryError('KERNEL_ERR_TOOL_INVALID', 'A tool must be an object made with defineTool', { field: 'tool' });
  const t = def as Record<string, unknown>;
  const name = t.name;
  if (typeof name !== 'string' || !NAME.test(name)) throw new MemoryError('KERNEL_ERR_TOOL_INVALID', `Tool name "${String(name)}" must match ${NAME}`, { field: 'name' });
  if (typeof t.title !== 'string' || !t.title.trim() || typeof t.description !== 'string' || !t.description.trim()) {
    throw new MemoryError('KERNEL_ERR_TOOL_INVALID', `Tool ${name} needs a title and a description`, { field: 'description' });
  }
  // Read through descriptors: a schema defineTool keeps lazy is a getter, and reading it would build it.
  const value = (key: string): unknown => {
    const d = Object.getOwnPropertyDescriptor(def, key);
    return d && !d.get ? d.value : undefined;
  };
  const input = value('input');
  if (typeof input !== 'function' && Object.getOwnPropertyDescriptor(def, 'input')?.get === undefined) checkInput(name, input);
  const output = value('output');
  if (output !== undefined && typeof output !== 'function') checkOutputSchema(name, output);
  if (typeof t.handler !== 'function') throw fail(name, 'handler', 'must be a function');
  const ann = t.annotations as Record<string, unknown> | undefined;
  if (!ann || typeof ann !== 'object' || typeof ann.readOnlyHint !== 'boolean') throw fail(name, 'annotations', 'must be an object with readOnlyHint true or false');
  for (const h of HINTS) if (ann[h] !== undefined && typeof ann[h] !== 'boolean') throw fail(name, `annotations.${h}`, 'must be true or false when given');
  if (t.tiers !== undefined && (!Array.isArray(t.tiers) || t.tiers.some((x) => typeof x !== 'string' || !TOOL_TIER.test(x)))) {
    throw fail(name, 'tiers', `must be a list of tier names matching ${TOOL_TIER}`);
  }
  if (t.transaction !== undefined && typeof t.transaction !== 'boolean') throw fail(name, 'transaction', 'must be true or false');
  const af = t.actionFields;
  if (af !== undefined && (af === null || typeof af !== 'object' || Object.values(af).some((v) => !Array.isArray(v) || v.some((f) => typeof f !== 'string')))) {
    throw fail(name, 'actionFields', 'must be an object of action names to lists of field names');
  }
}

/** A property read once from `build` on first access, then kept (the schema of a ToolSpec given as a function). */
function lazyProperty<T>(build: () => T, check?: (value: T) => void): PropertyDescriptor {
  let value: T | undefined;
  let built = false;
  return {
    enumerable: true,
    get(): T {
      if (!built) {
        const v = build();
        check?.(v);
        value = v;
        built = true;
      }
      return value as T;
    },
  };
}

export function defineTool<I extends AnyZodObject, O>(def: ToolSpec<I, O>): ToolDefinition<I, O> {
  checkToolDefinition(def);
  const { input, output } = def;
  const props = Object.getOwnPropertyDescriptors({ ...def });
  if (typeof input === 'function') props.input = lazyProperty(input, (v) => checkInput(def.name, v));
  if (typeof output === 'function') props.output = lazyProperty(output, (v) => v === undefined || checkOutputSchema(def.name, v));
  return Object.freeze(Object.defineProperties({}, props)) as ToolDefinition<I, O>;
}

/**
 * The registry's copy of a tool with these fields set over it: the tool's own properties are
 * copied as they are, so a schema given as a function stays unbuilt (a spread would build it).
 */
export function withToolFields<T extends object>(tool: ToolDefinition, fields: T): ToolDefinition & T {
  const props = Object.getOwnPropertyDescriptors(tool);
  for (const [k, v] of Object.entries(fields)) props[k] = { value: v, enumerable: true };
  return Object.defineProperties({}, props) as ToolDefinition & T;
}

/**
 * The issue to report: the first, or when the first is a bound, the tightest bound of the same kind
 * on the same field. zod checks a number's `int()` against the safe-integer range too, so 1e20
 * for a field of at most 200 fails both, and the first issue would name 2^53 - 1 as the limit.
 */
function tightestBound(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue {
  const first = issues[0]!;
  if (first.code !== 'too_big' && first.code !== 'too_small') return first;
  const key = first.path.join('.');
  let best = first as z.core.$ZodIssue & { maximum?: unknown; minimum?: unknown };
  for (const i of issues) {
    if (i.code !== first.code || i.path.join('.') !== key) continue;
    const b = i as typeof best;
    if (first.code === 'too_big' ? Number(b.maximum) < Number(best.maximum) : Number(b.minimum) > Number(best.minimum)) best = b;
  }
  return best;
}

/**
 * What the members of a union take, from the issue's branches: the expected type of a branch
 * refused for its type (a record is an `object`), its values for a literal or an enum, the
 * members of a nested union; a branch the input reached further into (it has the branch's kind but
 * failed a check) by the kind the check names (`origin`), the input's, or `object`/`array` from the
 * failing path. Repeats are left out, in member order.
 */
function unionKinds(issue: z.core.$ZodIssue): string[] {
  const out: string[] = [];
  const add = (k: string): void => {
    if (!out.includes(k)) out.push(k);
  };
  const branches = ((issue as any).errors ?? []) as z.core.$ZodIssue[][];
  for (const branch of branches) {
    const root = branch.find((i) => i.path.length === 0) as any;
    if (root?.code === 'invalid_type') add(root.expected === 'record' ? 'object' : String(root.expected));
    else if (root?.code === 'invalid_value' && Array.isArray(root.values)) root.values.forEach((v: unknown) => add(JSON.stringify(v)));
    else if (root?.code === 'invalid_union') unionKinds(root).forEach(add);
    else if (typeof root?.origin === 'string') add(root.origin);
    else if (root) add(kindOf((issue as any).input));
    else if (branch.length) add(typeof branch[0]!.path[0] === 'number' ? 'array' : 'object');
  }
  return out;
}

/** A member's refusal of a value not of its kind at all (its type or its literal values). */
const refusedKind = (branch: readonly z.core.$ZodIssue[]): boolean =>
  branch.length > 0 && branch.every((i) => i.path.length === 0 && (i.code === 'invalid_type' || i.code === 'invalid_value' || (i.code === 'invalid_union' && !reachedMember(i))));

/**
 * For a union issue where every member but one refused the value's kind: that member's issues, with
 * the union's path before theirs (zod gives them alone only when none of them ends the member's check).
 */
function reachedMember(issue: z.core.$ZodIssue): z.core.$ZodIssue[] | undefined {
  if (issue.code !== 'invalid_union') return undefined;
  const branches = ((issue as any).errors ?? []) as z.core.$ZodIssue[][];
  const reached = branches.filter((b) => !refusedKind(b));
  if (reached.length !== 1) return undefined;
  return reached[0]!.map((i) => ({ ...i, path: [...issue.path, ...i.path] }) as z.core.$ZodIssue);
}

/** A JSON value's kind as the error messages name types (`value` when the issue does not carry it). */
function kindOf(v: unknown): string {
  if (v === undefined) return 'value';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** Turn zod issues into one validation error naming the field and what it accepts. */
export function validationError(error: z.ZodError): MemoryError {
  let issue = tightestBound(error.issues);
  // A union whose value has the kind of exactly one member failed inside that member: its issue says more.
  for (let inner = reachedMember(issue); inner; inner = reachedMember(issue)) issue = tightestBound(inner);
  const field = issue.path.length ? issue.path.join('.') : '(arguments)';
  let accepted: unknown;
  let problem = issue.message;
  const any = issue as any;
  if (issue.code === 'invalid_value' && Array.isArray(any.values)) {
    accepted = any.values;
    problem = `must be one of ${any.values.map((v: unknown) => JSON.stringify(v)).join(', ')}`;
  } else if (issue.code === 'invalid_type') {
    // zod calls a z.record() "record"; what a client sends for one is a JSON object.
    accepted = any.expected === 'record' ? 'object' : any.expected;
    problem = any.input === undefined ? `is required (${accepted})` : `must be ${accepted}`;
  } else if (issue.code === 'too_small' || issue.code === 'too_big') {
    const bound = issue.code === 'too_small' ? any.minimum : any.maximum;
    accepted = issue.code === 'too_small' ? { min: bound } : { max: bound };
    problem = issue.message;
  } else if (issue.code === 'unrecognized_keys') {
    problem = `has unknown keys: ${any.keys.join(', ')}`;
  } else if (issue.code === 'invalid_union') {
    // zod answers a union only with "Invalid input": name what its members take ("object or array").
    accepted = unionKinds(issue).join(' or ');
    problem = any.input === undefined ? `is required (${accepted})` : `must be ${accepted}`;
  } else if ((issue.code === 'invalid_format' || issue.code === 'custom') && issue.path.at(-1) === 'user_id') {
    // The pattern and the refinement of userIdSchema: say the whole rule, as the size errors give their bound.
    accepted = USER_ID_ACCEPTED;
  }
  const err = invalid(field, problem, accepted);
  if (error.issues.length > 1) {
    (err as any).details = error.issues.map((i) => ({ field: i.path.join('.') || '(arguments)', problem: i.message }));
  }
  return err;
}

/**
 * A tool's answer as its output schema (the one tools/list publishes) reads it: keys the schema
 * does not name are dropped, as the published schema allows none. An answer the schema refuses is
 * the tool's failure, named with its plugin, instead of a result the client must reject as a
 * protocol error for not matching the schema.
 */
export function checkOutput(tool: RegisteredTool, value: unknown): unknown {
  if (!tool.output) return checkJson(tool, value);
  // An answer that plainly satisfies the schema is sent as it is (fast-output.ts): zod would copy it whole.
  if (fastOutput(tool.output)?.(value)) return sendable(tool, tool.output, value);
  const res = tool.output.safeParse(value);
  if (res.success) return sendable(tool, tool.output, res.data);
  const issue = res.error.issues[0]!;
  const where = issue.path.length ? `field "${issue.path.join('.')}"` : 'the answer';
  throw new MemoryError(
    'KERNEL_ERR_TOOL_FAILED',
    `Tool ${tool.name} (plugin ${tool.plugin}) answered with output its output schema refuses: ${where}: ${issue.message}`,
    { plugin: tool.plugin, details: res.error.issues.map((i) => ({ output_field: i.path.join('.') || '(answer)', problem: i.message })) },
  );
}

/**
 * An answer its output schema took, checked to be sendable as JSON where the schema lets through
 * what JSON cannot carry (z.unknown(), z.any(), z.bigint()...: json-output.ts); a schema of JSON
 * kinds only, as every first-party tool's, has no guard and costs nothing more. Thrown here, inside
 * the call's transaction, the failure rolls the call's writes back: the transport's own
 * JSON.stringify came after the commit, so a call reported failed kept what it wrote.
 */
function sendable(tool: RegisteredTool, schema: z.ZodType, value: unknown): unknown {
  const guard = jsonGuard(schema);
  const problem = guard && guard(value);
  if (problem) throw unsendableError(tool, problem);
  return value;
}

/**
 * The answer of a tool without an output schema, checked to be sendable as JSON (a BigInt or a
 * cycle in it failed later, in the transport, as an error naming neither the tool nor its plugin).
 */
function checkJson(tool: RegisteredTool, value: unknown): unknown {
  const problem = jsonProblem(value);
  if (problem) throw unsendableError(tool, problem);
  return value;
}

function unsendableError(tool: RegisteredTool, problem: string): MemoryError {
  return new MemoryError('KERNEL_ERR_TOOL_FAILED', `Tool ${tool.name} (plugin ${tool.plugin}) answered a value that cannot be sent as JSON: ${problem}`, {
    plugin: tool.plugin,
  });
}

export { isPromiseLike } from './promise-like.js';

/**
 * Validate arguments against a tool's input schema; nothing runs on bad input. Arguments that
 * plainly satisfy a schema of plain fields are taken by its shortcut (fast-args.ts); others are
 * parsed once on zod's fast path; only input that fails is parsed again with reportInput, which
 * the error needs to tell a missing field from one of the wrong type and which takes zod off that
 * path (about three times slower). Parsed arguments holding an unpaired surrogate or a NUL are refused
 * (well-formed.ts), and so is a field the call's action does not take (the tool's actionFields),
 * and arguments with a `__proto__` key anywhere (proto-keys.ts).
 */
export function parseArgs<I extends AnyZodObject>(tool: ToolDefinition<I, unknown>, args: unknown): z.infer<I> {
  const taken = fastArgs(tool.input)?.(args ?? {});
  if (taken) {
    checkWellFormed(taken);
    if (tool.actionFields) checkActionFields(taken.action, args as Record<string, unknown>, tool.actionFields);
    return taken as z.infer<I>;
  }
  // Before zod, which drops a __proto__ key from what it parses (proto-keys.ts); the shortcut
  // takes no key the schema lacks, so it never takes one.
  checkNoProtoKeys(args);
  const res = tool.input.safeParse(args ?? {});
  // The shortcut takes no key the schema lacks: misspelled keys are looked for only here, and
  // before zod's own error, which would name the argument left out rather than the misspelling.
  if (typeof args === 'object' && args !== null && !Array.isArray(args)) checkMisspelledKeys(args as Record<string, unknown>, Object.keys(tool.input.shape));
  if (res.success) {
    checkWellFormed(res.data);
    // The arguments as sent: a field the schema filled with its default was not given.
    if (tool.actionFields && typeof args === 'object' && args !== null) checkActionFields(res.data.action, args as Record<string, unknown>, tool.actionFields);
    return res.data;
  }
  const reported = tool.input.safeParse(args ?? {}, { reportInput: true });
  throw withKeysGivenInstead(validationError(reported.success ? res.error : reported.error), tool, args);
}

/**
 * A validation error naming an argument the call left out, with the keys the call gave that the
 * tool does not take added to its message (misspelled-keys.ts keysGivenInstead): from the schema's
 * check, or from a handler that requires an argument the schema leaves optional (project's details).
 */
export function withKeysGivenInstead(err: MemoryError, tool: ToolDefinition<AnyZodObject, unknown>, args: unknown): MemoryError {
  if (err.code !== 'KERNEL_ERR_VALIDATION' || typeof args !== 'object' || args === null || Array.isArray(args)) return err;
  const instead = keysGivenInstead(args as Record<string, unknown>, Object.keys(tool.input.shape), err.field);
  if (instead && !err.message.endsWith(instead)) err.message += instead;
  return err;
}

/** The JSON Schema of a tool's input as a client sees it. */
export function inputJsonSchema(tool: ToolDefinition): Record<string, unknown> {
  const built = (tool as RegisteredTool).jsonSchemas?.();
  if (built) return built.input;
  const schema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

export function outputJsonSchema(tool: ToolDefinition): Record<string, unknown> | undefined {
  const built = (tool as RegisteredTool).jsonSchemas?.();
  if (built) return built.output;
  if (!tool.output) return undefined;
  const schema = z.toJSONSchema(tool.output, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema.type === 'object' ? schema : undefined;
}

/** The common `layer` and `user_id` inputs. */
export const layerSchema = z.enum(['user', 'agent']);
/**
 * The longest user_id, in characters: Unicode code points (an emoji is one), as every user text is
 * counted (chars.ts), as zod's `.max` counts a string and as JSON Schema's `maxLength` is read. The
 * stores' own scope check (checkScope) counts the same way, so no id the schema takes is refused there.
 */
export const USER_ID_MAX = 200;
/** A user_id's characters: no control character (C0, DEL, C1), slash or backslash, and no white space first or last. */
// eslint-disable-next-line no-control-regex -- the control characters are what is refused
const USER_ID_PATTERN = /^[^\s\0-\x1f\x7f-\x9f/\\](?:[^\0-\x1f\x7f-\x9f/\\]*[^\s\0-\x1f\x7f-\x9f/\\])?$/;
/** What a user_id may be, as a refused one's error says it (`accepted`). */
export const USER_ID_ACCEPTED =
  `1 to ${USER_ID_MAX} characters (Unicode code points: an emoji is one), at least one visible, without white space first or last, a control character (line break, tab, escape, NUL), a slash, a backslash or an invisible format character (zero-width space, soft hyphen, ` +
  'word joiner, byte order mark, bidi embedding, override or isolate control), nor a Hangul filler (U+115F, U+1160, U+3164, U+FFA0), a Braille blank (U+2800) first or last, ' +
  'or a variation selector or other mark that shows nothing (U+034F, U+17B4, U+17B5, U+180B-U+180F, U+FE00-U+FE0F, U+E0100-U+E01EF) or a tag character first or right after an ASCII character ' +
  '(after an emoji, a CJK ideograph or a Mongolian letter it is kept); taken in Unicode NFC';
export const userIdSchema = z
  .string()
  // One user whether the name comes precomposed or decomposed (identity.ts); first, so the bounds count the NFC form.
  .overwrite(toNfc)
  .min(1)
  .max(USER_ID_MAX)
  // Neither starting nor ending with white space (so not blank), no control character (C0, DEL, C1:
  // a line break forged a section of memory_context's Markdown, "alice\t" looked like alice), no
  // slash or backslash; linear to test however long the input.
  .regex(USER_ID_PATTERN, 'must not start or end with white space, nor contain a control character (line break, tab, escape, NUL), a slash or a backslash')
  // Nor only invisible characters (blank.ts): a refinement, so the published pattern stays one any
  // JSON Schema validator can read (no \p{...} classes).
  .refine((v) => !isBlank(v), 'must show a visible character: it holds only white space and invisible characters')
  // Nor one that shows nothing or reorders what is shown where it stands (identity.ts HIDDEN_FORMAT): "ab" and
  // "a\u200Bb", "alice" and "alice\u3164" looked like one user and were two.
  .refine((v) => hiddenFormatAt(v) === -1, {
    error: (iss) => {
      const v = typeof iss.input === 'string' ? iss.input : '';
      const at = hiddenFormatAt(v);
      return `must not hold a character that shows nothing where it stands (an invisible format character, a Hangul filler, a variation selector first or after ASCII, a blank first or last): it holds ${at === -1 ? 'one' : describeHiddenAt(v, at)}`;
    },
  })
  .default('default');

/**
 * For a tool of several tiers whose actions each belong to one of them (memory_standing,
 * memory_history): refuse an action whose tier the caller's surface does not expose, as a
 * TierError naming `action` and listing the actions that surface allows.
 */
export function checkActionTier<A extends string>(tool: string, action: A, actionTiers: Readonly<Record<A, string>>, call: ToolCallContext): void {
  const tier = actionTiers[action];
  if (call.exposeAll || call.exposedTiers.has(tier)) return;
  const allowed = (Object.keys(actionTiers) as A[]).filter((a) => call.exposedTiers.has(actionTiers[a]));
  throw new MemoryError(
    'KERNEL_ERR_TIER_REFUSED',
    `${tool} action ${action} belongs to the ${tier} tier, which this surface does not expose (MEMORY_EXPOSE); allowed here: ${allowed.join(', ')}`,
    { field: 'action', accepted: allowed },
  );
}
