import { MemoryError, shownValue as shown } from './errors.js';
import { misspelledArgument } from './misspelled-keys.js';
import { isPlainObject } from './util.js';

/**
 * The settings the service itself reads from config.yaml, with what each accepts. A start checks
 * them all (Config's constructor), so a wrong type, an out-of-range number, a misspelled key or a
 * section that is not a mapping is one error naming the key, not a silent default or a failure at
 * the first call that reads it. Sections the service does not know belong to plugins (by tier or
 * name); Kernel.ready() checks those once the plugin set is known (checkSections).
 */
export interface NumberSetting {
  integer: boolean;
  min: number;
  max: number;
}

export const CONFIG_SETTINGS: Readonly<Record<string, Readonly<Record<string, NumberSetting>>>> = Object.freeze({
  l1: { size: { integer: true, min: 1, max: 10_000 } },
  retrieval: {
    default_limit: { integer: true, min: 1, max: 200 },
    token_budget: { integer: true, min: 50, max: 1_000_000 },
    recall_events_keep: { integer: true, min: 1, max: 1_000_000 },
    // Scopes whose part of each retrieval index stays in memory (stores RetrievalIndex, SourceIndex.evict).
    index_max_scopes: { integer: true, min: 1, max: 10_000_000 },
  },
  hooks: {
    auto_save_threshold: { integer: false, min: 0, max: 1 },
    l4_threshold: { integer: false, min: 0, max: 1 },
    // How long a plugin's async tap or lifecycle handler on a hook a tool call waits for may take (kernel.ts HOOK_TAP_TIMEOUT_MS).
    tap_timeout_ms: { integer: true, min: 100, max: 600_000 },
  },
  think: { max_text_chars: { integer: true, min: 100, max: 10_000_000 } },
  scratchpad: { max_entries: { integer: true, min: 1, max: 10_000 } },
  // Hours between scheduled backups of memory.db (the stores' BackupStore); 0, the default, is off.
  backup: { interval_hours: { integer: true, min: 0, max: 8760 } },
  // Hours between nightly runs (the stores' Nightly: consolidation, skill promotion, reflection...); default 24, 0 is off.
  nightly: { interval_hours: { integer: true, min: 0, max: 8760 } },
  // The saga journal's watchdog (the stores' SagaWatchdog): a run's timeout, and the time between two checks.
  saga: { timeout_seconds: { integer: true, min: 1, max: 86_400 }, watchdog_interval_seconds: { integer: true, min: 1, max: 3600 } },
});

/** Top-level keys of config.yaml the service reads: its sections and `plugins`. */
export const CONFIG_SECTIONS: readonly string[] = Object.freeze([...Object.keys(CONFIG_SETTINGS), 'plugins']);

/** What a number setting accepts, in words. */
export function describeSetting(s: NumberSetting): string {
  return `${s.integer ? 'an integer' : 'a number'} from ${s.min} to ${s.max}`;
}

function configError(field: string, problem: string, accepted: unknown): MemoryError {
  return new MemoryError('KERNEL_ERR_CONFIG', `Invalid configuration: ${field} ${problem}`, { field, accepted });
}

function didYouMean(key: string, candidates: readonly string[]): string {
  const meant = misspelledArgument(key, candidates);
  return meant === null ? '' : ` (did you mean "${meant}"?)`;
}

/** Check the service's own settings in merged config data; throws KERNEL_ERR_CONFIG naming the first bad key. */
export function checkSettings(data: Record<string, unknown>): void {
  for (const [section, settings] of Object.entries(CONFIG_SETTINGS)) {
    const value = data[section];
    if (value === undefined) continue;
    const keys = Object.keys(settings);
    if (!isPlainObject(value)) {
      throw configError(section, `must be a mapping with the keys ${keys.join(', ')}; got ${shown(value)}`, keys);
    }
    for (const [key, v] of Object.entries(value)) {
      const field = `${section}.${key}`;
      const setting = Object.hasOwn(settings, key) ? settings[key] : undefined;
      if (!setting) throw configError(field, `is not a setting${didYouMean(key, keys)}; accepted keys of ${section}: ${keys.join(', ')}`, keys);
      const ok = typeof v === 'number' && Number.isFinite(v) && v >= setting.min && v <= setting.max && (!setting.integer || Number.isInteger(v));
      if (!ok) throw configError(field, `must be ${describeSetting(setting)}; got ${shown(v)}`, describeSetting(setting));
    }
  }
  const plugins = data.plugins;
  if (plugins !== undefined) {
    if (!Array.isArray(plugins)) throw configError('plugins', `must be a list of plugin package names or paths; got ${shown(plugins)}`, 'list of strings');
    plugins.forEach((p, i) => {
      if (typeof p !== 'string' || !p.trim()) {
        throw configError(`plugins[${i}]`, `must be a plugin package name or path (a non-empty string); got ${shown(p)}`, 'non-empty string');
      }
    });
  }
}

/**
 * Check the top-level sections against the service's own and the loaded plugins' (each plugin
 * reads the section named by its tier or its package name): any other is a misspelling or a
 * plugin that is not loaded, and its settings would be silently ignored.
 */
export function checkSections(data: Record<string, unknown>, pluginSections: Iterable<string>): void {
  const accepted = [...CONFIG_SECTIONS, ...pluginSections];
  for (const key of Object.keys(data)) {
    if (accepted.includes(key)) continue;
    throw configError(
      key,
      `is not a configuration section${didYouMean(key, accepted)}; accepted: ${accepted.join(', ')} (a plugin's section is named by its tier or package name)`,
      accepted,
    );
  }
}
