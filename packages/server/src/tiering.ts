import v8 from 'node:v8';
import { envChoice } from './env-choice.js';

/**
 * How soon V8 compiles a function with its optimizing compiler (TurboFan).
 *
 * By default V8 optimizes a function once it has run about 200 KB of bytecode (an interrupt
 * budget of 67,584 bytes, three times over). A request handler such as dream's, run once per call,
 * then stays in the baseline tier for its first several hundred calls, and each deoptimization
 * starts that count again: measured over stdio, dream's first few hundred answers after a start
 * were 15-20% slower than after 3,000 calls. `eager` optimizes after 8 KB of bytecode, once, so
 * the server reaches its steady speed within its first few dozen calls of each tool.
 * `default` keeps V8's own thresholds.
 */
export const TIERING_ENV = 'MEMORY_V8_TIERING';

export const EAGER_TIERING_FLAGS: readonly string[] = Object.freeze(['--interrupt-budget=8192', '--ticks-before-optimization=1']);

/**
 * Whether a V8 of this version (process.versions.v8) knows the eager flags. V8 11 (Node 20) does;
 * V8 12 and later (Node 22 and 24) dropped both along with the tiering they tuned (Maglev, a
 * mid tier, now optimizes hot code early by itself), and setting a flag V8 does not know prints
 * "Error: unrecognized flag" on stderr at every start and changes nothing.
 */
export function knowsEagerFlags(v8Version: string): boolean {
  const major = Number.parseInt(v8Version, 10);
  return Number.isFinite(major) && major <= 11;
}

export type Tiering = 'eager' | 'default';

/** The tiering the environment asks for; an unknown value is an error that names the variable. */
export function tieringFromEnv(env: NodeJS.ProcessEnv): Tiering {
  return envChoice<Tiering>(env, TIERING_ENV, ['eager', 'default']);
}

/**
 * Set V8's tiering flags for this process. The `memory-service` command calls it once the server
 * is ready: V8 reads these flags when a function first collects feedback and each time it decides
 * whether to optimize one, so they take effect for every tool's code, none of which has run yet,
 * while the start-up code, which runs once, is not compiled twice (setting them before the start
 * measured about 20 ms slower from spawn to tools/list). Returns the flags set: none under
 * `default`, and none on a V8 that does not know them (knowsEagerFlags), where `eager` is V8's own
 * tiering.
 */
export function applyTiering(tiering: Tiering, v8Version: string = process.versions.v8): readonly string[] {
  if (tiering === 'default' || !knowsEagerFlags(v8Version)) return [];
  for (const flag of EAGER_TIERING_FLAGS) v8.setFlagsFromString(flag);
  return EAGER_TIERING_FLAGS;
}
