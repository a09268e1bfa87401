import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeEnv, thrownBy, U, U2, type Env } from '../test-helpers.js';
import type { SagaStepDef } from './sagas.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

const important = (text: string, scope = U) => env.stores.episodes.add(scope, { summary: text, importance: 0.9 });

/** A step of a test saga that logs its work and its compensation. */
function logged(log: string[], name: string, opts: { fail?: boolean; compFail?: boolean; run?: () => void } = {}): SagaStepDef {
  return {
    name,
    run: () => {
      opts.run?.();
      if (opts.fail) throw new Error(`${name} broke`);
      log.push(`run ${name}`);
      return { did: name };
    },
    compensate: (result: { did: string }) => {
      if (opts.compFail) throw new Error(`undo ${name} broke`);
      log.push(`undo ${result.did}`);
      return { undid: result.did };
    },
  };
}

describe('Sagas.run', () => {
  it('compensates the done steps in reverse order from the journal when one fails, runs none after it, and records a failed compensation', async () => {
    const log: string[] = [];
    env.stores.sagas.define('t', { scoped: true, steps: [logged(log, 'a'), logged(log, 'b'), logged(log, 'c', { fail: true }), logged(log, 'd')] });
    const r = await env.stores.sagas.run('t', U);
    expect(log).toEqual(['run a', 'run b', 'undo b', 'undo a']);
    expect(r).toMatchObject({ status: 'rolled_back', error: 'c broke', run_id: expect.stringMatching(/^saga_/) });
    expect(r.steps.map((s) => s.status)).toEqual(['compensated', 'compensated', 'failed', 'not_run']);
    expect(r.steps[0]!.detail).toEqual({ did: { did: 'a' }, undone: { undid: 'a' } });
    const run = env.stores.sagas.journal.get(r.run_id)!;
    expect(run).toMatchObject({ status: 'rolled_back', compensated_by: 'saga', layer: 'user', user_id: 'default', error: 'c broke' });
    expect(run.steps.map((s) => [s.name, s.status])).toEqual([['a', 'compensated'], ['b', 'compensated'], ['c', 'failed']]);

    env.stores.sagas.define('t2', { scoped: true, steps: [logged(log, 'a', { compFail: true }), logged(log, 'b', { fail: true })] });
    const bad = await env.stores.sagas.run('t2', U);
    expect(bad.status).toBe('rollback_failed');
    expect(bad.steps[0]).toMatchObject({ status: 'compensation_failed', error: 'undo a broke' });
    expect(env.stores.sagas.journal.status(bad.run_id)).toBe('rollback_failed');
  });

  it('writes each step done, with its result, before the next step starts', async () => {
    const seen: unknown[] = [];
    env.stores.sagas.define('t', {
      scoped: false,
      steps: [
        { name: 'first', run: () => ({ file: 'x.db' }) },
        { name: 'second', run: (c) => void seen.push(env.stores.sagas.journal.get(c.runId)) },
      ],
    });
    const r = await env.stores.sagas.run('t', U);
    expect(r.status).toBe('completed');
    expect(seen[0]).toMatchObject({ status: 'running', layer: null, user_id: null, owner: env.stores.sagas.owner.id, steps: [{ seq: 0, name: 'first', status: 'done', result: { file: 'x.db' } }] });
    expect(env.stores.sagas.journal.get(r.run_id)).toMatchObject({ status: 'completed', compensated_by: null, error: null });
  });

  it('a run past saga.timeout_seconds before a step starts: that step and the later ones are not started, the done ones are compensated', async () => {
    const log: string[] = [];
    const short = makeEnv({ sagaTimeoutSeconds: 10 });
    try {
      short.stores.sagas.define('t', { scoped: true, steps: [logged(log, 'a', { run: () => short.clock.advance(11_000) }), logged(log, 'b'), logged(log, 'c')] });
      const r = await short.stores.sagas.run('t', U);
      expect(log).toEqual(['run a', 'undo a']);
      expect(r.status).toBe('rolled_back');
      expect(r.error).toMatch(/timeout of 10 s: step b and the steps after it were not started/);
      expect(r.steps.map((s) => s.status)).toEqual(['compensated', 'not_run', 'not_run']);
    } finally {
      short.close();
    }
  });
});

