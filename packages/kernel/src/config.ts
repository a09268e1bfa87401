import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { checkSettings } from './config-check.js';
import { MemoryError, shownValue } from './errors.js';
import { isPlainObject } from './util.js';

/**
 * Configuration: `<data_dir>/config.yaml` merged over these defaults. The service's own settings
 * are checked when a Config is made (config-check.ts); plugins read their own sections (named by
 * their tier or package name) through `Config.get(path, fallback)` or `Config.number`.
 */
export const DEFAULT_CONFIG = Object.freeze({
  l1: { size: 50 },
  retrieval: { default_limit: 10, token_budget: 2000 },
  hooks: { auto_save_threshold: 0.5, l4_threshold: 0.8 },
  think: { max_text_chars: 100_000 },
  scratchpad: { max_entries: 20 },
  plugins: [] as string[],
});

export type ConfigData = Record<string, unknown>;

const requireHere = createRequire(import.meta.url);
let yamlModule: typeof import('yaml') | undefined;
/** The yaml package, loaded on the first config.yaml read: a start without one does not pay for it. */
function yaml(): typeof import('yaml') {
  return (yamlModule ??= requireHere('yaml') as typeof import('yaml'));
}

export function deepMerge(base: ConfigData, over: ConfigData): ConfigData {
  const out: ConfigData = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const value = isPlainObject(v) && isPlainObject(out[k]) ? deepMerge(out[k] as ConfigData, v) : v;
    // A `__proto__` key (YAML makes it an own key) stays a key, which the check refuses, rather than
    // becoming the prototype, whose settings every read saw while the check did not.
    if (k === '__proto__') Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
    else out[k] = value;
  }
  return out;
}

export class Config {
  readonly data: Readonly<ConfigData>;
  constructor(data: ConfigData = {}) {
    const merged = deepMerge(structuredClone(DEFAULT_CONFIG) as ConfigData, data);
    checkSettings(merged);
    this.data = Object.freeze(merged);
  }

  /** Read a dotted path (`retrieval.default_limit`), falling back when absent. */
  get<T>(dotted: string, fallback?: T): T {
    let cur: unknown = this.data;
    for (const part of dotted.split('.')) {
      if (!isPlainObject(cur) || !(part in cur)) return fallback as T;
      cur = cur[part];
    }
    return (cur === undefined ? fallback : cur) as T;
  }

  /** A number setting, checked to be finite and inside [min, max]. */
  number(dotted: string, fallback: number, min = -Infinity, max = Infinity): number {
    return this.checkedNumber(dotted, fallback, min, max, false);
  }

  /** A whole-number setting (a count or a limit), checked to be an integer inside [min, max]. */
  integer(dotted: string, fallback: number, min = -Infinity, max = Infinity): number {
    return this.checkedNumber(dotted, fallback, min, max, true);
  }

  private checkedNumber(dotted: string, fallback: number, min: number, max: number, whole: boolean): number {
    const v = this.get<unknown>(dotted, fallback);
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max || (whole && !Number.isInteger(v))) {
      const accepted = `${whole ? 'integer' : 'number'} in [${min}, ${max}]`;
      throw new MemoryError('KERNEL_ERR_CONFIG', `config ${dotted} must be ${whole ? 'an' : 'a'} ${accepted}; got ${shownValue(v)}`, { field: dotted, accepted });
    }
    return v;
  }

  /** Load `<dataDir>/config.yaml` when present; overrides (from code) win over the file. */
  static load(dataDir: string, overrides: ConfigData = {}): Config {
    const file = path.join(dataDir, 'config.yaml');
    let fromFile: ConfigData = {};
    if (fs.existsSync(file)) {
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch (err) {
        // A folder in its place, or a file this user cannot read: no YAML was read at all.
        throw new MemoryError('KERNEL_ERR_CONFIG', `config.yaml cannot be read (${(err as Error).message}): ${file} must be a file this user can read, or absent`, {
          field: 'config.yaml',
        });
      }
      let parsed: unknown;
      try {
        parsed = yaml().parse(text);
      } catch (err) {
        throw new MemoryError('KERNEL_ERR_CONFIG', `config.yaml is not valid YAML: ${(err as Error).message}`, {
          field: 'config.yaml',
        });
      }
      if (parsed != null && !isPlainObject(parsed)) {
        throw new MemoryError('KERNEL_ERR_CONFIG', 'config.yaml must hold a mapping at the top level', {
          field: 'config.yaml',
        });
      }
      fromFile = (parsed as ConfigData) ?? {};
    }
    return new Config(deepMerge(fromFile, overrides));
  }
}
