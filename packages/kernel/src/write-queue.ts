import { MemoryError } from './errors.js';
import { LockTaken, noteLockWait } from './sql-transaction.js';
import { lockWaitError } from './storage-failures.js';

/**
 * How long a call waiting for the write lock sleeps between two tries, by try: SQLite's own busy
 * handler's schedule (sqliteDefaultBusyCallback), then 100 ms each.
 */
export const LOCK_RETRY_DELAYS_MS: readonly number[] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100];

/** Why a waiting call stopped waiting without its write (lockWaitExpired, cancelled, closed). */
export type WaitEnd =
  /** The call waited its whole budget: `busy` is the last SQLITE_BUSY its BEGIN got (undefined when it never reached the head). */
  | { kind: 'expired'; waitedMs: number; busy: unknown }
  | { kind: 'cancelled'; waitedMs: number }
  | { kind: 'closed'; waitedMs: number }
  /** Asked after the queue was closed (Storage.close()): nothing would ever try it. */
  | { kind: 'after-close' };

interface Waiter {
  /** One try: a LockTaken while another connection holds the write lock (nothing done), else the call's answer; throws as the call failed. */
  attempt: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  /** performance.now() when the call came. */
  since: number;
  budgetMs: number;
  tries: number;
  busy: unknown;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * The tool calls of this process that wait for the database's write lock (another process holds
 * it), in the order they came. A write call whose BEGIN IMMEDIATE finds the lock taken waits here
 * instead of in SQLite's busy handler (which blocks the event loop, and with it every session,
 * for up to the busy timeout): its first try is made again after short sleeps (LOCK_RETRY_DELAYS_MS)
 * until it gets the lock or its budget (the connection's busy timeout, counted from the call's
 * start) runs out. While any call waits, later write calls wait behind it, so one client's writes
 * keep their order; once the head gets the lock the calls behind it are tried in the same turn.
 * Read-only calls never wait here.
 */
export class WriteQueue {
  private readonly waiters: Waiter[] = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly idle: (() => void)[] = [];
  /** The waiting call whose try runs now (drain), and where a wait asked from inside that try goes in the queue. */
  private trying: Waiter | null = null;
  private insertAt = 0;
  /** Set by close(): a wait asked after it fails at once (nothing would ever try it). */
  private closedValue = false;

  /** `ended` makes the error a waiting call fails with. */
  constructor(private readonly ended: (end: WaitEnd) => Error) {}

  /** How many calls wait. */
  get length(): number {
    return this.waiters.length;
  }

  /** Whether close() was called: no call waits here any more. */
  get closed(): boolean {
    return this.closedValue;
  }

