import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { DEFERRED_WRITE_MS, INDEX_CATCH_UP_MAX_MS, INDEX_CATCH_UP_MS, INDEX_IDLE_REBUILD_MS, Stores } from './stores.js';
import { U, makeEnv, recordingLogger, type Env } from './test-helpers.js';
import type { CatchUp } from './retrieval/index-sync.js';

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

  it('a batch that fails on the timer never throws from it: logged, kept, and tried again after a longer delay', () => {
    env.close();
    const logger = recordingLogger();
    env = makeEnv({}, logger);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      let full = true;
      env.stores.defer(() => {
        // A disk that is full, then freed.
        if (full) throw new Error('SQLITE_FULL: database or disk is full');
        env.stores.recallEvents.record(U, { query: 'after the disk is freed', intent: 'balanced', result_count: 0, ms: 1 });
      });
      env.stores.defer(() => env.stores.recallEvents.record(U, { query: 'queued with it', intent: 'balanced', result_count: 0, ms: 1 }));
      vi.advanceTimersByTime(DEFERRED_WRITE_MS);
      expect(recallRows(env)).toBe(0);
      expect(logger.lines.map((l) => l.message)).toEqual([expect.stringMatching(/deferred bookkeeping failed.*disk is full/)]);
      vi.advanceTimersByTime(DEFERRED_WRITE_MS);
      expect(logger.lines).toHaveLength(2);
      full = false;
      vi.advanceTimersByTime(DEFERRED_WRITE_MS * 2 - 1);
      expect(recallRows(env)).toBe(0);
      vi.advanceTimersByTime(1);
      expect(recallRows(env)).toBe(2);
      expect(logger.lines).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
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

describe('StoreContext.onCommit', () => {
  it('runs after the commit of the transaction it was asked in, at once outside one, never after a rollback', () => {
    const ctx = env.stores.ctx;
    const seen: string[] = [];
    ctx.onCommit(() => seen.push('outside'));
    expect(seen).toEqual(['outside']);
    ctx.tx(() => {
      ctx.tx(() => ctx.onCommit(() => seen.push('inner')));
      ctx.onCommit(() => seen.push('outer'));
      expect(seen).toEqual(['outside']);
    });
    expect(seen).toEqual(['outside', 'inner', 'outer']);
    expect(() =>
      ctx.tx(() => {
        ctx.onCommit(() => seen.push('rolled back'));
        throw new Error('abort');
      }),
    ).toThrow('abort');
    // A transaction tx() did not open: its hooks never run, not even at the next commit.
    env.db.transaction(() => ctx.onCommit(() => seen.push('foreign'))).immediate();
    ctx.tx(() => undefined);
    expect(seen).toEqual(['outside', 'inner', 'outer']);
  });
});

describe('StoreContext.bulk', () => {
  it('runs store writes straight in one transaction, no savepoint each: a failed call keeps its writes until the rollback, which undoes all', () => {
    const ctx = env.stores.ctx;
    const count = () => env.db.prepare('SELECT COUNT(*) FROM episodes').pluck(true).get();
    const failing = () => {
      try {
        ctx.tx(() => {
          env.stores.episodes.add(U, { summary: 'written before the throw' });
          throw new Error('refused');
        });
      } catch {
        // The caller goes on.
      }
    };
    // In a transaction, a store call's own savepoint undoes its writes.
    ctx.tx(failing);
    expect(count()).toBe(0);
    // In bulk, no savepoint: the write stays in the transaction...
    ctx.bulk(() => {
      failing();
      expect(count()).toBe(1);
    });
    expect(count()).toBe(1);
    // ...and a throw out of bulk rolls back everything it wrote, inside an open transaction too.
    expect(() =>
      ctx.tx(() =>
        ctx.bulk(() => {
          env.stores.episodes.add(U, { summary: 'one' });
          env.stores.episodes.add(U, { summary: 'two' });
          throw new Error('abort');
        }),
      ),
    ).toThrow('abort');
    expect(count()).toBe(1);
    // Commit hooks of writes in bulk run after the commit.
    const seen: string[] = [];
    ctx.bulk(() => ctx.tx(() => ctx.onCommit(() => seen.push('after commit'))));
    expect(seen).toEqual(['after commit']);
  });
});

describe('StoreContext.whenCommitted', () => {
  it('waits for the commit of a transaction tx() opened, drops the work on rollback, and runs at once otherwise', () => {
    const ctx = env.stores.ctx;
    const seen: string[] = [];
    ctx.whenCommitted(() => seen.push('no transaction'));
    env.stores.transaction(() => {
      ctx.whenCommitted(() => seen.push('committed'));
      expect(seen).toEqual(['no transaction']);
    });
    expect(() =>
      env.stores.transaction(() => {
        ctx.whenCommitted(() => seen.push('rolled back'));
        throw new Error('no');
      }),
    ).toThrow('no');
    // A transaction opened elsewhere: its outcome is not this context's to see, so the work runs now.
    env.db.transaction(() => ctx.whenCommitted(() => seen.push('foreign')))();
    expect(seen).toEqual(['no transaction', 'committed', 'foreign']);
    expect(ctx.openTransaction()).toBeNull();
  });
});

describe('retrieval index catch-up after writes', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const episode = (summary: string) => env.stores.episodes.add(U, { summary, emotional_weight: 0, importance: 0.5, tags: [] });
  /** Under fake timers: one harbour note, indexed by a search, then `fn` with a spy on the catch-up. */
  const underFakeTimers = (fn: (catchUp: MockInstance<() => CatchUp>) => void) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      episode('the harbour master logs the tide');
      env.stores.retrieval.search(U, 'harbour');
      fn(vi.spyOn(env.stores.retrieval, 'catchUp'));
    } finally {
      vi.useRealTimers();
    }
  };
  /**
   * 100 orchard rows, indexed by a search, then all edited to pear rows in one transaction: more
   * than half the index (and more than 64 records) to take out and put back, which calls for a
   * rebuild.
   */
  const bulkEdit = () => {
    const rows = Array.from({ length: 100 }, (_, i) => episode(`orchard row ${i}`));
    env.stores.retrieval.search(U, 'orchard');
    const update = env.db.prepare('UPDATE episodes SET summary = ? WHERE id = ?');
    env.stores.transaction(() => {
      for (const [i, r] of rows.entries()) update.run(`pear row ${i}`, Number(r.id.slice(3)));
    });
  };

  it('takes a write into the built indexes once writes pause, before any search asks', async () => {
    episode('the lighthouse keeper feeds the gulls');
    expect(env.stores.retrieval.search(U, 'lighthouse').map((h) => h.text)).toEqual(['the lighthouse keeper feeds the gulls']);
    const added = episode('a lighthouse lamp needs new oil');
    // Right after the commit the index is behind the log: a search now would apply it first.
    expect(env.stores.retrieval.catchUp().applied).toContain('l3');
    episode('the gulls circle the lighthouse at dawn');
    await sleep(INDEX_CATCH_UP_MS + 40);
    // The timer did it: nothing is left for the next search to apply.
    expect(env.stores.retrieval.catchUp()).toEqual({ applied: [], left: [] });
    const ids = env.stores.retrieval.search(U, 'lighthouse').map((h) => h.id);
    expect(ids).toHaveLength(3);
    expect(ids).toContain(added.id);
  });

  it('waits while writes keep coming, then catches up once for the whole burst', () =>
    underFakeTimers((catchUp) => {
      for (let i = 0; i < 4; i++) {
        episode(`note ${i} about the harbour`);
        vi.advanceTimersByTime(INDEX_CATCH_UP_MS - 1);
      }
      expect(catchUp).not.toHaveBeenCalled();
      vi.advanceTimersByTime(INDEX_CATCH_UP_MS);
      expect(catchUp).toHaveBeenCalledTimes(1);
      expect(catchUp.mock.results[0]?.value.applied).toContain('l3');
      expect(env.stores.retrieval.search(U, 'harbour')).toHaveLength(5);
    }));

  it('never builds an index nothing searched', async () => {
    episode('a note about the harbour');
    await sleep(INDEX_CATCH_UP_MS + 40);
    episode('another note about the harbour');
    // Had the timer built the l3 index, it would now be one write behind.
    expect(env.stores.retrieval.catchUp()).toEqual({ applied: [], left: [] });
    expect(env.stores.retrieval.search(U, 'harbour')).toHaveLength(2);
  });

  it('does nothing inside a transaction, and nothing after flush() and close', async () => {
    episode('first entry on the ferry');
    env.stores.retrieval.search(U, 'ferry');
    episode('second entry on the ferry');
    env.stores.transaction(() => expect(env.stores.retrieval.catchUp()).toEqual({ applied: [], left: [] }));
    env.stores.flush();
    env.db.close();
    // A timer left over would throw on the closed database here.
    await sleep(INDEX_CATCH_UP_MS + 40);
    expect(env.stores.retrieval.catchUp()).toEqual({ applied: [], left: [] });
  });

  it('leaves a worn-out index to the next search, which rebuilds it though the log has nothing new', () => {
    const kept = episode('the lighthouse keeper feeds the gulls');
    const edited = episode('draft 0 of the harbour log');
    env.stores.retrieval.search(U, 'harbour');
    const update = env.db.prepare('UPDATE episodes SET summary = ? WHERE id = ?');
    // Each edit, caught up on its own, leaves the old version's postings dead in the index.
    for (let i = 1; i <= 1025; i++) {
      update.run(`draft ${i} of the harbour log`, Number(edited.id.slice(3)));
      expect(env.stores.retrieval.catchUp().applied).toContain('l3');
    }
    // Up to date, but more dead postings than 1024 and than live ones: left for the next search.
    expect(env.stores.retrieval.catchUp()).toEqual({ applied: [], left: ['l3'] });
    expect(env.stores.retrieval.search(U, 'harbour lighthouse').map((h) => h.id).sort()).toEqual([edited.id, kept.id].sort());
    expect(env.stores.retrieval.search(U, 'draft').map((h) => h.text)).toEqual(['draft 1025 of the harbour log']);
    expect(env.stores.retrieval.catchUp()).toEqual({ applied: [], left: [] });
  });

  it('leaves the rebuild a bulk edit calls for to the next search, the index untouched', async () => {
    bulkEdit();
    await sleep(INDEX_CATCH_UP_MS + 40);
    // More than half the index edited: the timer did not rebuild, so l3 is still behind.
    expect(env.stores.retrieval.catchUp().left).toContain('l3');
    expect(env.stores.retrieval.search(U, 'pear', { limit: 200 })).toHaveLength(100);
    expect(env.stores.retrieval.search(U, 'orchard', { limit: 200 })).toHaveLength(0);
    // The search rebuilt it; small batches are applied again.
    episode('one more orchard note');
    expect(env.stores.retrieval.catchUp()).toMatchObject({ applied: expect.arrayContaining(['l3']), left: [] });
  });

  it('adds a bulk load as it comes: new records, however many, are applied and never call for a rebuild', async () => {
    episode('a first note about the orchard');
    env.stores.retrieval.search(U, 'orchard');
    env.stores.transaction(() => {
      for (let i = 0; i < 100; i++) episode(`orchard row ${i}`);
    });
    // A hundred times the index: applied, not left to the next search (which took seconds at 100,000).
    expect(env.stores.retrieval.catchUp()).toMatchObject({ applied: expect.arrayContaining(['l3']), left: [] });
    const found = env.stores.retrieval.search(U, 'orchard row', { limit: 200 });
    expect(found).toHaveLength(101);
    // The same answer, scores included, as an index built from the table by another connection.
    const built = env.second().stores.retrieval.search(U, 'orchard row', { limit: 200 });
    expect(found.map((h) => [h.id, h.score])).toEqual(built.map((h) => [h.id, h.score]));
  });

  it('catches up at least every INDEX_CATCH_UP_MAX_MS while writes keep coming without a pause', () =>
    underFakeTimers((catchUp) => {
      const gap = INDEX_CATCH_UP_MS - 1;
      let written = 0;
      const writeFor = (ms: number) => {
        for (let t = 0; t < ms; t += gap) {
          episode(`note ${written++} about the harbour`);
          vi.advanceTimersByTime(gap);
        }
      };
      writeFor(INDEX_CATCH_UP_MAX_MS - 2 * gap);
      expect(catchUp).not.toHaveBeenCalled();
      writeFor(2 * gap);
      expect(catchUp).toHaveBeenCalledTimes(1);
      expect(catchUp.mock.results[0]?.value).toEqual({ applied: expect.arrayContaining(['l3']), left: [] });
      writeFor(INDEX_CATCH_UP_MAX_MS);
      expect(catchUp).toHaveBeenCalledTimes(2);
      // What the second catch-up took in is searchable without the search applying anything.
      const applied = catchUp.mock.results[1]?.value.applied;
      expect(applied).toContain('l3');
      expect(env.stores.retrieval.search(U, 'harbour', { limit: 500 }).length).toBeGreaterThan(1);
    }));

  it('rebuilds (and saves) what the catch-up left once writes stop for INDEX_IDLE_REBUILD_MS, in slices; a write puts it off', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      bulkEdit();
      const refresh = vi.spyOn(env.stores.retrieval, 'refreshInSlices');
      vi.advanceTimersByTime(INDEX_CATCH_UP_MS);
      expect(env.stores.retrieval.catchUp().left).toContain('l3');
      vi.advanceTimersByTime(INDEX_IDLE_REBUILD_MS - 100);
      episode('a late orchard note');
      vi.advanceTimersByTime(INDEX_IDLE_REBUILD_MS - 1);
      expect(refresh).not.toHaveBeenCalled();
      vi.advanceTimersByTime(INDEX_IDLE_REBUILD_MS);
      expect(refresh).toHaveBeenCalledTimes(1);
      await refresh.mock.results[0]?.value;
      expect(env.stores.retrieval.catchUp()).toEqual({ applied: [], left: [] });
      expect(fs.existsSync(path.join(env.dir, 'retrieval', 'l3.idx'))).toBe(true);
      expect(env.stores.retrieval.search(U, 'pear', { limit: 200 })).toHaveLength(100);
      expect(env.stores.retrieval.search(U, 'orchard', { limit: 200 }).map((h) => h.text)).toEqual(['a late orchard note']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('reads a log that called for a rebuild once: later catch-ups leave the index without reading it again', () => {
    bulkEdit();
    const reads: string[] = [];
    const stmt = env.stores.ctx.stmt.bind(env.stores.ctx);
    env.stores.ctx.stmt = (sql: string) => {
      if (sql.includes('FROM retrieval_changes WHERE seq >')) reads.push(sql);
      return stmt(sql);
    };
    expect(env.stores.retrieval.catchUp().left).toContain('l3');
    const first = reads.filter((sql) => sql.includes('source = ?')).length;
    expect(first).toBeGreaterThan(0);
    // Each pause of a write-only stretch used to read the whole batch again (all of it, every time).
    for (let i = 0; i < 5; i++) {
      episode(`late orchard note ${i}`);
      expect(env.stores.retrieval.catchUp().left).toContain('l3');
    }
    const again = reads.filter((sql) => sql.includes('source = ?')).length - first;
    // The other sources still read their (empty) share of the new rows; l3 reads nothing.
    expect(again).toBe(5 * (first - 1));
    expect(env.stores.retrieval.search(U, 'orchard', { limit: 200 })).toHaveLength(5);
    episode('one more orchard note');
    expect(env.stores.retrieval.catchUp()).toMatchObject({ applied: expect.arrayContaining(['l3']), left: [] });
    expect(env.stores.retrieval.search(U, 'orchard', { limit: 200 })).toHaveLength(6);
    expect(env.stores.retrieval.search(U, 'pear', { limit: 200 })).toHaveLength(100);
  });
});

describe('the start repair', () => {
  it("takes no write lock when no file is owed: a start never waits for another process's lock for nothing", async () => {
    env.db.pragma('busy_timeout = 200');
    const other = env.second();
    other.db.exec('BEGIN IMMEDIATE');
    try {
      const t = performance.now();
      await expect(env.stores.repairAfterStopInSlices()).resolves.toMatchObject({ wiki_files: 0 });
      expect(performance.now() - t).toBeLessThan(150);
    } finally {
      other.db.exec('COMMIT');
    }
  });
});
