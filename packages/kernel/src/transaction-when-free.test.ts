import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { MemoryError } from './errors.js';
import { defineTool } from './tools.js';
import { kernelScratch, notesBesideOther, otherConnections } from './kernel.fixture.js';

const scratch = kernelScratch('ms-tx-when-free-');
const { cleanup } = scratch;
const others = otherConnections();
afterEach(async () => {
  others.closeAll();
  await cleanup();
});

/**
 * A ready kernel with three tools: `note` writes in the call's transaction; `later`
 * (`transaction: false`) sleeps `delay` ms, then writes its text twice through
 * ctx.storage.transactionWhenFree(fn, call), the second write a nested transactionWhenFree; and
 * `sync_later` (`transaction: false`) asks for its transaction synchronously. Another connection on
 * its memory.db stands for another process's.
 */
function setup(opts: { closeWaitMs?: number } = {}) {
  return notesBesideOther(scratch, others, {
    name: 'p-later',
    closeWaitMs: opts.closeWaitMs,
    more(ctx, insert) {
      ctx.tools.register(
        defineTool({
          name: 'later',
          title: 'later',
          description: 'later',
          input: z.object({ text: z.string(), delay: z.number().default(0), fail: z.boolean().default(false) }),
          annotations: { readOnlyHint: false },
          transaction: false,
          handler: async (a: { text: string; delay: number; fail: boolean }, call) => {
            if (a.delay) await new Promise((resolve) => setTimeout(resolve, a.delay));
            let inner: Promise<number> | undefined;
            await ctx.storage.transactionWhenFree(() => {
              insert(a.text);
              // Already in a transaction: a savepoint, at once (a nested BEGIN would throw).
              inner = ctx.storage.transactionWhenFree(() => {
                insert(`${a.text}+`);
                return ctx.db.inTransaction ? 1 : 0;
              }, call);
              if (a.fail) throw new Error('refused after writing');
            }, call);
            return { text: a.text, nested: await inner };
          },
        }),
      );
      ctx.tools.register(
        defineTool({
          name: 'sync_later',
          title: 'sync_later',
          description: 'sync_later',
          input: z.object({ text: z.string() }),
          annotations: { readOnlyHint: false },
          transaction: false,
          handler: (a: { text: string }, call) => ctx.storage.transactionWhenFree(() => insert(a.text), call).then(() => ({ text: a.text })),
        }),
      );
    },
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ctx.storage.transactionWhenFree (a transaction: false handler\'s own writes)', () => {
  it('waits for another process\'s write lock without blocking the event loop, then writes (nested: a savepoint)', async () => {
    const { k, other, rows } = await setup();
    other.exec('BEGIN IMMEDIATE');
    // Released by a timer of this process: it fires only while the event loop turns.
    setTimeout(() => other.exec('COMMIT'), 300);
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    const started = performance.now();
    const out = await k.callTool('later', { text: 'a' });
    clearInterval(ticker);
    expect(out).toEqual({ text: 'a', nested: 1 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    expect(ticks).toBeGreaterThan(10);
    expect(rows()).toEqual(['a', 'a+']);
  });

  it('rolls back all its writes when fn throws', async () => {
    const { k, rows } = await setup();
    await expect(k.callTool('later', { text: 'a', fail: true })).rejects.toMatchObject({ message: expect.stringContaining('refused after writing') });
    expect(rows()).toEqual([]);
  });

  it('fails KERNEL_ERR_BUSY once the busy timeout counted from the call\'s start has passed, nothing written', async () => {
    const { k, other, rows } = await setup();
    k.storage.db.pragma('busy_timeout = 400');
    other.exec('BEGIN IMMEDIATE');
    const started = performance.now();
    // 250 ms of the budget go before the handler asks for its transaction.
    const err = (await (k.callTool('later', { text: 'a', delay: 250 }) as Promise<unknown>).catch((e: MemoryError) => e)) as MemoryError;
    const took = performance.now() - started;
    expect(err).toMatchObject({ code: 'KERNEL_ERR_BUSY', plugin: 'p-later' });
    expect(err.message).toContain('another process holds its write lock');
    expect(took).toBeGreaterThanOrEqual(390);
    expect(took).toBeLessThan(600);
    other.exec('ROLLBACK');
    expect(rows()).toEqual([]);
    expect(k.storage.db.pragma('busy_timeout', { simple: true })).toBe(400);
  });

  it('keeps the order of this process\'s writes: it waits behind write calls already waiting, and calls after it wait behind it', async () => {
    const { k, other, rows } = await setup();
    other.exec('BEGIN IMMEDIATE');
    const order: string[] = [];
    const done = (p: unknown, text: string) => (p as Promise<unknown>).then(() => order.push(text));
    const calls = [
      done(k.callTool('note', { text: 'first' }), 'first'),
      done(k.callTool('sync_later', { text: 'second' }), 'second'),
      done(k.callTool('note', { text: 'third' }), 'third'),
      done(k.callTool('later', { text: 'fourth' }), 'fourth'),
      done(k.callTool('note', { text: 'fifth' }), 'fifth'),
    ];
    await sleep(50);
    expect(rows()).toEqual([]);
    other.exec('COMMIT');
    await Promise.all(calls);
    expect(rows()).toEqual(['first', 'second', 'third', 'fourth', 'fourth+', 'fifth']);
  });

  it('is dropped from the queue when the call is cancelled, and failed KERNEL_ERR_CLOSED by close(): nothing written either way', async () => {
    const { k, other, rows } = await setup({ closeWaitMs: 150 });
    other.exec('BEGIN IMMEDIATE');
    const abort = new AbortController();
    const cancelled = (k.callToolNow('later', { text: 'a' }, { exposedTiers: new Set(), exposeAll: true, signal: abort.signal }) as Promise<unknown>).catch(
      (e: MemoryError) => e,
    );
    const closing = (k.callTool('later', { text: 'b' }) as Promise<unknown>).catch((e: MemoryError) => e);
    await sleep(30);
    abort.abort();
    expect(await cancelled).toMatchObject({ code: 'KERNEL_ERR_TOOL_FAILED', message: expect.stringMatching(/cancelled by the client after waiting .* nothing of this call was written/) });
    const started = performance.now();
    await k.close();
    expect(performance.now() - started).toBeLessThan(2000);
    expect(await closing).toMatchObject({ code: 'KERNEL_ERR_CLOSED' });
    other.exec('ROLLBACK');
    expect(other.prepare('SELECT count(*) FROM tst_notes').pluck().get()).toBe(0);
    void rows;
  });

  it('fails KERNEL_ERR_CLOSED when asked after close(), not with the driver\'s error, nothing written', async () => {
    const { k, other } = await setup();
    const storage = k.storage;
    await k.close();
    const write = () => storage.transactionWhenFree(() => storage.db.prepare('INSERT INTO tst_notes (body) VALUES (?)').run('late'));
    await expect(write()).rejects.toMatchObject({ code: 'KERNEL_ERR_CLOSED', message: expect.stringContaining('nothing of it was written') });
    expect(other.prepare('SELECT count(*) FROM tst_notes').pluck().get()).toBe(0);
  });

  it('fails KERNEL_ERR_CLOSED when the database closes while it waits for another process\'s lock (asked after the write queue settled)', async () => {
    const { k, other } = await setup({ closeWaitMs: 100 });
    other.exec('BEGIN IMMEDIATE');
    const storage = k.storage;
    // An event handler or tap that writes while close() runs: after the queue settled, before the database closes.
    let late: Promise<unknown> | undefined;
    const settle = storage.writes.settle.bind(storage.writes);
    storage.writes.settle = async (ms: number) => {
      await settle(ms);
      late = storage.transactionWhenFree(() => storage.db.prepare('INSERT INTO tst_notes (body) VALUES (?)').run('late')).catch((e: MemoryError) => e);
    };
    await k.close();
    expect(await late).toMatchObject({ code: 'KERNEL_ERR_CLOSED' });
    other.exec('ROLLBACK');
    expect(other.prepare('SELECT count(*) FROM tst_notes').pluck().get()).toBe(0);
  });

  it('answers at once, in the same turn\'s transaction, when the lock is free', async () => {
    const { k, rows } = await setup();
    let answered = false;
    const p = k.storage.transactionWhenFree(() => {
      k.storage.db.prepare('INSERT INTO tst_notes (body) VALUES (?)').run('x');
      return 7;
    });
    void p.then(() => (answered = true));
    // Written already (no wait), committed before any timer.
    expect(rows()).toEqual(['x']);
    expect(k.storage.db.inTransaction).toBe(false);
    await expect(p).resolves.toBe(7);
    expect(answered).toBe(true);
  });
});