  /**
   * Wait behind the calls already waiting, then try `attempt` until it answers something other
   * than a LockTaken; answers what it answered (or its throw). `first` is the LockTaken of the try
   * the call made at once, if it made one. An abort of `signal` drops the call from the queue.
   * Asked from inside the try of the call at the head (its handler's own transaction), it goes
   * right behind that call rather than at the end: its turn is the head's.
   */
  wait(attempt: () => unknown, opts: { since: number; budgetMs: number; first?: LockTaken; signal?: AbortSignal }): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (this.closedValue) {
        reject(this.ended({ kind: 'after-close' }));
        return;
      }
      const w: Waiter = {
        attempt,
        resolve,
        reject,
        since: opts.since,
        budgetMs: opts.budgetMs,
        tries: opts.first ? 1 : 0,
        busy: opts.first?.error,
        signal: opts.signal,
        onAbort: undefined,
      };
      if (w.signal) {
        if (w.signal.aborted) {
          reject(this.ended({ kind: 'cancelled', waitedMs: performance.now() - w.since }));
          return;
        }
        w.onAbort = () => this.drop(w, { kind: 'cancelled', waitedMs: performance.now() - w.since });
        w.signal.addEventListener('abort', w.onAbort, { once: true });
      }
      // Asked from inside the head's try (a transaction: false handler's own write, Storage.transactionWhenFree):
      // next in line, in the order asked, so tried as soon as the head is answered, in the same turn.
      if (this.trying) this.waiters.splice(this.insertAt++, 0, w);
      else this.waiters.push(w);
      if (!this.timer && !this.trying) this.schedule();
    });
  }

  /**
   * For close(): wait up to waitMs for the waiting calls to get the lock (or run out of budget),
   * then fail those still waiting (KERNEL_ERR_CLOSED through `ended`): none is left hanging.
   */
  async settle(waitMs: number): Promise<void> {
    if (this.waiters.length) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.idle.push(resolve);
        timer = setTimeout(resolve, waitMs);
      });
      clearTimeout(timer);
    }
    for (const w of [...this.waiters]) this.drop(w, { kind: 'closed', waitedMs: performance.now() - w.since });
  }

  /**
   * For the database's close (Storage.close()): fail the calls still waiting (KERNEL_ERR_CLOSED
   * through `ended`), and any asked from now on at once, rather than try them on a closed connection.
   */
  close(): void {
    this.closedValue = true;
    for (const w of [...this.waiters]) this.drop(w, { kind: 'closed', waitedMs: performance.now() - w.since });
  }

  /** Sleep before the head's next try (its place in the schedule), no later than the first deadline of a waiting call. */
  private schedule(): void {
    const head = this.waiters[0];
    if (!head) return;
    const now = performance.now();
    let delay = LOCK_RETRY_DELAYS_MS[Math.min(head.tries, LOCK_RETRY_DELAYS_MS.length - 1)] ?? 100;
    for (const w of this.waiters) delay = Math.min(delay, w.since + w.budgetMs - now);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.drain();
    }, Math.max(0, delay));
  }

  /** Try the head, and the calls behind it while each gets the lock; fail those out of budget; sleep again if any still waits. */
  private drain(): void {
    while (this.waiters.length) {
      const head = this.waiters[0] as Waiter;
      let answer: unknown;
      this.trying = head;
      this.insertAt = 1;
      try {
        answer = head.attempt();
      } catch (err) {
        this.remove(head);
        head.reject(err);
        continue;
      } finally {
        this.trying = null;
      }
      if (answer instanceof LockTaken) {
        head.tries++;
        head.busy = answer.error;
        break;
      }
      this.remove(head);
      head.resolve(answer);
    }
    const now = performance.now();
    for (const w of [...this.waiters]) {
      if (now - w.since >= w.budgetMs) this.drop(w, { kind: 'expired', waitedMs: now - w.since, busy: w.busy });
    }
    if (this.waiters.length) this.schedule();
  }

  /** Take w out of the queue and fail it. */
  private drop(w: Waiter, end: WaitEnd): void {
    if (!this.remove(w)) return;
    w.reject(this.ended(end));
  }

  /** Take w out of the queue (false when it was not in it); once none waits, stop the timer and tell settle(). */
  private remove(w: Waiter): boolean {
    const i = this.waiters.indexOf(w);
    if (i < 0) return false;
    this.waiters.splice(i, 1);
    if (w.onAbort) w.signal?.removeEventListener('abort', w.onAbort);
    if (!this.waiters.length) {
      if (this.timer) {
        clearTimeout(this.timer);
        this.timer = null;
      }
      for (const done of this.idle.splice(0)) done();
    }
    return true;
  }
}

/**
 * The error of a write that stopped waiting for the write lock without writing: out of budget,
 * SQLite's SQLITE_BUSY with the whole wait noted (storageFailureError makes it the KERNEL_ERR_BUSY a
 * BEGIN that waited in SQLite's busy handler got), or the same error made directly for a write that
 * never reached the head of the queue; cancelled by its client; or the kernel closed.
 */
export function waitEndError(file: string, end: WaitEnd): Error {
  if (end.kind === 'closed') return closedWhileWaiting(file, end.waitedMs);
  if (end.kind === 'after-close') return closedStorageError(file);
  if (end.kind === 'cancelled') {
    return new MemoryError(
      'KERNEL_ERR_TOOL_FAILED',
      `cancelled by the client after waiting ${(Math.max(0, end.waitedMs) / 1000).toFixed(1)} s for the write lock of the database ${file} (another process holds it); nothing of this call was written`,
    );
  }
  if (end.busy instanceof Error) {
    noteLockWait(end.busy, end.waitedMs);
    return end.busy;
  }
  return lockWaitError(file, end.waitedMs);
}

/** KERNEL_ERR_CLOSED for a call that was still waiting for the write lock when the kernel closed. */
export function closedWhileWaiting(file: string, waitedMs: number): MemoryError {
  return new MemoryError(
    'KERNEL_ERR_CLOSED',
    `The kernel is closed: this call waited ${(Math.max(0, waitedMs) / 1000).toFixed(1)} s for the write lock of the database ${file} (another process holds it) and the server closed first; nothing of this call was written`,
    { details: { waited_ms: Math.round(waitedMs) } },
  );
}

/** KERNEL_ERR_CLOSED for a write asked of a closed database (Storage.transactionWhenFree after close()). */
export function closedStorageError(file: string): MemoryError {
  return new MemoryError('KERNEL_ERR_CLOSED', `The kernel is closed: the database ${file} was closed before this write was asked for; nothing of it was written`);
}