describe('the sagas of memory_saga', () => {
  it('consolidate: completed, the important episodes become facts of the scope only; the journal holds the consolidated keys', async () => {
    important('The team moved the billing service to Postgres in March.');
    important('Bob prefers tea over coffee every morning.', U2);
    const r = await env.stores.sagas.run('consolidate', U);
    expect(r.status).toBe('completed');
    expect(r.steps.map((s) => [s.step, s.status])).toEqual([['consolidate', 'done'], ['audit', 'done'], ['reindex', 'done']]);
    expect(env.stores.facts.count(U)).toBe(1);
    expect(env.stores.facts.count(U2)).toBe(0);
    const step = env.stores.sagas.journal.get(r.run_id)!.steps[0]!;
    expect(step.result).toMatchObject({ consolidated: [{ key: expect.stringMatching(/^episode:/) }] });
    expect(env.db.prepare('SELECT action FROM audit_log WHERE target_id = ?').pluck(true).all(r.run_id)).toEqual(['saga_consolidate']);
  });

  it('consolidate: a failure injected after the consolidation rolls its facts back', async () => {
    important('The team moved the billing service to Postgres in March.');
    env.stores.sagas.faults.add('consolidate:reindex');
    const r = await env.stores.sagas.run('consolidate', U);
    expect(r).toMatchObject({ status: 'rolled_back', error: 'injected fault in step reindex' });
    expect(r.steps.map((s) => s.status)).toEqual(['compensated', 'compensated', 'failed']);
    expect(r.steps[0]!.detail).toMatchObject({ undone: { deleted_facts: [expect.stringMatching(/^episode:/)] } });
    expect(env.stores.facts.count(U)).toBe(0);
    expect(env.stores.episodes.count(U)).toBe(1);
    // The fault fires once: the next run completes.
    expect((await env.stores.sagas.run('consolidate', U)).status).toBe('completed');
    expect(env.stores.facts.count(U)).toBe(1);
  });

  it('backup: completed leaves a verified saga- backup; a failure after it removes the file', async () => {
    const ok = await env.stores.sagas.run('backup', U);
    expect(ok.status).toBe('completed');
    expect(env.stores.backups.list().map((b) => b.kind)).toEqual(['saga']);
    env.clock.advance(1000);
    env.stores.sagas.faults.add('backup:audit');
    const r = await env.stores.sagas.run('backup', U);
    expect(r.status).toBe('rolled_back');
    expect(r.steps.map((s) => s.status)).toEqual(['compensated', 'compensated', 'compensated', 'failed']);
    expect(env.stores.backups.list()).toHaveLength(1);
    expect(fs.readdirSync(env.stores.backups.dir)).toHaveLength(1);
  });

  it('backup: the rollback of a run whose process was killed mid-copy removes its unfinished copy, and keeps a copy a running process is taking', async () => {
    const s = env.stores;
    // A run killed in its backup step: the journal has its flush done, the copy only a temp name.
    const runId = s.sagas.journal.begin('backup', null);
    s.sagas.journal.step(runId, 0, 'flush', 'done', { flushed: true });
    fs.mkdirSync(s.backups.dir, { recursive: true });
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    const left = [`saga-20260101T000000000Z.db.${gone}.0123456789ab.tmp`, `saga-20260101T000000000Z.db.${gone}.0123456789ab.tmp-journal`];
    const running = `manual-20260101T000000000Z.db.${process.pid}.0123456789ab.tmp`;
    for (const n of [...left, running]) fs.writeFileSync(path.join(s.backups.dir, n), 'x');
    expect(s.sagas.journal.claim(runId, 'watchdog', 'its process stopped')).toBe(true);
    await s.sagas.compensate(runId, 'watchdog', 'its process stopped');
    expect(s.sagas.journal.get(runId)?.status).toBe('rolled_back');
    expect(fs.readdirSync(s.backups.dir)).toEqual([running]);
  });

  it('runs(): the scope\'s runs and the service-wide ones, newest first, filtered; another scope\'s run_id is not found', async () => {
    important('The team moved the billing service to Postgres in March.');
    const mine = await env.stores.sagas.run('consolidate', U);
    env.clock.advance(1000);
    const bobs = await env.stores.sagas.run('consolidate', U2);
    env.clock.advance(1000);
    const backup = await env.stores.sagas.run('backup', U2);
    const runs = env.stores.sagas.runs(U);
    expect(runs.map((r) => r.run_id)).toEqual([backup.run_id, mine.run_id]);
    expect(runs[1]).toMatchObject({ saga: 'consolidate', layer: 'user', user_id: 'default', status: 'completed', compensated_by: null });
    expect(runs[0]).toMatchObject({ saga: 'backup', layer: null, user_id: null });
    expect(env.stores.sagas.runs(U, { saga: 'consolidate' }).map((r) => r.run_id)).toEqual([mine.run_id]);
    expect(env.stores.sagas.runs(U, { status: 'rolled_back' })).toEqual([]);
    expect(env.stores.sagas.runs(U, { limit: 1 })).toHaveLength(1);
    expect(env.stores.sagas.runs(U2, { runId: bobs.run_id })[0]!.run_id).toBe(bobs.run_id);
    expect(thrownBy(() => env.stores.sagas.runs(U, { runId: bobs.run_id })).field).toBe('run_id');
  });
});
