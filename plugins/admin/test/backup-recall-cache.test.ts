import insight from '@memory-service/plugin-insight';
import write from '@memory-service/plugin-write';
import { createTestServer } from '@memory-service/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { admin, ManualClock, primitives, type TestServer } from './helpers.js';

/** memory_recall's cache (insight tier) across a memory_backup restore and a memory_data replace. */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const start = () => createTestServer({ plugins: [primitives, write, insight, admin], expose: 'all', clock: new ManualClock() });
const texts = (r: any) => r.hits.map((h: any) => h.text);

describe('memory_recall and a restore', () => {
  it('never answers from the cache with records the restore took away, though one write brings the count back', async () => {
    s = await start();
    await s.call('memory_episode_save', { summary: 'kiwi base episode' });
    const taken = await s.call('memory_backup', { action: 'now' });
    await s.call('memory_episode_save', { summary: 'kiwi SECRET episode written after the backup' });
    expect(texts(await s.call('memory_recall', { query: 'kiwi' }))).toHaveLength(2);
    await s.call('memory_backup', { action: 'restore', name: taken.backup.name });
    await s.call('memory_episode_save', { summary: 'banana unrelated episode' });
    const r = await s.call('memory_recall', { query: 'kiwi' });
    expect(r.cached).toBe(false);
    expect(texts(r)).toEqual(['kiwi base episode']);
    expect((await s.call('memory_recall', { query: 'kiwi' })).cached).toBe(true);
  });

  it('never answers from the cache with what a memory_data replace cleared', async () => {
    s = await start();
    await s.call('memory_episode_save', { summary: 'kiwi orchard notes', user_id: 'source' });
    const doc = (await s.call('memory_data', { action: 'export', user_id: 'source' })).data;
    await s.call('memory_episode_save', { summary: 'kiwi old memory to be replaced' });
    expect(texts(await s.call('memory_recall', { query: 'kiwi' }))).toEqual(['kiwi old memory to be replaced']);
    await s.call('memory_data', { action: 'import', data: doc, mode: 'replace' });
    const r = await s.call('memory_recall', { query: 'kiwi' });
    expect(r.cached).toBe(false);
    expect(texts(r)).toEqual(['kiwi orchard notes']);
  });
});
