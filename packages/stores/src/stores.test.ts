import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFERRED_WRITE_MS, Stores } from './stores.js';
import { U, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

const recallRows = (e: Env) => (e.stores.ctx.db.prepare('SELECT COUNT(*) AS n FROM recall_events').get() as { n: number }).n;

describe('deferred bookkeeping writes', () => {
  it('run together after at most DEFERRED_WRITE_MS, or at flush', async () => {
    for (let i = 0; i < 3; i++) env.stores.defer(() => env.stores.recallEvents.record(U, { query: `q${i}`, intent: 'balanced', result_count: 0, ms: 1 }));
    expect(recallRows(env)).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, DEFERRED_WRITE_MS + 30));
    expect(recallRows(env)).toBe(3);
    env.stores.defer(() => env.stores.recallEvents.record(U, { query: 'last', intent: 'balanced', result_count: 0, ms: 1 }));
    env.stores.flush();
    expect(recallRows(env)).toBe(4);
  });

  it("never wait on the timer for another process's write lock: the batch stays queued and lands once the lock is free", async () => {
    // A lock wait would block this thread for a minute: longer than the test may take.
    env.db.pragma('busy_timeout = 60000');
    const other = env.second();
    other.db.exec('BEGIN IMMEDIATE');
    env.stores.defer(() => env.stores.recallEvents.record(U, { query: 'while locked', intent: 'balanced', result_count: 0, ms: 1 }));
    await new Promise((resolve) => setTimeout(resolve, DEFERRED_WRITE_MS + 30));
    expect(recallRows(env)).toBe(0);
    expect(env.db.pragma('busy_timeout', { simple: true })).toBe(60000);
    other.db.exec('COMMIT');
    await new Promise((resolve) => setTimeout(resolve, DEFERRED_WRITE_MS + 30));
    expect(recallRows(env)).toBe(1);
  });

  it('a failing batch rolls back as one transaction', () => {
    env.stores.defer(() => env.stores.recallEvents.record(U, { query: 'kept?', intent: 'balanced', result_count: 0, ms: 1 }));
    env.stores.defer(() => {
      throw new Error('disk full');
    });
    expect(() => env.stores.flush()).toThrow('disk full');
    expect(recallRows(env)).toBe(0);
  });
});

describe('afterCommit', () => {
  it('runs once per committed outermost transaction, never after a rollback', () => {
    let commits = 0;
    const stores = new Stores({ db: env.db, dataDir: env.dir, clock: env.clock, afterCommit: () => commits++ });
    stores.transaction(() => {
      stores.episodes.add(U, { summary: 'outer', emotional_weight: 0, importance: 0.5, tags: [] });
      stores.transaction(() => stores.episodes.add(U, { summary: 'inner', emotional_weight: 0, importance: 0.5, tags: [] }));
    });
    expect(commits).toBe(1);
    stores.episodes.add(U, { summary: 'alone', emotional_weight: 0, importance: 0.5, tags: [] });
    expect(commits).toBe(2);
    expect(() =>
      stores.transaction(() => {
        stores.episodes.add(U, { summary: 'undone', emotional_weight: 0, importance: 0.5, tags: [] });
        throw new Error('abort');
      }),
    ).toThrow('abort');
    expect(commits).toBe(2);
  });
});
