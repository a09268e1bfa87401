import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { start, storesOf, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const USER = { layer: 'user' as const, user_id: 'default' };
const BOB = { layer: 'user' as const, user_id: 'bob' };

function seed(st: ReturnType<typeof storesOf>) {
  st.episodes.add(USER, { summary: 'We chose Postgres for the billing service after the load test.', importance: 0.9 });
  st.episodes.add(BOB, { summary: 'Bob moved to Lisbon last spring with his family.', importance: 0.9 });
}

describe('memory_saga', () => {
  it('consolidate completes: every step done, facts written on the given layer and user_id only', async () => {
    s = await start();
    const st = storesOf(s);
    seed(st);
    const r = await s.call('memory_saga', { saga: 'consolidate' });
    expect(r).toMatchObject({ saga: 'consolidate', status: 'completed', error: null });
    expect(r.steps.map((x: any) => [x.step, x.status])).toEqual([['consolidate', 'done'], ['audit', 'done'], ['reindex', 'done']]);
    expect(r.steps[0].detail.consolidated).toHaveLength(1);
    expect(st.facts.count(USER)).toBe(1);
    expect(st.facts.count(BOB)).toBe(0);
  });

  it('consolidate rolls back automatically when a later step fails: the facts it wrote are gone', async () => {
    s = await start();
    const st = storesOf(s);
    seed(st);
    st.sagas.faults.add('consolidate:audit');
    const r = await s.call('memory_saga', { saga: 'consolidate', user_id: 'bob' });
    expect(r).toMatchObject({ status: 'rolled_back', error: 'injected fault in step audit' });
    expect(r.steps.map((x: any) => x.status)).toEqual(['compensated', 'failed', 'not_run']);
    expect(r.steps[0].detail.undone.deleted_facts).toHaveLength(1);
    expect(st.facts.count(BOB)).toBe(0);
    expect(st.episodes.count(BOB)).toBe(1);
  });

  it('backup completes with a verified saga- file, and a failure after the copy removes it', async () => {
    s = await start();
    const st = storesOf(s);
    const ok = await s.call('memory_saga', { saga: 'backup' });
    expect(ok.status).toBe('completed');
    expect(ok.steps.map((x: any) => x.step)).toEqual(['flush', 'backup', 'verify', 'audit']);
    const name = ok.steps[1].detail.name;
    expect(name).toMatch(/^saga-/);
    st.sagas.faults.add('backup:verify');
    const bad = await s.call('memory_saga', { saga: 'backup' });
    expect(bad.status).toBe('rolled_back');
    expect(bad.steps.map((x: any) => x.status)).toEqual(['compensated', 'compensated', 'failed', 'not_run']);
    expect(bad.steps[1].detail.undone.removed).toMatch(/^saga-/);
    expect(fs.readdirSync(st.backups.dir)).toEqual([name]);
  });

  it('names saga when it is missing or unknown, and layer when bad', async () => {
    s = await start();
    expect((await toolError(s.call('memory_saga', {}))).field).toBe('saga');
    expect((await toolError(s.call('memory_saga', { saga: 'vacuum' }))).field).toBe('saga');
    expect((await toolError(s.call('memory_saga', { saga: 'backup', layer: 'team' }))).field).toBe('layer');
  });
});
