import v8 from 'node:v8';
import { PerformanceObserver } from 'node:perf_hooks';
import { envChoice } from './env-choice.js';

/**
 * How the `memory-service` command sizes V8's heap.
 *
 * `compact` (the default) keeps the young generation at YOUNG_GENERATION_CAP_MB at most, and starts
 * a full collection once the old generation has grown by half over what the last one left alive.
 * With V8's own sizing, a stream of writes (an import, a bulk preload) grows the young generation
 * to 32 MB and lets the old one reach two to four times its live size before collecting: preloading
 * 100,000 thoughts peaked at 137-148 MiB of resident memory. `default` keeps V8's own sizing.
 */
export const HEAP_ENV = 'MEMORY_V8_HEAP';

/** The old generation's growth between full collections under `compact`. */
export const OLD_GENERATION_FLAG = '--heap-growing-percent=50';
/**
 * The young generation's largest size under `compact` (two semi-spaces of 4 MB). Smaller, and the
 * collections it takes (one every few requests at 2 MB) made think measurably slower.
 */
export const YOUNG_GENERATION_CAP_MB = 8;

const GROWTH_FLAG = 'semi-space-growth-factor';
/** V8's own growth factor of the young generation. */
const V8_GROWTH_FACTOR = 2;

export type HeapMode = 'compact' | 'default';

/** The heap sizing the environment asks for; an unknown value is an error that names the variable. */
export function heapFromEnv(env: NodeJS.ProcessEnv): HeapMode {
  return envChoice<HeapMode>(env, HEAP_ENV, ['compact', 'default']);
}

/** A V8 flag's name as V8 reads it: dashes and underscores are the same. */
function flagName(flag: string): string {
  const eq = flag.indexOf('=');
  return (eq < 0 ? flag : flag.slice(0, eq)).replace(/^--/, '').replace(/_/g, '-');
}

/** The names of the flags among a process's arguments (`--a-b=1` and `--a_b` both name a-b). */
function flagNames(given: readonly string[]): Set<string> {
  return new Set(given.filter((a) => a.startsWith('--')).map(flagName));
}

/** What `compact` does, less what the process was started with: a flag given to node or in NODE_OPTIONS wins. */
export function compactPlan(given: readonly string[]): { oldGeneration: boolean; youngCap: boolean } {
  const named = flagNames(given);
  return { oldGeneration: !named.has(flagName(OLD_GENERATION_FLAG)), youngCap: !named.has(GROWTH_FLAG) && !named.has('max-semi-space-size') };
}

/** The young generation's size now, in bytes. */
export function youngGenerationBytes(): number {
  return v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
}

/**
 * Keep the young generation at or under `capBytes`. V8 sets its largest size once, at start, but
 * reads the growth factor each time it would grow it: after each collection, the factor is 1 (no
 * growth) while the generation is at the cap, and V8's own below it (after V8 shrank it when
 * allocation slowed, say). Returns the observer, for a caller that wants to stop it.
 */
export function capYoungGeneration(capBytes: number): PerformanceObserver {
  let pinned = false;
  const check = () => {
    const atCap = youngGenerationBytes() >= capBytes;
    if (atCap === pinned) return;
    v8.setFlagsFromString(`--${GROWTH_FLAG}=${atCap ? 1 : V8_GROWTH_FACTOR}`);
    pinned = atCap;
  };
  check();
  const observer = new PerformanceObserver(check);
  observer.observe({ entryTypes: ['gc'] });
  return observer;
}

/**
 * Size the heap for this process. The `memory-service` command calls it once the server is ready,
 * as it sets the tiering flags (tiering.ts): V8 reads these settings at each collection, so they
 * hold for everything after the start, and the image's code cache, written when the server is
 * ready, is made and read under the same flags. Only the command calls it: a library must not
 * change its host's VM. Returns what it set.
 */
export function applyHeap(
  mode: HeapMode,
  given: readonly string[] = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)],
): readonly string[] {
  if (mode === 'default') return [];
  const plan = compactPlan(given);
  const set: string[] = [];
  if (plan.oldGeneration) {
    v8.setFlagsFromString(OLD_GENERATION_FLAG);
    set.push(OLD_GENERATION_FLAG);
  }
  if (plan.youngCap) {
    capYoungGeneration(YOUNG_GENERATION_CAP_MB * 1024 * 1024);
    set.push(`young generation <= ${YOUNG_GENERATION_CAP_MB} MB`);
  }
  return set;
}
