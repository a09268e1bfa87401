import { afterEach, describe, expect, it } from 'vitest';
import { makeEnv, U } from './test-helpers.js';
import { whenFreeScratch } from './when-free.fixture.js';

const scratch = whenFreeScratch('stores-when-free-');
const hosted = () => scratch.hosted();
afterEach(() => scratch.closeAll());

describe('StoreContext.txWhenFree', () => {
  it('waits for another process\'s write lock without blocking the event loop, then writes in the kernel\'s transaction, its commit hooks run after the commit', async () => {
    const { stores, other } = hosted();
    other.exec('BEGIN IMMEDIATE');
    setTimeout(() => other.exec('COMMIT'), 250);
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    const hooked: boolean[] = [];
    const fact = await stores.transactionWhenFree(() => {
      const f = stores.facts.upsert(U, { key: 'city', value: 'Lyon' });
      // Followed as if tx() had opened it: the hook waits for the commit.
      stores.ctx.onCommit(() => hooked.push(stores.ctx.db.inTransaction));
      expect(stores.ctx.openTransaction()).not.toBeNull();
      expect(hooked).toEqual([]);
      return f;
    });
    clearInterval(ticker);
    expect(ticks).toBeGreaterThan(10);
    expect(fact.key).toBe('city');
    expect(hooked).toEqual([false]);
    expect(stores.facts.get(U, 'city')?.value).toBe('Lyon');
  });

  it('rolls back every write of fn when it throws, and drops its commit hooks', async () => {
    const { stores } = hosted();
    const hooked: string[] = [];
    await expect(
      stores.transactionWhenFree(() => {
        stores.facts.upsert(U, { key: 'city', value: 'Lyon' });
        stores.ctx.onCommit(() => hooked.push('ran'));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(stores.facts.get(U, 'city')).toBeNull();
    expect(hooked).toEqual([]);
    expect(stores.ctx.db.inTransaction).toBe(false);
  });

  it('gives up with SQLITE_BUSY once the busy timeout has passed, nothing written', async () => {
    const { storage, stores, other } = hosted();
    storage.db.pragma('busy_timeout = 200');
    other.exec('BEGIN IMMEDIATE');
    const started = performance.now();
    const err = await stores.transactionWhenFree(() => stores.facts.upsert(U, { key: 'city', value: 'Lyon' })).catch((e: unknown) => e);
    expect((err as { code?: string }).code).toMatch(/^SQLITE_BUSY/);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    other.exec('ROLLBACK');
    expect(stores.facts.get(U, 'city')).toBeNull();
  });

  it('inside an open transaction runs at once in it; without a kernel it is tx()', async () => {
    const { stores } = hosted();
    let inner: Promise<unknown> | undefined;
    stores.transaction(() => {
      inner = stores.transactionWhenFree(() => stores.facts.upsert(U, { key: 'a', value: '1' }));
      expect(stores.facts.get(U, 'a')?.value).toBe('1');
    });
    await inner;
    const env = makeEnv();
    try {
      await env.stores.transactionWhenFree(() => env.stores.facts.upsert(U, { key: 'b', value: '2' }));
      expect(env.stores.facts.get(U, 'b')?.value).toBe('2');
    } finally {
      env.close();
    }
  });
});
