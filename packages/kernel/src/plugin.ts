import type { AwilixContainer } from 'awilix/browser';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import { MemoryError, shownValue } from './errors.js';
import { isValidRange } from './kernel-range.js';
import type { EventContext, Hooks, LifecycleEvent } from './hooks.js';
import type { Logger } from './logger.js';
import type { Db, Migration, Storage } from './storage.js';
import type { ToolDefinition } from './tools.js';

/** What a plugin's setup receives. */
export interface PluginContext {
  /** The plugin's name; carried by its taps and its errors. */
  readonly name: string;
  readonly tier: string;
  readonly kernelVersion: string;
  readonly dataDir: string;
  readonly config: Config;
  readonly clock: Clock;
  readonly storage: Storage;
  readonly db: Db;
  readonly container: AwilixContainer;
  readonly hooks: Readonly<Hooks>;
  readonly logger: Logger;
  readonly tools: { register(tool: ToolDefinition<any, any>): void };
  /** Answer a lifecycle event; the result lands under this plugin's name in the dispatch result. */
  onEvent(event: LifecycleEvent, handler: (event: EventContext) => unknown | Promise<unknown>): void;
  /** Keep track of background work so close() waits for it. */
  track<T>(work: Promise<T>): Promise<T>;
  /**
   * A path under the data dir from these segments, checked to stay inside it (KERNEL_ERR_PATH
   * otherwise). Segments are joined as given: slug any taken from user input first (`slugify`).
   */
  resolvePath(...segments: string[]): string;
}

export interface PluginDefinition {
  name: string;
  version: string;
  /** The tier this plugin's tools belong to by default (a MEMORY_EXPOSE token). */
  tier: string;
  /** Semver range of the kernel this plugin works with. */
  kernel: string;
  description?: string;
  /** The plugin's own numbered migrations (own tables, prefixed with the tier). */
  migrations?: Migration[];
  /**
   * A file of the plugin's tools' JSON Schemas written by its build (writeToolSchemas, see
   * tool-schemas.ts), usually `new URL('./tool-schemas.json', import.meta.url)`. The first
   * tools/list reads it instead of converting the zod schemas; without it they are converted.
   */
  toolSchemas?: URL;
  setup(ctx: PluginContext): void | Promise<void>;
}

/**
 * A plugin's name: a package name without dots (lower-case letters, digits, `-` and `_`, optionally
 * scoped). No dot, because the name is also its config.yaml section, read by dotted paths
 * (`ctx.config.get('acme-notes.folder')`): a section `acme.notes` could never be read.
 */
const PLUGIN_NAME = /^(@[a-z0-9][a-z0-9_-]*\/)?[a-z0-9][a-z0-9_-]*$/;
/** What a valid plugin name looks like, as a refused one's error says it. */
export const PLUGIN_NAME_ACCEPTED =
  'a package name of lower-case letters, digits, "-" and "_", optionally scoped, without dots (its config.yaml section is read by dotted paths), such as "my-notes-plugin" or "@acme/notes-plugin"';
const TIER = /^[a-z][a-z0-9_-]{0,31}$/;
/** A semver version: major.minor.patch, an optional pre-release and build (semver.org's grammar, loosely). */
const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/**
 * Check a plugin definition: definePlugin does, and so does the kernel for a plugin exported as a
 * plain object. Throws KERNEL_ERR_PLUGIN_INVALID naming the plugin and the field.
 */
export function checkPluginDefinition(def: PluginDefinition): void {
  const fail = (field: string, why: string) =>
    new MemoryError('KERNEL_ERR_PLUGIN_INVALID', `Plugin ${def?.name ?? '(unnamed)'}: ${field} ${why}`, { plugin: def?.name, field });
  if (!def || typeof def !== 'object') throw fail('definition', 'must be an object');
  if (typeof def.name !== 'string' || !PLUGIN_NAME.test(def.name)) throw fail('name', `must be ${PLUGIN_NAME_ACCEPTED}; got ${shownValue(def.name)}`);
  if (typeof def.version !== 'string' || !SEMVER.test(def.version)) throw fail('version', `must be a semver version such as "1.0.0"; got ${JSON.stringify(def.version)}`);
  if (typeof def.tier !== 'string' || !TIER.test(def.tier)) throw fail('tier', `must match ${TIER}`);
  if (typeof def.kernel !== 'string' || !def.kernel.trim() || !isValidRange(def.kernel)) {
    throw fail('kernel', `must be a semver range of kernel versions, such as "^1.0.0"; got ${JSON.stringify(def.kernel)}`);
  }
  if (typeof def.setup !== 'function') throw fail('setup', 'must be a function');
  if (def.migrations !== undefined) {
    if (!Array.isArray(def.migrations)) throw fail('migrations', 'must be a list of { id, name, up }');
    const ids = new Set<number>();
    for (const [i, m] of def.migrations.entries()) {
      const at = `migrations[${i}]`;
      if (!m || typeof m !== 'object') throw fail(at, 'must be an object { id, name, up }');
      if (!Number.isSafeInteger(m.id) || m.id < 1) throw fail(`${at}.id`, 'must be a positive integer');
      if (ids.has(m.id)) throw fail(`${at}.id`, `repeats id ${m.id}`);
      ids.add(m.id);
      if (typeof m.name !== 'string' || !m.name.trim()) throw fail(`${at}.name`, 'must be a non-empty string');
      if (typeof m.up !== 'function') throw fail(`${at}.up`, 'must be a function');
    }
  }
  if (def.toolSchemas !== undefined && !(def.toolSchemas instanceof URL && def.toolSchemas.protocol === 'file:')) {
    throw fail('toolSchemas', 'must be a file: URL');
  }
}

/** A plugin is a plain, frozen value. */
export function definePlugin(def: PluginDefinition): Readonly<PluginDefinition> {
  checkPluginDefinition(def);
  return Object.freeze({ ...def, migrations: def.migrations ? Object.freeze([...def.migrations]) as Migration[] : undefined });
}

export function isPluginDefinition(v: unknown): v is PluginDefinition {
  return !!v && typeof v === 'object' && typeof (v as PluginDefinition).setup === 'function' && typeof (v as PluginDefinition).name === 'string';
}
