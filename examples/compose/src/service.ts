/**
 * An integrator's memory server, built in code: the plugin set is chosen here (the primitives tier
 * and a third-party plugin, the bookmarks example), the settings are given here over the data
 * dir's config.yaml, and the exposed tiers are fixed unless MEMORY_EXPOSE says otherwise.
 */
import bookmarks from '@memory-service/example-custom-plugin';
import primitives from '@memory-service/plugin-primitives';
import { createService, type Service } from '@memory-service/server';

export interface ComposeOptions {
  /** Where the memory lives (default: MCP_MEMORY_DATA_DIR, then ~/.memory-service). */
  dataDir?: string;
  /** The environment read for MEMORY_EXPOSE, MEMORY_META and MEMORY_PLUGINS (default: process.env). */
  env?: NodeJS.ProcessEnv;
}

/** The tiers this server exposes when MEMORY_EXPOSE is not set: the primitives and the bookmarks. */
export const DEFAULT_EXPOSE = 'primitives,bookmarks';

/** Build the service: its kernel is ready, its data dir open; close it when done. */
export function composeService(opts: ComposeOptions = {}): Promise<Service> {
  const env = opts.env ?? process.env;
  return createService({
    dataDir: opts.dataDir,
    // Exactly these plugins (config.yaml's `plugins` and MEMORY_PLUGINS can still add more).
    plugins: [primitives, bookmarks],
    // Settings given in code, merged over the data dir's config.yaml.
    config: { retrieval: { default_limit: 5 } },
    env: { ...env, MEMORY_EXPOSE: env.MEMORY_EXPOSE?.trim() || DEFAULT_EXPOSE },
  });
}
