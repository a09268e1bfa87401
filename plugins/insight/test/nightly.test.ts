import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { definePlugin } from '@memory-service/kernel';
import { createTestServer } from '@memory-service/testing';
import { ManualClock, insight, primitives, start, storesOf, type TestServer } from './helpers.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const nightlyCheck = async (srv: TestServer) => (await srv.call('memory_diagnose', {})).checks.find((c: any) => c.name === 'nightly');

/** The scheduler's check, as its timer makes it shortly after ready and then hourly. */
const check = (srv: TestServer) => storesOf(srv).nightly.tick();

describe('the nightly run (seen through the insight tools)', () => {
  it('runs 24 h after the first start, not before: a dream_skill episode becomes a skill page, a reflection is listed, diagnose reports the run', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    expect(await check(s)).toBeNull();
    expect(await nightlyCheck(s)).toEqual({ name: 'nightly', status: 'ok', detail: 'no nightly run yet; next run due at 2026-01-02T00:00:00.000Z' });
    clock.advance(HOUR);
    const ep = storesOf(s).episodes.add({ layer: 'user', user_id: 'default' }, { summary: '# Release checklist\nTag, build, publish, announce.', tags: ['dream_skill'] });
    await s.call('think', { text: 'The release train leaves every second Thursday of the month.', layer: 'user' });
    await s.call('think', { text: 'Bob prefers the release notes in French.', layer: 'user', user_id: 'bob' });
    // Not yet due: nothing happens at start-up or within the first 24 h.
    clock.advance(DAY - 2 * HOUR);
    expect(await check(s)).toBeNull();
    expect((await s.call('memory_reflect', { action: 'list', layer: 'user' })).reflections).toEqual([]);
    clock.advance(HOUR);
    const run = await check(s);
    expect(run).toMatchObject({ id: 'night_1', status: 'ok', scopes: 2 });

    const hits = (await s.call('memory_search', { query: 'Release checklist publish announce', sources: ['wiki'], layer: 'user' })).hits;
    expect(hits[0]).toMatchObject({ source: 'wiki', text: expect.stringContaining(`promoted verbatim from episode ${ep.id}`) });
    const listed = (await s.call('memory_reflect', { action: 'list', layer: 'user' })).reflections;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ period_hours: 24, period_end: '2026-01-02T00:00:00.000Z', counts: { episodes: 2 } });
    const bobs = (await s.call('memory_reflect', { action: 'list', layer: 'user', user_id: 'bob' })).reflections;
    expect(bobs).toHaveLength(1);
    expect((await s.call('memory_search', { query: 'Release checklist', sources: ['wiki'], layer: 'user', user_id: 'bob' })).hits).toEqual([]);
    expect((await s.call('memory_reflect', { action: 'list', layer: 'agent' })).reflections).toEqual([]);
    expect(await nightlyCheck(s)).toEqual({
      name: 'nightly',
      status: 'ok',
      detail: 'last run night_1 started 2026-01-02T00:00:00.000Z, ended 2026-01-02T00:00:00.000Z: ok, 2 scope(s) visited; next run due at 2026-01-03T00:00:00.000Z',
    });

    // An idle day: the next run visits no scope and writes no reflection; nothing is promoted twice.
    clock.advance(DAY);
    expect(await check(s)).toMatchObject({ id: 'night_2', scopes: 0 });
    expect((await s.call('memory_reflect', { action: 'list', layer: 'user' })).reflections).toHaveLength(1);
    expect(storesOf(s).wiki.count({ layer: 'user', user_id: 'default' }, 'skill')).toBe(1);
  });

  it("a plugin's failing nightly tap is a failed phase named after it; diagnose warns, the built-in phases still ran", async () => {
    const clock = new ManualClock();
    const broken = definePlugin({
      name: 'night-broken',
      version: '1.0.0',
      tier: 'night_broken',
      kernel: '^1.0.0',
      setup(ctx) {
        ctx.hooks.nightly.tapPromise('night-broken', async () => {
          throw new Error('the night shift did not show up');
        });
      },
    });
    s = await createTestServer({ plugins: [primitives, insight, broken], expose: 'insight', clock });
    await check(s);
    clock.advance(HOUR);
    await s.call('think', { text: 'The garden hose leaks near the tap by the shed.', layer: 'user' });
    clock.advance(DAY);
    const run = await check(s);
    expect(run?.results[0]?.phases.map((p) => [p.phase, p.status])).toEqual([
      ['consolidation', 'ok'],
      ['dream_buffer', 'ok'],
      ['index_refresh', 'ok'],
      ['skill_promotion', 'ok'],
      ['reflection', 'ok'],
      ['night-broken', 'failed'],
    ]);
    const d = await s.call('memory_diagnose', {});
    expect(d.status).toBe('degraded');
    expect(d.checks.find((c: any) => c.name === 'nightly')).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('1 phase(s) failed (user/default night-broken: the night shift did not show up)'),
    });
    expect(d.breakers.find((b: any) => b.name === 'nightly')).toMatchObject({ state: 'closed', failures: 1 });
    expect((await s.call('memory_reflect', { action: 'list', layer: 'user' })).reflections).toHaveLength(1);
  });

  // Regression guard, fixed: a run whose process was killed mid-run stayed "in progress" (ok) until the next run began.
  it('diagnose warns about a run left running by a process that has stopped', async () => {
    s = await start();
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    const at = '2026-01-01T00:00:00.000Z';
    s.kernel.storage.db
      .prepare("INSERT INTO nightly_runs (trigger, started, since, status, owner_pid, owner_host) VALUES ('scheduled', ?, ?, 'running', ?, ?)")
      .run(at, at, gone, hostname());
    expect(await nightlyCheck(s)).toMatchObject({ status: 'warn', detail: expect.stringContaining('was interrupted (the process stopped mid-run)') });
  });

  it('nightly.interval_hours 0 turns the scheduler off', async () => {
    const clock = new ManualClock();
    s = await createTestServer({ plugins: [primitives, insight], expose: 'insight', clock, config: { nightly: { interval_hours: 0 } } });
    await s.call('think', { text: 'The plumber comes on Monday at nine in the morning.', layer: 'user' });
    clock.advance(10 * DAY);
    expect(await check(s)).toBeNull();
    expect(await nightlyCheck(s)).toMatchObject({ status: 'ok', detail: expect.stringContaining('the scheduler is off') });
  });
});
