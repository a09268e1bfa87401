import { MemoryError } from './errors.js';
import { callTap, type Hooks } from './hooks.js';
import type { Logger } from './logger.js';
import { settlesWithin } from './util.js';

/** Calls, events and taps still running, each with what it is (close() names those that never settle). */
export class Inflight {
  private readonly work = new Map<Promise<unknown>, string>();

  /** Background work close() waits for; `what` names it if it never settles (a tool and its plugin, a plugin's tap). */
  track<T>(work: Promise<T>, what = 'background work'): Promise<T> {
    this.work.set(work, what);
    const done = () => this.work.delete(work);
    work.then(done, done);
    return work;
  }

  /**
   * Wait for the calls and events still running (and those they start) for at most waitMs;
   * then say how many never settled, and go on closing without them.
   */
  async settle(waitMs: number, logger: Logger): Promise<void> {
    const deadline = Date.now() + waitMs;
    while (this.work.size) {
      const left = deadline - Date.now();
      if (left <= 0) {
        logger.warn(
          `closing with ${this.work.size} call(s) or event(s) still running after ${waitMs} ms (${stillRunning([...this.work.values()])}): a tool call, hook tap or event handler that never settles`,
        );
        return;
      }
      await settlesWithin(Promise.allSettled([...this.work.keys()]), left);
    }
  }
}

/** What is still running at close, named, the same ones counted once: at most 10, then how many more. */
export function stillRunning(what: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const w of what) counts.set(w, (counts.get(w) ?? 0) + 1);
  const named = [...counts].map(([w, n]) => (n > 1 ? `${w} x${n}` : w));
  return named.length > 10 ? `${named.slice(0, 10).join('; ')}; and ${named.length - 10} more` : named.join('; ');
}

/**
 * The ready hook's taps in order, each given at most the setup limit (setupTimeoutMs, 30 s by
 * default): one that never settles fails the start naming its plugin, as a setup that never
 * settles does. The hook's own series call waited for it for ever, and with nothing else pending
 * the process ended with code 0, without a word and without answering initialize. The timer is
 * referenced, so the process waits for it.
 */
export async function runReadyTaps(hooks: Readonly<Hooks>, limitMs: number): Promise<void> {
  const taps = [...(hooks.ready as unknown as { taps: { name: string; type: string; fn: (...a: unknown[]) => unknown }[] }).taps];
  for (const tap of taps) {
    // A tap's error is already a setup error naming its plugin (hooks.ts, guarded): thrown on.
    if (!(await settlesWithin(callTap(tap), limitMs))) {
      throw new MemoryError(
        'KERNEL_ERR_PLUGIN_SETUP',
        `Plugin ${tap.name} failed on ready: its ready tap did not finish within ${limitMs / 1000} s (a ready tap must not wait on work that never ends)`,
        { plugin: tap.name },
      );
    }
  }
}

/**
 * The close hook's taps in order, each given at most closeWaitMs: one that never settles is named
 * on the logger and left behind, and the taps after it still run (the hook's own series call
 * waited for it for ever, and the database was never closed).
 */
export async function runCloseTaps(hooks: Readonly<Hooks>, waitMs: number, logger: Logger): Promise<void> {
  const taps = [...(hooks.close as unknown as { taps: { name: string; type: string; fn: (...a: unknown[]) => unknown }[] }).taps];
  for (const tap of taps) {
    try {
      if (!(await settlesWithin(callTap(tap), waitMs))) {
        logger.warn(`closing without ${tap.name}'s close tap: it did not settle within ${waitMs} ms`);
      }
    } catch (err) {
      logger.error(`${tap.name}'s close tap failed: ${(err as Error)?.message ?? String(err)}`);
    }
  }
}
