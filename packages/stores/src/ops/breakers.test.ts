import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeEnv, TestClock, U, type Env } from '../test-helpers.js';
import { Breaker, BREAKER_COOLDOWN_MS, BREAKER_NAMES, BREAKER_THRESHOLD, BreakerRegistry } from './breakers.js';

describe('Breaker', () => {
  it('opens after BREAKER_THRESHOLD failures in a row, skips work until the cooldown, then lets one trial through', () => {
    const clock = new TestClock();
    const b = new Breaker('l1_files', clock);
    for (let i = 0; i < BREAKER_THRESHOLD - 1; i++) b.failure(new Error('disk full'));
    expect(b.state).toBe('closed');
    expect(b.allow()).toBe(true);
    b.failure(new Error('disk full'));
    expect(b.snapshot()).toEqual({ name: 'l1_files', state: 'open', failures: BREAKER_THRESHOLD, opened_at: new Date(clock.t).toISOString(), last_error: 'disk full' });
    expect(b.allow()).toBe(false);
    expect(b.run(() => 1)).toEqual({ ran: false });
    clock.advance(BREAKER_COOLDOWN_MS - 1);
    expect(b.allow()).toBe(false);
    expect(b.remainingMs()).toBe(1);
    clock.advance(1);
    expect(b.allow()).toBe(true);
    expect(b.state).toBe('half-open');
    // A failed trial opens it again for a whole new cooldown.
    b.failure(new Error('still full'));
    expect(b.state).toBe('open');
    expect(b.remainingMs()).toBe(BREAKER_COOLDOWN_MS);
    clock.advance(BREAKER_COOLDOWN_MS);
    expect(b.run(() => 7)).toEqual({ ran: true, value: 7 });
    expect(b.snapshot()).toMatchObject({ state: 'closed', failures: 0, opened_at: null, last_error: null });
  });

  it('a success in between starts the count over; run() counts a throw and throws it on', () => {
    const b = new Breaker('deferred_writes', new TestClock());
    for (let i = 0; i < BREAKER_THRESHOLD - 1; i++) b.failure(new Error('x'));
    b.success();
    for (let i = 0; i < BREAKER_THRESHOLD - 1; i++) {
      expect(() =>
        b.run(() => {
          throw new Error('boom');
        }),
      ).toThrow('boom');
    }
    expect(b.state).toBe('closed');
    expect(b.failures).toBe(BREAKER_THRESHOLD - 1);
  });

  it('the registry has one breaker per component and resetAll closes the ones not closed', () => {
    const r = new BreakerRegistry(new TestClock(), { threshold: 1 });
    expect(r.list().map((b) => b.name)).toEqual([...BREAKER_NAMES]);
    r.get('backup_scheduler').failure(new Error('x'));
    expect(r.get('backup_scheduler').state).toBe('open');
    expect(r.resetAll()).toEqual(['backup_scheduler']);
    expect(r.list().every((b) => b.state === 'closed')).toBe(true);
    expect(r.resetAll()).toEqual([]);
  });
});

describe('breakers wired to the background work of Stores', () => {
  let env: Env;
  beforeEach(() => {
    env = makeEnv();
  });
  afterEach(() => {
    vi.restoreAllMocks();
    env.close();
  });

  it('deferred_writes: failing batches open it; while open the timed write is skipped and the batch kept; after the cooldown it runs', () => {
    let failing = true;
    let written = 0;
    env.stores.defer(() => {
      if (failing) throw new Error('disk I/O error');
      written++;
    });
    // A write asked for (writeDeferred) throws to its caller and does not count; the timed ones count.
    expect(() => env.stores.writeDeferred()).toThrow('disk I/O error');
    expect(env.stores.breakers.get('deferred_writes').failures).toBe(0);
    for (let i = 0; i < BREAKER_THRESHOLD; i++) (env.stores as any).flushDeferred(false);
    const breaker = env.stores.breakers.get('deferred_writes');
    expect(breaker.state).toBe('open');
    failing = false;
    (env.stores as any).flushDeferred(false);
    expect(written).toBe(0);
    env.clock.advance(BREAKER_COOLDOWN_MS);
    (env.stores as any).flushDeferred(false);
    expect(written).toBe(1);
    expect(breaker.state).toBe('closed');
  });

  it('l1_files: a folder that cannot be written opens it; while open the timed flush skips; reset lets it write again', () => {
    const dir = path.join(env.dir, 'l1', 'user');
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    fs.writeFileSync(dir, 'not a folder');
    env.stores.l1.push(U, { text: 'kept in the ring' });
    env.stores.l1.flush();
    expect(env.stores.breakers.get('l1_files').failures).toBe(0);
    for (let i = 0; i < BREAKER_THRESHOLD; i++) env.stores.l1.flush(false);
    expect(env.stores.breakers.get('l1_files').snapshot()).toMatchObject({ state: 'open', failures: BREAKER_THRESHOLD });
    fs.rmSync(dir);
    env.stores.l1.flush(false);
    expect(fs.existsSync(env.stores.l1.fileFor(U))).toBe(false);
    env.stores.breakers.resetAll();
    env.stores.l1.flush(false);
    expect(JSON.parse(fs.readFileSync(env.stores.l1.fileFor(U), 'utf8')).items[0].text).toBe('kept in the ring');
  });

  it('index_catch_up: a catch-up that throws counts, and once open it is not called until the cooldown', () => {
    const spy = vi.spyOn(env.stores.retrieval, 'catchUp').mockImplementation(() => {
      throw new Error('index broken');
    });
    const fire = () => {
      (env.stores as any).lastCommit = 0;
      (env.stores as any).catchUp.fire();
    };
    for (let i = 0; i < BREAKER_THRESHOLD; i++) fire();
    expect(spy).toHaveBeenCalledTimes(BREAKER_THRESHOLD);
    expect(env.stores.breakers.get('index_catch_up').state).toBe('open');
    fire();
    expect(spy).toHaveBeenCalledTimes(BREAKER_THRESHOLD);
    spy.mockReturnValue({ applied: [], left: [] });
    env.clock.advance(BREAKER_COOLDOWN_MS);
    fire();
    expect(spy).toHaveBeenCalledTimes(BREAKER_THRESHOLD + 1);
    expect(env.stores.breakers.get('index_catch_up').state).toBe('closed');
  });

  it('backup_scheduler: failing scheduled backups open it and later ticks take none', async () => {
    const spy = vi.spyOn(Object.getPrototypeOf(env.db) as typeof env.db, 'backup').mockRejectedValue(new Error('no space left on device'));
    for (let i = 0; i < BREAKER_THRESHOLD; i++) expect(await env.stores.backups.tick()).toBeNull();
    expect(env.stores.breakers.get('backup_scheduler').state).toBe('open');
    expect(env.stores.backups.status().scheduler.last_error).toBe('no space left on device');
    spy.mockRestore();
    expect(await env.stores.backups.tick()).toBeNull();
    expect(env.stores.backups.list()).toEqual([]);
    env.clock.advance(BREAKER_COOLDOWN_MS);
    expect((await env.stores.backups.tick())?.kind).toBe('scheduled');
    expect(env.stores.breakers.get('backup_scheduler').state).toBe('closed');
  });
});
