import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeEnv, U, U2, type Env } from '../test-helpers.js';
import { runSaga } from './sagas.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

const important = (text: string, scope = U) => env.stores.episodes.add(scope, { summary: text, importance: 0.9 });

describe('runSaga', () => {
  it('compensates the done steps in reverse order when one fails, runs none after it, and records a failed compensation', async () => {
    const log: string[] = [];
    const step = (name: string, fail = false, compFail = false) => ({
      name,
      run: () => {
        if (fail) throw new Error(`${name} broke`);
        log.push(`run ${name}`);
        return name;
      },
      compensate: () => {
        if (compFail) throw new Error(`undo ${name} broke`);
        log.push(`undo ${name}`);
      },
    });
    const r = await runSaga('t', [step('a'), step('b'), step('c', true), step('d')]);
    expect(log).toEqual(['run a', 'run b', 'undo b', 'undo a']);
    expect(r).toMatchObject({ status: 'rolled_back', error: 'c broke' });
    expect(r.steps.map((s) => s.status)).toEqual(['compensated', 'compensated', 'failed', 'not_run']);
    const bad = await runSaga('t', [step('a', false, true), step('b', true)]);
    expect(bad.status).toBe('rollback_failed');
    expect(bad.steps[0]).toMatchObject({ status: 'compensation_failed', error: 'undo a broke' });
    expect((await runSaga('t', [step('a')])).status).toBe('completed');
  });
});

describe('Sagas', () => {
  it('consolidate: completed, the important episodes become facts of the scope only', async () => {
    important('The team moved the billing service to Postgres in March.');
    important('Bob prefers tea over coffee every morning.', U2);
    const r = await env.stores.sagas.run('consolidate', U);
    expect(r.status).toBe('completed');
    expect(r.steps.map((s) => [s.step, s.status])).toEqual([['consolidate', 'done'], ['audit', 'done'], ['reindex', 'done']]);
    expect(env.stores.facts.count(U)).toBe(1);
    expect(env.stores.facts.count(U2)).toBe(0);
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
});
