import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, start, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const A = { layer: 'agent' as const };

describe('memory_procedure', () => {
  it('saves, gets, records runs, updates keeping counts, lists and deletes', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const saved = await s.call('memory_procedure', { action: 'save', name: 'Deploy App', steps: ['build', 'run tests', 'ship'], trigger: 'a release is tagged' });
    expect(saved).toMatchObject({
      action: 'save',
      created_new: true,
      procedure: { name: 'deploy-app', steps: ['build', 'run tests', 'ship'], step_count: 3, trigger: 'a release is tagged', successes: 0, failures: 0, success_rate: null, last_run: null },
    });
    clock.advance(5000);
    await s.call('memory_procedure', { action: 'record', name: 'deploy-app', outcome: 'success' });
    await s.call('memory_procedure', { action: 'record', name: 'deploy-app', outcome: 'success' });
    const rec = await s.call('memory_procedure', { action: 'record', name: 'Deploy App', outcome: 'failure', note: 'registry down' });
    expect(rec.procedure).toMatchObject({ successes: 2, failures: 1, success_rate: 0.6667, last_outcome: 'failure', last_note: 'registry down' });
    expect(new Date(rec.procedure.last_run).getTime() - new Date(saved.procedure.created).getTime()).toBe(5000);
    const upd = await s.call('memory_procedure', { action: 'save', name: 'deploy-app', steps: ['build', 'ship'], description: 'How we ship' });
    expect(upd).toMatchObject({ created_new: false, procedure: { steps: ['build', 'ship'], trigger: 'a release is tagged', description: 'How we ship', successes: 2, failures: 1 } });
    expect((await s.call('memory_procedure', { action: 'get', name: 'deploy-app' })).procedure.steps).toEqual(['build', 'ship']);
    await s.call('memory_procedure', { action: 'save', name: 'alpha', steps: ['one'] });
    const list = await s.call('memory_procedure', { action: 'list', limit: 1 });
    expect(list).toMatchObject({ total: 2, next_offset: 1 });
    expect(list.procedures.map((p: any) => p.name)).toEqual(['alpha']);
    expect(list.procedures[0]).not.toHaveProperty('steps');
    expect((await s.call('memory_procedure', { action: 'list', offset: 1 })).procedures.map((p: any) => p.name)).toEqual(['deploy-app']);
    expect((await s.call('memory_procedure', { action: 'delete', name: 'alpha' })).procedure.name).toBe('alpha');
    expect((await toolError(s.call('memory_procedure', { action: 'get', name: 'alpha' }))).field).toBe('name');
  });

  it('names the field of every bad input', async () => {
    s = await start();
    expect((await toolError(s.call('memory_procedure', { action: 'save', steps: ['a'] }))).field).toBe('name');
    expect((await toolError(s.call('memory_procedure', { action: 'save', name: 'p' }))).field).toBe('steps');
    expect((await toolError(s.call('memory_procedure', { action: 'save', name: 'p', steps: [] }))).field).toBe('steps');
    expect((await toolError(s.call('memory_procedure', { action: 'save', name: 'p', steps: Array(51).fill('s') }))).field).toBe('steps');
    expect((await toolError(s.call('memory_procedure', { action: 'save', name: 'p', steps: ['ok', '  '] }))).field).toBe('steps.1');
    expect((await toolError(s.call('memory_procedure', { action: 'save', name: '%%%', steps: ['a'] }))).field).toBe('name');
    await s.call('memory_procedure', { action: 'save', name: 'p', steps: ['a'] });
    expect((await toolError(s.call('memory_procedure', { action: 'record', name: 'p' }))).field).toBe('outcome');
    const bad = await toolError(s.call('memory_procedure', { action: 'record', name: 'p', outcome: 'maybe' }));
    expect(bad).toMatchObject({ field: 'outcome', accepted: ['success', 'failure'] });
    expect((await toolError(s.call('memory_procedure', { action: 'record', name: 'q', outcome: 'success' }))).field).toBe('name');
    expect((await toolError(s.call('memory_procedure', { action: 'list', limit: 201 }))).field).toBe('limit');
    expect((await s.call('memory_procedure', { action: 'get', name: 'p' })).procedure.successes).toBe(0);
  });

  it('keeps names in every script apart: "Борщ 2" and "Пельмени 2" are two procedures, "Приготовить борщ" is a name', async () => {
    s = await start();
    const a = await s.call('memory_procedure', { action: 'save', name: 'Борщ 2', steps: ['варить свёклу', 'добавить капусту'] });
    const b = await s.call('memory_procedure', { action: 'save', name: 'Пельмени 2', steps: ['лепить пельмени'] });
    expect([a.procedure.name, a.created_new, b.procedure.name, b.created_new]).toEqual(['борщ-2', true, 'пельмени-2', true]);
    expect((await s.call('memory_procedure', { action: 'get', name: 'БОРЩ 2' })).procedure.steps).toEqual(['варить свёклу', 'добавить капусту']);
    expect((await s.call('memory_procedure', { action: 'save', name: 'Приготовить борщ', steps: ['x'] })).procedure.name).toBe('приготовить-борщ');
    await s.call('memory_procedure', { action: 'save', name: '東京 v2', steps: ['東京へ行く'] });
    await s.call('memory_procedure', { action: 'save', name: '大阪 v2', steps: ['大阪へ行く'] });
    expect((await s.call('memory_procedure', { action: 'get', name: '東京 v2' })).procedure.steps).toEqual(['東京へ行く']);
    expect((await s.call('memory_procedure', { action: 'list' })).total).toBe(5);
    // An ASCII name keeps the form it was always stored in.
    expect((await s.call('memory_procedure', { action: 'save', name: 'Café Plan B', steps: ['y'] })).procedure.name).toBe('cafe-plan-b');
  });

  it('keeps layers and user_ids apart', async () => {
    s = await start();
    await s.call('memory_procedure', { action: 'save', name: 'p', steps: ['user way'] });
    await s.call('memory_procedure', { action: 'save', name: 'p', steps: ['agent way'], ...A });
    expect((await s.call('memory_procedure', { action: 'get', name: 'p' })).procedure.steps).toEqual(['user way']);
    expect((await s.call('memory_procedure', { action: 'get', name: 'p', ...A })).procedure.steps).toEqual(['agent way']);
    expect((await toolError(s.call('memory_procedure', { action: 'get', name: 'p', user_id: 'bob' }))).field).toBe('name');
    await s.call('memory_procedure', { action: 'record', name: 'p', outcome: 'failure', ...A });
    expect((await s.call('memory_procedure', { action: 'get', name: 'p' })).procedure.failures).toBe(0);
    await s.call('memory_procedure', { action: 'delete', name: 'p', ...A });
    expect((await s.call('memory_procedure', { action: 'list' })).total).toBe(1);
  });
});
