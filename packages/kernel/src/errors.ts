/**
 * The one coded error catalogue of the memory service. Every error the kernel, a store or a
 * plugin raises on purpose is a MemoryError with a stable `code` (KERNEL_ERR_*) and a `type`
 * (the error name the spec uses, e.g. ValueError). Errors raised from a plugin carry its name.
 */
export const ERROR_CATALOGUE = {
  KERNEL_ERR_VALIDATION: { type: 'ValidationError', message: 'Invalid input' },
  KERNEL_ERR_UNKNOWN_EVENT: { type: 'ValueError', message: 'Unknown lifecycle event' },
  KERNEL_ERR_VALUE: { type: 'ValueError', message: 'Invalid value' },
  KERNEL_ERR_NOT_FOUND: { type: 'NotFoundError', message: 'Not found' },
  KERNEL_ERR_PLUGIN_INVALID: { type: 'PluginError', message: 'Invalid plugin definition' },
  KERNEL_ERR_PLUGIN_KERNEL_RANGE: { type: 'PluginError', message: 'Plugin requires another kernel version' },
  KERNEL_ERR_PLUGIN_DUPLICATE: { type: 'PluginError', message: 'Plugin registered twice' },
  KERNEL_ERR_PLUGIN_SETUP: { type: 'PluginError', message: 'Plugin setup failed' },
  KERNEL_ERR_PLUGIN_LOAD: { type: 'PluginError', message: 'Plugin could not be loaded' },
  KERNEL_ERR_HOOK_UNKNOWN: { type: 'HookError', message: 'Unknown hook' },
  KERNEL_ERR_HOOK_TIMEOUT: { type: 'HookError', message: 'Hook tap did not settle in time' },
  KERNEL_ERR_TOOL_INVALID: { type: 'ToolError', message: 'Invalid tool definition' },
  KERNEL_ERR_TOOL_DUPLICATE: { type: 'ToolError', message: 'Tool registered twice' },
  KERNEL_ERR_TOOL_UNKNOWN: { type: 'ToolError', message: 'Unknown tool' },
  KERNEL_ERR_TOOL_FAILED: { type: 'ToolError', message: 'Tool failed' },
  KERNEL_ERR_TIER_REFUSED: { type: 'TierError', message: 'Action belongs to a tier that is not exposed' },
  KERNEL_ERR_AFTER_READY: { type: 'LifecycleError', message: 'Registration is closed after ready' },
  KERNEL_ERR_CLOSED: { type: 'LifecycleError', message: 'Kernel is closed' },
  KERNEL_ERR_MIGRATION: { type: 'MigrationError', message: 'Migration failed' },
  KERNEL_ERR_MIGRATION_SCOPE: { type: 'MigrationError', message: "Migration touched a schema object or table its plugin does not own" },
  KERNEL_ERR_CONFIG: { type: 'ConfigError', message: 'Invalid configuration' },
  KERNEL_ERR_PATH: { type: 'PathError', message: 'Path escapes the data directory' },
  KERNEL_ERR_CONFLICT: { type: 'ConflictError', message: 'Conflicting state' },
  KERNEL_ERR_STORAGE: { type: 'StorageError', message: 'Storage unavailable' },
  KERNEL_ERR_BUSY: { type: 'BusyError', message: 'Database busy: another process holds its write lock' },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export interface MemoryErrorOptions {
  /** The input field at fault, as a dotted path. */
  field?: string;
  /** What the field accepts, for a model to correct its call. */
  accepted?: unknown;
  /** The plugin the error comes from. */
  plugin?: string;
  details?: unknown;
  cause?: unknown;
}

export class MemoryError extends Error {
  readonly code: ErrorCode;
  readonly type: string;
  readonly field?: string;
  readonly accepted?: unknown;
  plugin?: string;
  readonly details?: unknown;

  constructor(code: ErrorCode, message?: string, opts: MemoryErrorOptions = {}) {
    // A code not in the catalogue (a plugin's own, from plain JavaScript) is a tool failure that names it:
    // reading its entry crashed the error handling itself ("Cannot read properties of undefined").
    const known = Object.hasOwn(ERROR_CATALOGUE, code);
    if (!known) {
      message = `${message ?? 'Tool failed'} (error code ${JSON.stringify(code)} is not in the kernel's catalogue)`;
      code = 'KERNEL_ERR_TOOL_FAILED';
    }
    const entry = ERROR_CATALOGUE[code];
    super(message ?? entry.message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = entry.type;
    this.code = code;
    this.type = entry.type;
    this.field = opts.field;
    this.accepted = opts.accepted;
    this.plugin = opts.plugin;
    this.details = opts.details;
  }

  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { type: this.type, code: this.code, message: this.message };
    if (this.field !== undefined) out.field = this.field;
    if (this.accepted !== undefined) out.accepted = this.accepted;
    if (this.plugin !== undefined) out.plugin = this.plugin;
    if (this.details !== undefined) out.details = this.details;
    return out;
  }
}

export function isMemoryError(err: unknown): err is MemoryError {
  return err instanceof MemoryError;
}

/** Shorthand for a validation error naming the field and what it accepts. */
export function invalid(field: string, problem: string, accepted?: unknown): MemoryError {
  return new MemoryError('KERNEL_ERR_VALIDATION', `Invalid input: field "${field}" ${problem}`, { field, accepted });
}

/** Coded errors from code that does not import the kernel (e.g. the stores) map by their `type`. */
const CODE_BY_TYPE: Record<string, ErrorCode> = {
  ValidationError: 'KERNEL_ERR_VALIDATION',
  ValueError: 'KERNEL_ERR_VALUE',
  NotFoundError: 'KERNEL_ERR_NOT_FOUND',
  PathError: 'KERNEL_ERR_PATH',
  ConflictError: 'KERNEL_ERR_CONFLICT',
};

/** Wrap anything thrown into a MemoryError, keeping coded errors as they are and tagging the plugin. */
export function toMemoryError(err: unknown, plugin?: string): MemoryError {
  if (err instanceof MemoryError) {
    if (plugin && !err.plugin) err.plugin = plugin;
    return err;
  }
  const coded = err as { type?: unknown; message?: unknown; field?: string; accepted?: unknown; details?: unknown };
  if (err instanceof Error && typeof coded.type === 'string' && CODE_BY_TYPE[coded.type]) {
    return new MemoryError(CODE_BY_TYPE[coded.type]!, err.message, {
      plugin,
      field: coded.field,
      accepted: coded.accepted,
      details: coded.details,
      cause: err,
    });
  }
  const message = err instanceof Error ? err.message : thrownValue(err);
  return new MemoryError('KERNEL_ERR_TOOL_FAILED', message, { plugin, cause: err });
}

/** The longest rendering of a thrown value that is not an Error, in characters. */
const THROWN_MAX = 200;

/**
 * A thrown value that is not an Error, as an error message shows it: a string as it is; an object
 * with a string `message` by it; anything else by its JSON, cut to THROWN_MAX characters (String()
 * of an object is "[object Object]"), or by its kind when JSON cannot write it (a cycle, a BigInt).
 */
export function thrownValue(v: unknown): string {
  if (typeof v === 'string') return v;
  const m = (v as { message?: unknown } | null)?.message;
  if (typeof m === 'string' && m) return m;
  if (typeof v !== 'object' || v === null) return String(v);
  let text: string | undefined;
  try {
    text = JSON.stringify(v);
  } catch {
    text = undefined;
  }
  const shown = text === undefined ? `${Array.isArray(v) ? 'a list' : 'an object'} JSON cannot write` : text.length > THROWN_MAX ? `${text.slice(0, THROWN_MAX - 3)}...` : text;
  return `threw a value that is not an Error: ${shown}`;
}

/**
 * A received value as an error message shows it: its JSON, cut to 60 characters; a number JSON
 * cannot write (YAML's .inf and .nan) as itself; a value JSON cannot write (nested too deeply for
 * JSON.stringify's recursion) by its kind, so the message never fails on what it reports.
 */
export function shownValue(v: unknown): string {
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  let text: string | undefined;
  try {
    text = JSON.stringify(v);
  } catch {
    return Array.isArray(v) ? 'a deeply nested list' : typeof v === 'object' ? 'a deeply nested object' : typeof v;
  }
  return text === undefined ? String(v) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
