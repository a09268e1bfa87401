import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { A, U, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

describe('ProcedureStore', () => {
  it('saves (upsert keeping the run counts), records runs, lists and deletes', () => {
    const p = env.stores.procedures.save(U, 'Deploy App', { steps: [' build ', 'test', 'ship'], trigger: 'on release' });
    expect(p).toMatchObject({ name: 'deploy-app', steps: ['build', 'test', 'ship'], step_count: 3, trigger: 'on release', description: '', successes: 0, success_rate: null, created_new: true });
    env.clock.advance(1000);
    env.stores.procedures.record(U, 'deploy-app', 'success');
    const r = env.stores.procedures.record(U, 'deploy-app', 'failure', 'tests flaky');
    expect(r).toMatchObject({ successes: 1, failures: 1, success_rate: 0.5, last_outcome: 'failure', last_note: 'tests flaky', last_run: '2026-01-01T00:00:01.000Z' });
    const again = env.stores.procedures.save(U, 'deploy app', { steps: ['build', 'ship'], description: 'how we ship' });
    expect(again).toMatchObject({ created_new: false, steps: ['build', 'ship'], trigger: 'on release', description: 'how we ship', successes: 1, failures: 1 });
    env.stores.procedures.save(U, 'alpha', { steps: ['x'] });
    const l = env.stores.procedures.list(U);
    expect(l.total).toBe(2);
    expect(l.procedures.map((x) => x.name)).toEqual(['alpha', 'deploy-app']);
    expect(l.procedures[0]).not.toHaveProperty('steps');
    expect(env.stores.procedures.delete(U, 'alpha').name).toBe('alpha');
    expect(env.stores.procedures.get(U, 'alpha')).toBeNull();
  });

  it('validates steps, outcome, name and keeps scopes apart', () => {
    expect(() => env.stores.procedures.save(U, 'p', { steps: [] })).toThrow(expect.objectContaining({ field: 'steps' }));
    expect(() => env.stores.procedures.save(U, 'p', { steps: Array(51).fill('s') })).toThrow(expect.objectContaining({ field: 'steps' }));
    expect(() => env.stores.procedures.save(U, 'p', { steps: ['ok', ' '] })).toThrow(expect.objectContaining({ field: 'steps.1' }));
    expect(() => env.stores.procedures.save(U, '!!!', { steps: ['s'] })).toThrow(expect.objectContaining({ field: 'name' }));
    env.stores.procedures.save(U, 'p', { steps: ['s'] });
    expect(() => env.stores.procedures.record(U, 'p', 'maybe' as never)).toThrow(expect.objectContaining({ field: 'outcome' }));
    expect(() => env.stores.procedures.record(A, 'p', 'success')).toThrow(expect.objectContaining({ field: 'name' }));
    expect(env.stores.procedures.list(A).total).toBe(0);
    expect(env.stores.procedures.get(U, 'p')?.successes).toBe(0);
  });
});

describe('ProcedureStore: export, import and the window purge', () => {
  it('restore keeps the steps, run counts and times, leaves a held name as it is; deleteSince keeps one made earlier and run since', () => {
    const s = env.stores.procedures;
    s.save(U, 'Old', { steps: ['a'] });
    const since = env.clock.now();
    env.clock.advance(1000);
    s.record(U, 'old', 'success');
    s.save(U, 'New', { steps: ['b'] });
    const p = { name: 'Deploy', description: 'd', trigger: 't', steps: ['x', 'y'], successes: 3, failures: 1, last_run: '2020-01-01T00:00:00.000Z', last_outcome: 'failure' as const, last_note: 'n', created: '2019-01-01T00:00:00.000Z', updated: '2019-06-01T00:00:00.000Z' };
    expect(s.restore(A, p)).toBe(true);
    expect(s.all(A)).toEqual([expect.objectContaining({ ...p, name: 'deploy', success_rate: 0.75 })]);
    expect(s.restore(A, { ...p, steps: ['other'] })).toBe(false);
    expect(s.get(A, 'deploy')?.steps).toEqual(['x', 'y']);
    expect(s.deleteSince(U, new Date(since + 1).toISOString())).toBe(1);
    expect(s.all(U).map((x) => x.name)).toEqual(['old']);
    expect(s.clear(A)).toBe(1);
    expect(s.all(U)).toHaveLength(1);
  });
});
