import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isPluginDefinition, MemoryError, type PluginDefinition } from '@memory-service/kernel';

/** The first-party plugin set, loaded by package name (see docs/decisions.md on why by name). */
export const FIRST_PARTY_PLUGINS = [
  '@memory-service/plugin-primitives',
  '@memory-service/plugin-wiki',
  '@memory-service/plugin-review',
  '@memory-service/plugin-context',
  '@memory-service/plugin-insight',
  '@memory-service/plugin-write',
  '@memory-service/plugin-admin',
] as const;

/** Split a comma list (MEMORY_PLUGINS) into trimmed entries. */
export function parsePluginList(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function looksLikePath(spec: string): boolean {
  return spec.startsWith('.') || spec.startsWith('/') || path.isAbsolute(spec);
}

/** The module file of a plugin given as a directory (its package.json entry) or a file. */
function entryOfPath(spec: string, cwd: string): string {
  const target = path.resolve(cwd, spec);
  if (!fs.existsSync(target)) throw new Error(`no such file or directory: ${target}`);
  if (fs.statSync(target).isFile()) return target;
  const pkgFile = path.join(target, 'package.json');
  if (fs.existsSync(pkgFile)) {
    let pkg: { main?: string; exports?: unknown };
    try {
      pkg = JSON.parse(fs.readFileSync(pkgFile, 'utf8')) as typeof pkg;
    } catch (err) {
      // JSON.parse's own message names no file.
      throw new Error(`${pkgFile} is not valid JSON (${(err as Error).message})`);
    }
    const exp = pkg.exports as any;
    const rel =
      (typeof exp === 'string' && exp) ||
      (exp && typeof exp['.'] === 'string' && exp['.']) ||
      exp?.['.']?.import ||
      exp?.['.']?.default ||
      exp?.import ||
      pkg.main ||
      'index.js';
    return path.resolve(target, rel);
  }
  return path.join(target, 'index.js');
}

/**
 * Raised when a plugin set is loaded from a fixed set of modules (`modules` of loadPluginSet: the
 * server image, see @memory-service/image) and names a plugin outside it. The image's caller then
 * starts the server from the packages' modules instead, where any plugin can be imported.
 */
export class PluginNotPreloaded extends Error {
  constructor(readonly specs: string[]) {
    super(`plugins outside the loaded modules: ${specs.join(', ')}`);
    this.name = 'PluginNotPreloaded';
  }
}

/** The plugins a module exports: its default export, `plugin` or `plugins`, made by definePlugin. */
function pluginsOf(spec: string, mod: any): PluginDefinition[] {
  const candidates = [mod?.default, mod?.plugin, mod?.plugins].flat().filter(Boolean);
  const plugins = candidates.filter(isPluginDefinition);
  if (!plugins.length) {
    throw new MemoryError('KERNEL_ERR_PLUGIN_LOAD', `Plugin ${spec} exports no plugin (expected a default export made by definePlugin)`, {
      plugin: spec,
    });
  }
  return plugins;
}

/** Import one plugin module by package name or path; its default export (or `plugin`) is the plugin. */
export async function loadPlugin(spec: string, cwd = process.cwd()): Promise<PluginDefinition[]> {
  let mod: any;
  try {
    if (looksLikePath(spec)) {
      mod = await import(pathToFileURL(entryOfPath(spec, cwd)).href);
    } else {
      let resolved: string | undefined;
      try {
        resolved = createRequire(path.join(cwd, 'package.json')).resolve(spec);
      } catch {
        resolved = undefined;
      }
      mod = resolved ? await import(pathToFileURL(resolved).href) : await import(spec);
    }
  } catch (err) {
    throw new MemoryError('KERNEL_ERR_PLUGIN_LOAD', `Plugin ${spec} could not be loaded: ${(err as Error).message}`, {
      plugin: spec,
      cause: err,
    });
  }
  return pluginsOf(spec, mod);
}

/**
 * Load the plugin set in order: first-party, then config.yaml `plugins:`, then MEMORY_PLUGINS.
 * The modules load concurrently (the loader reads one package's files while it compiles
 * another's), and the result is still in the order given: the first spec in that order that
 * fails is the error, whichever failed first in time.
 *
 * With `modules` (module objects by spec, as the server image carries them), the plugins come
 * from those modules alone and nothing is imported; a spec missing from them throws
 * PluginNotPreloaded naming every such spec, before any plugin is taken.
 */
export async function loadPluginSet(specs: string[], cwd = process.cwd(), modules?: ReadonlyMap<string, unknown>): Promise<PluginDefinition[]> {
  if (modules) {
    const missing = specs.filter((spec) => !modules.has(spec));
    if (missing.length) throw new PluginNotPreloaded(missing);
  }
  const loaded = await Promise.allSettled(specs.map((spec) => (modules ? Promise.resolve().then(() => pluginsOf(spec, modules.get(spec))) : loadPlugin(spec, cwd))));
  const out: PluginDefinition[] = [];
  // A plugin listed twice (config.yaml and MEMORY_PLUGINS, a path and its package name) is one
  // module and one definition, taken once; another plugin of the same name is refused, not dropped.
  const seen = new Map<string, { plugin: PluginDefinition; spec: string }>();
  loaded.forEach((result, i) => {
    if (result.status === 'rejected') throw result.reason;
    for (const p of result.value) {
      const first = seen.get(p.name);
      if (first?.plugin === p) continue;
      if (first) {
        throw new MemoryError(
          'KERNEL_ERR_PLUGIN_DUPLICATE',
          `Plugin ${p.name} from ${specs[i]} has the name of another plugin, from ${first.spec}; plugin names must be unique`,
          { plugin: p.name },
        );
      }
      seen.set(p.name, { plugin: p, spec: specs[i]! });
      out.push(p);
    }
  });
  return out;
}
