import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestServer, tempDataDir } from '@memory-service/testing';
import { admin, ManualClock, primitives, start, storesOf, toolError, type TestServer } from './helpers.js';

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
    expect(r).toMatchObject({ action: 'run', saga: 'consolidate', status: 'completed', error: null, run_id: expect.stringMatching(/^saga_/) });
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
    expect((await toolError(s.call('memory_saga', { action: 'run' }))).field).toBe('saga');
    expect((await toolError(s.call('memory_saga', { action: 'undo', saga: 'backup' }))).field).toBe('action');
  });
});

describe('memory_saga action list', () => {
  it('lists the runs of the layer and user_id and the service-wide backups, newest first, with their steps; filters by saga, status, run_id', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const st = storesOf(s);
    seed(st);
    const mine = await s.call('memory_saga', { saga: 'consolidate' });
    clock.advance(1000);
    st.sagas.faults.add('consolidate:reindex');
    const bobs = await s.call('memory_saga', { saga: 'consolidate', user_id: 'bob' });
    clock.advance(1000);
    const backup = await s.call('memory_saga', { saga: 'backup', user_id: 'bob' });
    const list = await s.call('memory_saga', { action: 'list' });
    expect(list.action).toBe('list');
    expect(list.runs.map((r: any) => r.run_id)).toEqual([backup.run_id, mine.run_id]);
    expect(list.runs[1]).toMatchObject({ saga: 'consolidate', layer: 'user', user_id: 'default', status: 'completed', compensated_by: null, error: null });
    expect(list.runs[1].steps.map((x: any) => x.status)).toEqual(['done', 'done', 'done']);
    expect(list.runs[0]).toMatchObject({ saga: 'backup', layer: null, user_id: null });
    const bob = await s.call('memory_saga', { action: 'list', user_id: 'bob', status: 'rolled_back' });
    expect(bob.runs.map((r: any) => [r.run_id, r.compensated_by, r.error])).toEqual([[bobs.run_id, 'saga', 'injected fault in step reindex']]);
    expect((await s.call('memory_saga', { action: 'list', saga: 'backup', user_id: 'bob' })).runs.map((r: any) => r.run_id)).toEqual([backup.run_id]);
    expect((await s.call('memory_saga', { action: 'list', run_id: mine.run_id })).runs).toHaveLength(1);
    expect((await s.call('memory_saga', { action: 'list', limit: 1 })).runs).toHaveLength(1);
    // Another user's run is not visible from this scope, nor from the agent layer.
    expect((await toolError(s.call('memory_saga', { action: 'list', run_id: bobs.run_id }))).field).toBe('run_id');
    expect((await s.call('memory_saga', { action: 'list', layer: 'agent' })).runs.map((r: any) => r.saga)).toEqual(['backup']);
    expect((await toolError(s.call('memory_saga', { action: 'list', status: 'stuck' }))).field).toBe('status');
    expect((await toolError(s.call('memory_saga', { action: 'list', limit: 0 }))).field).toBe('limit');
    expect((await toolError(s.call('memory_saga', { action: 'list', limit: 101 }))).field).toBe('limit');
  });
});

describe('the saga watchdog', () => {
  it('after a restart, rolls back the run a dead process left midway: its facts go, and list shows it rolled_back by the watchdog', async () => {
    const dir = tempDataDir();
    try {
      s = await createTestServer({ plugins: [primitives, admin], expose: 'admin', dataDir: dir });
      const st = storesOf(s);
      // What a consolidate saga killed after its first step leaves: the fact, and the journal saying so.
      const fact = st.facts.upsert(USER, { key: 'episode:we-chose-postgres', value: 'We chose Postgres.', source: 'episode_promotion' });
      const db = s.kernel.storage.db;
      const at = new Date(Date.UTC(2026, 0, 1)).toISOString();
      const pid = spawnSync(process.execPath, ['-e', '']).pid;
      db.prepare(
        `INSERT INTO saga_runs (id, saga, layer, user_id, status, started, updated, heartbeat, owner, owner_pid, owner_host)
         VALUES ('saga_killed', 'consolidate', 'user', 'default', 'running', ?, ?, ?, 'killed-process', ?, ?)`,
      ).run(at, at, at, pid, os.hostname());
      db.prepare("INSERT INTO saga_steps (run_id, seq, name, status, result, updated) VALUES ('saga_killed', 0, 'consolidate', 'done', ?, ?)").run(
        JSON.stringify({ consolidated: [{ episode_id: 'ep_1', key: fact.key, entry_id: fact.entry_id, transition_id: 't_1' }], ts: at }),
        at,
      );
      await s.close();
      s = await createTestServer({ plugins: [primitives, admin], expose: 'admin', dataDir: dir });
      // The tools answer at once; the first check comes shortly after start.
      expect((await s.call('memory_saga', { action: 'list', run_id: 'saga_killed' })).runs[0].status).toBe('running');
      let run: any;
      for (let i = 0; i < 60; i++) {
        run = (await s.call('memory_saga', { action: 'list', run_id: 'saga_killed' })).runs[0];
        if (run.status !== 'running') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(run).toMatchObject({ status: 'rolled_back', compensated_by: 'watchdog', error: expect.stringContaining(`pid ${pid}`) });
      expect(run.steps).toEqual([{ step: 'consolidate', status: 'compensated', detail: { did: expect.any(Object), undone: { deleted_facts: [fact.key] } }, error: null }, { step: 'audit', status: 'not_run', detail: null, error: null }, { step: 'reindex', status: 'not_run', detail: null, error: null }]);
      expect(storesOf(s).facts.get(USER, fact.key)).toBeNull();
    } finally {
      await s.close();
      s = undefined as unknown as TestServer;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a saga past saga.timeout_seconds is stopped: its hung step is not waited for, the done steps are undone', async () => {
    const clock = new ManualClock();
    s = await createTestServer({ plugins: [primitives, admin], expose: 'admin', clock, config: { saga: { timeout_seconds: 5 } } });
    const st = storesOf(s);
    let release!: () => void;
    st.sagas.stalls.set('backup:verify', new Promise<void>((r) => (release = r)));
    const call = s.call('memory_saga', { saga: 'backup' });
    // Wait until the journal has the backup step done (verify now hangs).
    const backupDone = () => st.sagas.runs(USER)[0]?.steps[1]?.status === 'done';
    for (let i = 0; i < 200 && !backupDone(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(backupDone()).toBe(true);
    expect(st.backups.list()).toHaveLength(1);
    clock.advance(6000);
    await st.sagaWatchdog.check();
    const r = await call;
    expect(r).toMatchObject({ status: 'rolled_back', error: 'the saga ran past its timeout of 5 s' });
    expect(r.steps.map((x: any) => x.status)).toEqual(['compensated', 'compensated', 'failed', 'not_run']);
    expect(fs.readdirSync(st.backups.dir)).toEqual([]);
    // Released late, verify finds its file gone and fails: nothing more to undo, the run stays rolled back.
    release();
    await st.sagas.idle(1000);
    const run = (await s.call('memory_saga', { action: 'list', run_id: r.run_id })).runs[0];
    expect(run).toMatchObject({ status: 'rolled_back', compensated_by: 'watchdog' });
    expect(run.steps.map((x: any) => x.status)).toEqual(['compensated', 'compensated', 'failed', 'not_run']);
  });

  it('runs once the service is ready and stops when it closes', async () => {
    s = await start();
    const st = storesOf(s);
    expect(st.sagaWatchdog.started).toBe(true);
    await s.close();
    expect(st.sagaWatchdog.started).toBe(false);
    s = undefined as unknown as TestServer;
  });
});
