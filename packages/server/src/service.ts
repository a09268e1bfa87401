import os from 'node:os';
import path from 'node:path';
import {
  buildSurface,
  Kernel,
  metaEnabled,
  resolveExposure,
  stderrLogger,
  type Clock,
  type ConfigData,
  type Logger,
  type PluginDefinition,
  type Surface,
} from '@memory-service/kernel';
import { FIRST_PARTY_PLUGINS, loadPluginSet, parsePluginList } from './plugins.js';

export interface ServiceOptions {
  /** Defaults to MCP_MEMORY_DATA_DIR, then ~/.memory-service. */
  dataDir?: string;
  /** The plugin set; defaults to the first-party plugins plus config and MEMORY_PLUGINS additions. */
  plugins?: PluginDefinition[];
  /** Extra plugin specs (package names or paths) loaded after `plugins`. */
  pluginSpecs?: string[];
  /**
   * Plugin modules by spec (package name or path) to take the plugin set from instead of
   * importing it: the server image's bundled first-party plugins. A spec of the set missing from
   * it throws PluginNotPreloaded (plugins.ts) and nothing starts.
   */
  modules?: ReadonlyMap<string, unknown>;
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  config?: ConfigData;
  logger?: Logger;
}

export interface Service {
  kernel: Kernel;
  /** The MCP surface chosen by MEMORY_EXPOSE / MEMORY_META. */
  surface: Surface;
  /** Every tool, for the operator HTTP surface. */
  operatorSurface: Surface;
  startedAt: number;
  close(): Promise<void>;
}

export function resolveDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const raw = env.MCP_MEMORY_DATA_DIR?.trim();
  if (!raw) return path.join(os.homedir(), '.memory-service');
  return path.resolve(raw.startsWith('~') ? path.join(os.homedir(), raw.slice(1)) : raw);
}

/** Build a kernel with the plugin set, bring it to ready, and compute its surfaces. */
export async function createService(opts: ServiceOptions = {}): Promise<Service> {
  const env = opts.env ?? process.env;
  const logger = opts.logger ?? stderrLogger('memory-service', env.MEMORY_LOG_QUIET === '1');
  const dataDir = opts.dataDir ?? resolveDataDir(env);
  const kernel = new Kernel({ dataDir, clock: opts.clock, config: opts.config, logger });
  try {
    const fromConfig = kernel.config.get<unknown>('plugins', []);
    const configSpecs = Array.isArray(fromConfig) ? fromConfig.filter((s): s is string => typeof s === 'string') : [];
    const specs = [
      ...(opts.plugins ? [] : FIRST_PARTY_PLUGINS),
      ...configSpecs.map((s) => (s.startsWith('.') ? path.resolve(dataDir, s) : s)),
      ...(opts.pluginSpecs ?? []),
      ...parsePluginList(env.MEMORY_PLUGINS),
    ];
    const plugins = [...(opts.plugins ?? []), ...(await loadPluginSet(specs, process.cwd(), opts.modules))];
    // The same definition given twice is registered once; another of the same name is refused by the kernel.
    const seen = new Set<PluginDefinition>();
    for (const p of plugins) {
      if (seen.has(p)) continue;
      seen.add(p);
      await kernel.register(p);
    }
    await kernel.ready();
  } catch (err) {
    await kernel.close();
    throw err;
  }
  const exposure = resolveExposure(env.MEMORY_EXPOSE, kernel.tiers, (m) => logger.warn(m));
  const surface = buildSurface(kernel, exposure, metaEnabled(env.MEMORY_META));
  const operatorSurface = buildSurface(kernel, resolveExposure('all', kernel.tiers), false);
  return { kernel, surface, operatorSurface, startedAt: Date.now(), close: () => kernel.close() };
}
