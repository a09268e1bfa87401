import insight from '@memory-service/plugin-insight';
import write from '@memory-service/plugin-write';
import { createTestServer } from '@memory-service/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { admin, ManualClock, primitives, toolError, type TestServer } from './helpers.js';

// Audit R findings 1, 2 and 8 through the MCP client: a window ends at now, import reads times as the query tools do.
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const MINUTE = 60_000;
const start = (opts: { clock?: ManualClock } = {}) =>
  createTestServer({ plugins: [primitives, admin, write, insight], expose: 'all', clock: opts.clock ?? new ManualClock() });
const keys = async () => ((await s.call('memory_query', {})).facts as { key: string }[]).map((f) => f.key).sort();

describe('time windows end at now', () => {
  it('forget recent and memory_lucidity_purge delete nothing written while the clock ran ahead', async () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 29, 1, 30));
    s = await start({ clock });
    await s.call('memory_remember', { key: 'written_before_step', value: 'written at 01:30 by the fast clock' });
    clock.set(Date.UTC(2026, 2, 29, 0, 30)); // an NTP correction: back by an hour
    await s.call('memory_remember', { key: 'written_after_step', value: 'written at 00:30 after correction' });
    clock.advance(5 * MINUTE);
    const f = await s.call('forget', { scope: 'recent', key: '*', minutes: 1 });
    expect(f.deleted_l4).toBe(0);
    expect(await keys()).toEqual(['written_after_step', 'written_before_step']);
    clock.set(Date.UTC(2026, 2, 29, 2, 0));
    await s.call('memory_episode_save', { summary: 'episode written while the clock ran ahead' });
    clock.set(Date.UTC(2026, 2, 29, 1, 0));
    const p = await s.call('memory_lucidity_purge', { hours: 0.01, confirm: true });
    expect(p).toMatchObject({ deleted_l3: 0, deleted_l4: 0 });
    expect(((await s.call('memory_query', { target: 'episodes' })).episodes as unknown[]).length).toBe(1);
    // A window that does hold them still deletes them.
    clock.set(Date.UTC(2026, 2, 29, 2, 0));
    const all = await s.call('forget', { scope: 'recent', key: '*', minutes: 120 });
    expect(all.deleted_l4).toBe(2);
  });

  it('forget recent leaves an imported fact dated in the future', async () => {
    s = await start();
    const doc = (await s.call('memory_data', { action: 'export' })).data;
    doc.facts = [
      { key: 'future', value: 'dated 2099', created: '2099-01-01T00:00:00Z', updated: '2099-01-01T00:00:00Z' },
      { key: 'past', value: 'dated 2020', created: '2020-01-01T00:00:00Z', updated: '2020-01-01T00:00:00Z' },
    ];
    await s.call('memory_data', { action: 'import', data: doc });
    const f = await s.call('forget', { scope: 'recent', key: '*', minutes: 1 });
    expect(f.deleted_l4).toBe(0);
    expect(await keys()).toEqual(['future', 'past']);
  });

  it('memory_remember and the auto-save write again over a remembered fact and an auto-saved episode imported with a future date', async () => {
    s = await start();
    const doc = (await s.call('memory_data', { action: 'export' })).data;
    const at = '2099-01-01T00:00:00.000Z';
    doc.facts = [{ key: 'editor', value: 'Helix', importance: 0.5, source: 'user_explicit', metadata: { origin: 'memory_remember' }, created: at, updated: at }];
    doc.episodes = [{ summary: 'My birthday is March 3', importance: 0.9, tags: ['auto_save', 'new_message'], meta: { origin: 'new_message' }, created: at }];
    await s.call('memory_data', { action: 'import', data: doc });
    const r = await s.call('memory_remember', { key: 'editor', value: 'Helix', importance: 0.9 });
    expect(r).toMatchObject({ deduplicated: false, importance: 0.9 });
    expect((await s.call('memory_query', {})).facts[0]).toMatchObject({ key: 'editor', updated: '2026-01-01T00:00:00.000Z' });
    const h = (await s.call('memory_hook', { event: 'new_message', payload: { text: 'My birthday is March 3' } })).results[primitives.name];
    expect(h.already_saved).toBeUndefined();
    expect(((await s.call('memory_query', { target: 'episodes' })).episodes as unknown[]).length).toBe(2);
  });

  it('a clock past 9999-12-31 stamps 9999-12-31T23:59:59.999Z, which forget recent still finds', async () => {
    const clock = new ManualClock(Date.UTC(9999, 11, 31, 23, 59));
    s = await start({ clock });
    await s.call('memory_remember', { key: 'before', value: 'written at 23:59' });
    clock.advance(2 * MINUTE); // 10000-01-01T00:01Z
    await s.call('memory_remember', { key: 'after', value: 'written past the year 9999' });
    const q = (await s.call('memory_query', {})).facts as { key: string; created: string }[];
    expect(q.map((x) => [x.key, x.created])).toEqual([
      ['after', '9999-12-31T23:59:59.999Z'],
      ['before', '9999-12-31T23:59:00.000Z'],
    ]);
    const f = await s.call('forget', { scope: 'recent', key: '*', minutes: 1 });
    expect(f.deleted_l4).toBe(1);
    expect(await keys()).toEqual(['before']);
  });
});

describe('memory_data import times', () => {
  it('refuses a time the query tools refuse, naming the record and field, and writes nothing', async () => {
    s = await start();
    const doc = (await s.call('memory_data', { action: 'export' })).data;
    for (const created of ['1', 'March 7, 2026', '2026-02-30', '2026-03-29T01:30:00', '+010000-01-01T00:00:00Z', '-000001-01-01T00:00:00Z', '9999-12-31T23:30:00-01:00']) {
      doc.facts = [
        { key: 'fine', value: 'ok', created: '2026-01-01T00:00:00Z' },
        { key: 'bad', value: 'x', created },
      ];
      const e = await toolError(s.call('memory_data', { action: 'import', data: doc }));
      expect(e.field, created).toBe('data.facts[1].created');
      expect(e.message, created).toContain('ISO 8601');
    }
    expect(await keys()).toEqual([]);
  });

  it('reads offsets, lower-case t and z and a space in UTC, whatever the server zone', async () => {
    s = await start();
    const doc = (await s.call('memory_data', { action: 'export' })).data;
    doc.facts = [{ key: 'k', value: 'v', created: '2026-03-29t01:30:00+02', updated: '2026-03-29 01:30:00z' }];
    await s.call('memory_data', { action: 'import', data: doc });
    expect((await s.call('memory_query', {})).facts).toMatchObject([{ key: 'k', created: '2026-03-28T23:30:00.000Z', updated: '2026-03-29T01:30:00.000Z' }]);
  });
});
