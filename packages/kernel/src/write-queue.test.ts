import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { MemoryError } from './errors.js';
import { defineTool } from './tools.js';
import { kernelScratch, notesBesideOther, otherConnections } from './kernel.fixture.js';
import { LockTaken } from './sql-transaction.js';
import { WriteQueue } from './write-queue.js';

const scratch = kernelScratch('ms-write-queue-');
const { cleanup } = scratch;
const others = otherConnections();
afterEach(async () => {
  others.closeAll();
  await cleanup();
});

/**
 * A ready kernel with a write tool `note` (it inserts its text, in the call's transaction) and a
 * read-only `count`, and another connection on its memory.db, as another process's.
 */
function setup(opts: { closeWaitMs?: number } = {}) {
  return notesBesideOther(scratch, others, {
    name: 'p-write',
    closeWaitMs: opts.closeWaitMs,
    more(ctx) {
      ctx.tools.register(
        defineTool({
          name: 'count',
          title: 'count',
          description: 'count',
          input: z.object({}),
          annotations: { readOnlyHint: true },
          handler: () => ({ n: (ctx.db.prepare('SELECT count(*) AS n FROM tst_notes').get() as { n: number }).n }),
        }),
      );
    },
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a write call while another process holds the write lock', () => {
  it('waits for it without blocking the event loop, and writes once it is free', async () => {
    const { k, other, rows } = await setup();
    other.exec('BEGIN IMMEDIATE');
    const started = performance.now();
    const call = k.callToolNow('note', { text: 'a' });
    // It waits (a promise), the event loop goes on: a timer fires, a read-only call answers at once.
    expect(performance.now() - started).toBeLessThan(1000);
    expect(call).toBeInstanceOf(Promise);
    let settled = false;
    void (call as Promise<unknown>).then(() => (settled = true), () => (settled = true));
    const ticked = await new Promise<number>((resolve) => setTimeout(() => resolve(performance.now() - started), 20));
    expect(ticked).toBeLessThan(1000);
    expect(k.callToolNow('count', {})).toEqual({ n: 0 });
    await sleep(150);
    expect(settled).toBe(false);
    other.exec('COMMIT');
    await expect(call).resolves.toEqual({ text: 'a' });
    expect(rows()).toEqual(['a']);
    // Free again: answered in the same turn, as before.
    expect(k.callToolNow('note', { text: 'b' })).toEqual({ text: 'b' });
  });

  it('keeps the order of the writes: later write calls wait behind the first, read-only calls do not', async () => {
    const { k, other, rows } = await setup();
    other.exec('BEGIN IMMEDIATE');
    const order: string[] = [];
    const calls = ['first', 'second', 'third'].map((text) => (k.callTool('note', { text }) as Promise<unknown>).then(() => order.push(text)));
    await sleep(50);
    expect(order).toEqual([]);
    expect(k.callToolNow('count', {})).toEqual({ n: 0 });
    other.exec('COMMIT');
    // A write that comes once the lock is free but while calls still wait goes behind them too.
    const fourth = (k.callTool('note', { text: 'fourth' }) as Promise<unknown>).then(() => order.push('fourth'));
    await Promise.all([...calls, fourth]);
    expect(order).toEqual(['first', 'second', 'third', 'fourth']);
    expect(rows()).toEqual(['first', 'second', 'third', 'fourth']);
  });

  it('fails KERNEL_ERR_BUSY, saying how long it waited, once the busy timeout has passed; the calls behind it too', async () => {
    const { k, other, rows } = await setup();
    const file = path.join(k.dataDir, 'memory.db');
    k.storage.db.pragma('busy_timeout = 300');
    other.exec('BEGIN IMMEDIATE');
    const started = performance.now();
    const first = (k.callTool('note', { text: 'a' }) as Promise<unknown>).catch((e: MemoryError) => e);
    const second = (k.callTool('note', { text: 'b' }) as Promise<unknown>).catch((e: MemoryError) => e);
    // Meanwhile the event loop runs.
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    const [a, b] = (await Promise.all([first, second])) as MemoryError[];
    clearInterval(ticker);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(ticks).toBeGreaterThan(5);
    for (const err of [a, b]) {
      expect(err).toMatchObject({ code: 'KERNEL_ERR_BUSY', type: 'BusyError', plugin: 'p-write' });
      expect(err.message).toContain(`the database ${file} is busy: another process holds its write lock`);
      expect(err.message).toMatch(/waited 0\.[345] s for it and gave up/);
      expect(err.message).toContain('Try again later');
      expect((err.details as { waited_ms: number }).waited_ms).toBeGreaterThanOrEqual(290);
    }
    expect(a?.message).toContain('nothing of this call was written (its transaction was rolled back)');
    other.exec('ROLLBACK');
    expect(rows()).toEqual([]);
    // The connection's busy timeout is given back after each try.
    expect(k.storage.db.pragma('busy_timeout', { simple: true })).toBe(300);
    expect(k.callToolNow('note', { text: 'c' })).toEqual({ text: 'c' });
  });

  it('is dropped from the queue when its client cancels it', async () => {
    const { k, other, rows } = await setup();
    other.exec('BEGIN IMMEDIATE');
    const abort = new AbortController();
    const cancelled = (k.callToolNow('note', { text: 'a' }, { exposedTiers: new Set(), exposeAll: true, signal: abort.signal }) as Promise<unknown>).catch(
      (e: MemoryError) => e,
    );
    const kept = k.callTool('note', { text: 'b' });
    await sleep(30);
    abort.abort();
    const err = (await cancelled) as MemoryError;
    expect(err.message).toMatch(/cancelled by the client after waiting .* nothing of this call was written/);
    other.exec('COMMIT');
    await expect(kept).resolves.toEqual({ text: 'b' });
    expect(rows()).toEqual(['b']);
  });

  it('close() waits for the calls that wait for the lock, then fails those still waiting: none is left hanging', async () => {
    const { k, other } = await setup({ closeWaitMs: 200 });
    other.exec('BEGIN IMMEDIATE');
    const waiting = (k.callTool('note', { text: 'a' }) as Promise<unknown>).catch((e: MemoryError) => e);
    await sleep(20);
    const started = performance.now();
    await k.close();
    expect(performance.now() - started).toBeLessThan(2000);
    const err = (await waiting) as MemoryError;
    expect(err).toMatchObject({ code: 'KERNEL_ERR_CLOSED' });
    expect(err.message).toMatch(/waited 0\.\d s for the write lock of the database .* nothing of this call was written/);
    other.exec('ROLLBACK');
    expect(other.prepare('SELECT count(*) FROM tst_notes').pluck().get()).toBe(0);
  });

  it('close() lets a waiting call write when the lock comes free within the wait', async () => {
    const { k, other } = await setup({ closeWaitMs: 2000 });
    other.exec('BEGIN IMMEDIATE');
    const waiting = k.callTool('note', { text: 'a' });
    setTimeout(() => other.exec('COMMIT'), 100);
    await k.close();
    await expect(waiting).resolves.toEqual({ text: 'a' });
    expect(other.prepare('SELECT body FROM tst_notes').pluck().all()).toEqual(['a']);
  });
});

describe('WriteQueue', () => {
  it('puts a wait asked from inside the head\'s try right behind it, before the calls that came after', async () => {
    const q = new WriteQueue(() => new Error('ended'));
    const order: string[] = [];
    const opts = () => ({ since: performance.now(), budgetMs: 5000 });
    let innerTries = 0;
    let inner: Promise<unknown> | undefined;
    const a = q.wait(() => {
      // The head's handler asks for its own transaction; the lock is taken again at its first try.
      inner = q.wait(() => (innerTries++ === 0 ? new LockTaken(new Error('busy'), 5000) : 'inner'), opts()).then((v) => order.push(String(v)));
      return 'a';
    }, opts()).then((v) => order.push(String(v)));
    const b = q.wait(() => 'b', opts()).then((v) => order.push(String(v)));
    await a;
    await Promise.all([inner, b]);
    expect(order).toEqual(['a', 'inner', 'b']);
    expect(q.length).toBe(0);
  });

  it('close() fails the calls waiting and any asked after it at once, without trying them', async () => {
    const q = new WriteQueue((end) => new Error(end.kind));
    let tries = 0;
    const taken = () => (tries++, new LockTaken(new Error('busy'), 5000));
    const waiting = q.wait(taken, { since: performance.now(), budgetMs: 5000 }).catch((e: Error) => e.message);
    q.close();
    expect(await waiting).toBe('closed');
    const tried = tries;
    await expect(q.wait(taken, { since: performance.now(), budgetMs: 5000 })).rejects.toThrow('after-close');
    expect(tries).toBe(tried);
    expect(q.closed).toBe(true);
  });
});
