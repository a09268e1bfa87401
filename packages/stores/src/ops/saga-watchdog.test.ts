import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeEnv, U, type Env } from '../test-helpers.js';
import { BREAKER_THRESHOLD } from './breakers.js';
import { SAGA_STALE_MIN_MS } from './saga-watchdog.js';
import type { SagaStepDef } from './sagas.js';

let env: Env;
beforeEach(() => {
  env = makeEnv({ sagaTimeoutSeconds: 60 });
});
afterEach(() => env.close());

/** The pid of a process that has exited. */
const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid!;

interface SeedStep {
  name: string;
  status?: 'done' | 'failed' | 'compensated';
  result?: unknown;
}

/** A journal row as a process that died midway leaves it: running, its done steps written, owned by another process. */
function seedRun(e: Env, o: { saga: string; scoped?: boolean; owner?: string; pid?: number | null; host?: string; heartbeatAgoMs?: number; status?: string; steps: SeedStep[] }): string {
  const id = `saga_seed_${Math.random().toString(16).slice(2, 10)}`;
  const now = e.clock.now();
  const iso = (ms: number) => new Date(ms).toISOString();
  e.db
    .prepare(
      `INSERT INTO saga_runs (id, saga, layer, user_id, status, started, updated, heartbeat, owner, owner_pid, owner_host)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(id, o.saga, o.scoped === false ? null : U.layer, o.scoped === false ? null : U.user_id, o.status ?? 'running', iso(now - 1000), iso(now - 500), iso(now - (o.heartbeatAgoMs ?? 500)), o.owner ?? 'dead-owner', o.pid === undefined ? deadPid() : o.pid, o.host ?? os.hostname());
  o.steps.forEach((s, seq) =>
    e.db.prepare('INSERT INTO saga_steps (run_id, seq, name, status, result, updated) VALUES (?, ?, ?, ?, ?, ?)').run(id, seq, s.name, s.status ?? 'done', JSON.stringify(s.result ?? null), iso(now - 600)),
  );
  return id;
}

/** A consolidate run killed after its consolidate step: the fact it wrote exists, the journal says so. */
function killedConsolidate(e: Env, opts: Partial<Parameters<typeof seedRun>[1]> = {}): { id: string; key: string } {
  const fact = e.stores.facts.upsert(U, { key: 'episode:billing-moved-to-postgres', value: 'Billing moved to Postgres.', source: 'episode_promotion' });
  const id = seedRun(e, {
    saga: 'consolidate',
    ...opts,
    steps: [{ name: 'consolidate', result: { consolidated: [{ episode_id: 'ep_1', key: fact.key, entry_id: fact.entry_id, transition_id: 't_1' }], ts: 'x' } }],
  });
  return { id, key: fact.key };
}

describe('SagaWatchdog.check', () => {
  it('a run left by a dead process: its consolidated facts are deleted from the journal alone and the run says rolled_back', async () => {
    const { id, key } = killedConsolidate(env);
    env.stores.facts.upsert(U, { key: 'unrelated', value: 'stays' });
    const r = await env.stores.sagaWatchdog.check();
    expect(r).toMatchObject({ checked: 1, skipped: false, error: null, rolled_back: [{ run_id: id, saga: 'consolidate', reason: 'orphaned', status: 'rolled_back' }] });
    expect(r.rolled_back[0]!.detail).toMatch(/the process that ran it \(pid \d+\) stopped/);
    expect(env.stores.facts.get(U, key)).toBeNull();
    expect(env.stores.facts.get(U, 'unrelated')).not.toBeNull();
    const run = env.stores.sagas.journal.get(id)!;
    expect(run).toMatchObject({ status: 'rolled_back', compensated_by: 'watchdog', owner: env.stores.sagas.owner.id, error: expect.stringMatching(/stopped before the saga finished/) });
    expect(run.steps[0]).toMatchObject({ status: 'compensated', undone: { deleted_facts: [key] } });
    // Nothing is left to do: a second check changes nothing.
    expect((await env.stores.sagaWatchdog.check()).rolled_back).toEqual([]);
  });

  it('a backup run left by a dead process after its copy: the backup file is removed', async () => {
    const made = await env.stores.backups.create('saga');
    const file = path.join(env.stores.backups.dir, made.name);
    expect(fs.existsSync(file)).toBe(true);
    const id = seedRun(env, { saga: 'backup', scoped: false, steps: [{ name: 'flush', result: { flushed: true } }, { name: 'backup', result: made }] });
    const r = await env.stores.sagaWatchdog.check();
    expect(r.rolled_back.map((a) => [a.run_id, a.status])).toEqual([[id, 'rolled_back']]);
    expect(fs.existsSync(file)).toBe(false);
    expect(env.stores.sagas.journal.get(id)!.steps.map((s) => [s.name, s.status])).toEqual([['flush', 'compensated'], ['backup', 'compensated']]);
  });

  it('a run of a live process is left to it until its heartbeat goes stale; another host is judged by the heartbeat alone', async () => {
    const live = killedConsolidate(env, { pid: process.pid === 1 ? 2 : 1, host: os.hostname() });
    // pid 1 (or 2) is alive: the run is its process's own business.
    const far = seedRun(env, { saga: 'backup', scoped: false, host: 'another-host', pid: 4242, steps: [{ name: 'flush', result: { flushed: true } }] });
    expect((await env.stores.sagaWatchdog.check()).rolled_back).toEqual([]);
    expect(env.stores.sagas.journal.status(live.id)).toBe('running');
    expect(env.stores.sagaWatchdog.staleMs).toBeGreaterThanOrEqual(SAGA_STALE_MIN_MS);
    env.clock.advance(env.stores.sagaWatchdog.staleMs + 1000);
    const r = await env.stores.sagaWatchdog.check();
    expect(r.rolled_back.map((a) => a.run_id).sort()).toEqual([live.id, far].sort());
    expect(r.rolled_back[0]!.detail).toMatch(/no sign of life/);
    expect(env.stores.facts.get(U, live.key)).toBeNull();
  });

  it('a run of another Stores of this process is left alone while that Stores runs, and taken over once it stopped', async () => {
    const other = env.second();
    const { id } = killedConsolidate(env, { owner: other.stores.sagas.owner.id, pid: process.pid });
    expect((await env.stores.sagaWatchdog.check()).rolled_back).toEqual([]);
    other.stores.sagas.retire();
    expect((await env.stores.sagaWatchdog.check()).rolled_back.map((a) => a.run_id)).toEqual([id]);
  });

  it('nothing happens to completed or rolled back runs, however old', async () => {
    env.stores.episodes.add(U, { summary: 'The team moved the billing service to Postgres in March.', importance: 0.9 });
    const done = await env.stores.sagas.run('consolidate', U);
    const before = JSON.stringify(env.stores.sagas.journal.get(done.run_id));
    env.clock.advance(30 * 86_400_000);
    const r = await env.stores.sagaWatchdog.check();
    expect(r).toMatchObject({ checked: 0, rolled_back: [] });
    expect(JSON.stringify(env.stores.sagas.journal.get(done.run_id))).toBe(before);
    expect(env.stores.facts.count(U)).toBe(1);
  });

  it('resumes a compensation a dead watchdog left midway: only the steps still done are compensated', async () => {
    const log: string[] = [];
    const step = (name: string): SagaStepDef => ({ name, run: () => name, compensate: (r: string) => void log.push(`undo ${r}`) });
    env.stores.sagas.define('three', { scoped: true, steps: [step('a'), step('b'), step('c')] });
    const id = seedRun(env, { saga: 'three', status: 'compensating', steps: [{ name: 'a', result: 'a' }, { name: 'b', status: 'compensated', result: 'b' }] });
    await env.stores.sagaWatchdog.check();
    expect(log).toEqual(['undo a']);
    expect(env.stores.sagas.journal.status(id)).toBe('rolled_back');
  });

  it('a saga this version does not know: rollback_failed, naming the step', async () => {
    const id = seedRun(env, { saga: 'vanished', steps: [{ name: 'x', result: 1 }] });
    const r = await env.stores.sagaWatchdog.check();
    expect(r.rolled_back[0]).toMatchObject({ run_id: id, status: 'rollback_failed' });
    expect(env.stores.sagas.journal.get(id)!.steps[0]).toMatchObject({ status: 'compensation_failed', error: expect.stringContaining('no compensation is known for step x of saga vanished') });
  });

  it('a step that hangs past saga.timeout_seconds: the run is marked, its done steps undone, no later step started, and the hung step undone when it ends', async () => {
    const log: string[] = [];
    const step = (name: string): SagaStepDef => ({ name, run: () => (log.push(`run ${name}`), name), compensate: (r: string) => (log.push(`undo ${r}`), { undid: r }) });
    env.stores.sagas.define('slow', { scoped: true, steps: [step('a'), step('b'), step('c')] });
    let release!: () => void;
    env.stores.sagas.stalls.set('slow:b', new Promise<void>((r) => (release = r)));
    const running = env.stores.sagas.run('slow', U);
    await new Promise((r) => setTimeout(r, 10));
    // Not past its timeout yet: left alone.
    expect((await env.stores.sagaWatchdog.check()).rolled_back).toEqual([]);
    env.clock.advance(61_000);
    const report = await env.stores.sagaWatchdog.check();
    expect(report.rolled_back[0]).toMatchObject({ reason: 'timed_out', detail: 'the saga ran past its timeout of 60 s', status: 'rolled_back' });
    const r = await running;
    expect(r).toMatchObject({ status: 'rolled_back', error: 'the saga ran past its timeout of 60 s' });
    expect(r.steps.map((s) => s.status)).toEqual(['compensated', 'failed', 'not_run']);
    expect(r.steps[1]!.error).toMatch(/still running/);
    expect(log).toEqual(['run a', 'undo a']);
    release();
    await env.stores.sagas.idle(1000);
    expect(log).toEqual(['run a', 'undo a', 'run b', 'undo b']);
    const run = env.stores.sagas.journal.get(r.run_id)!;
    expect(run).toMatchObject({ status: 'rolled_back', compensated_by: 'watchdog' });
    expect(run.steps.map((s) => [s.name, s.status])).toEqual([['a', 'compensated'], ['b', 'compensated']]);
  });

  it('counts its failures on its breaker (saga_watchdog) and skips checks once it is open', async () => {
    killedConsolidate(env);
    env.db.exec('DROP TABLE saga_steps');
    for (let i = 0; i < BREAKER_THRESHOLD; i++) expect((await env.stores.sagaWatchdog.check()).error).toMatch(/saga_steps/);
    expect(env.stores.breakers.get('saga_watchdog').state).toBe('open');
    expect(await env.stores.sagaWatchdog.check()).toMatchObject({ skipped: true, checked: 0 });
  });
});

describe('SagaWatchdog timers', () => {
  it('the first check runs shortly after start, by itself', async () => {
    const { id } = killedConsolidate(env);
    env.stores.sagaWatchdog.start(60_000, 5);
    try {
      for (let i = 0; i < 100 && env.stores.sagas.journal.status(id) === 'running'; i++) await new Promise((r) => setTimeout(r, 10));
      expect(env.stores.sagas.journal.status(id)).toBe('rolled_back');
      expect(env.stores.sagaWatchdog.lastCheckAt).not.toBeNull();
    } finally {
      await env.stores.sagaWatchdog.stop();
    }
  });

  it('stop() clears the timers (no check after it) and waits for a saga in progress', async () => {
    env.stores.sagaWatchdog.start(60_000, 20);
    expect(env.stores.sagaWatchdog.started).toBe(true);
    const step = (name: string): SagaStepDef => ({ name, run: () => name });
    env.stores.sagas.define('two', { scoped: true, steps: [step('a'), step('b')] });
    let release!: () => void;
    env.stores.sagas.stalls.set('two:b', new Promise<void>((r) => (release = r)));
    const running = env.stores.sagas.run('two', U);
    const order: string[] = [];
    setTimeout(() => {
      order.push('released');
      release();
    }, 50);
    await env.stores.sagaWatchdog.stop();
    order.push('stopped');
    expect(order).toEqual(['released', 'stopped']);
    expect((await running).status).toBe('completed');
    expect(env.stores.sagaWatchdog.started).toBe(false);
    killedConsolidate(env);
    await new Promise((r) => setTimeout(r, 60));
    expect(env.stores.sagaWatchdog.lastCheckAt).toBeNull();
  });
});

describe('SagaWatchdog.diagnose', () => {
  it('ok with counts; fail for a run unfinished past its timeout; warn for a recent rollback_failed', async () => {
    expect(env.stores.sagaWatchdog.diagnose()).toMatchObject({ status: 'ok', detail: expect.stringContaining('0 unfinished') });
    const { id } = killedConsolidate(env, { pid: process.pid === 1 ? 2 : 1, host: 'another-host', heartbeatAgoMs: 0 });
    expect(env.stores.sagaWatchdog.diagnose().status).toBe('ok');
    env.clock.advance(60_000 + env.stores.sagaWatchdog.staleMs + 1000);
    expect(env.stores.sagaWatchdog.diagnose()).toMatchObject({ status: 'fail', detail: expect.stringContaining(id) });
    await env.stores.sagaWatchdog.check();
    expect(env.stores.sagaWatchdog.diagnose()).toMatchObject({ status: 'ok', detail: expect.stringContaining('1 rolled back') });
    const failed = seedRun(env, { saga: 'vanished', steps: [{ name: 'x', result: 1 }] });
    await env.stores.sagaWatchdog.check();
    expect(env.stores.sagaWatchdog.diagnose()).toMatchObject({ status: 'warn', detail: expect.stringContaining(failed) });
    env.clock.advance(8 * 86_400_000);
    expect(env.stores.sagaWatchdog.diagnose().status).toBe('ok');
  });
});
