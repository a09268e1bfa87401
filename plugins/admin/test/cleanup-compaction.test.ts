import { seededRandom } from '@memory-service/kernel';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { start, storesOf, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  vi.restoreAllMocks();
  await s?.close();
});

const U = { layer: 'user', user_id: 'default' } as const;

describe('memory_cleanup compaction', () => {
  it('rebuilds an index its merges left stale while other calls are answered; its answer is whole and the index current after', async () => {
    s = await start({ expose: 'all' });
    const st = storesOf(s);
    const rand = seededRandom(11);
    const vocab = Array.from({ length: 400 }, (_, i) => `w${(i * 7919).toString(36)}x`);
    const text = () => Array.from({ length: 4 + Math.floor(rand() * 12) }, () => vocab[Math.floor(rand() * vocab.length)]).join(' ');
    // 1,500 summaries, each three times: compress_episodes removes two thirds of the episodes, so
    // the log calls for their index to be rebuilt from the table.
    const summaries = Array.from({ length: 1500 }, text);
    st.transaction(() => {
      for (let copy = 0; copy < 3; copy++) for (const summary of summaries) st.episodes.add(U, { summary });
    });
    await s.call('dream', { query: summaries[0] });
    // Another call made once compaction has begun (its first step clears the log's old texts).
    const order: string[] = [];
    let during: Promise<unknown> | null = null;
    const dropOldTexts = st.retrieval.dropOldTexts.bind(st.retrieval);
    vi.spyOn(st.retrieval, 'dropOldTexts').mockImplementation((after, upTo) => {
      during = s.call('wake_up', {}).then(() => order.push('wake_up'));
      return dropOldTexts(after, upTo);
    });
    const r = await s.call('memory_cleanup', { dry_run: false, tasks: ['compress_episodes', 'compaction'] }).finally(() => order.push('memory_cleanup'));
    await during;
    expect(order).toEqual(['wake_up', 'memory_cleanup']);
    expect(r).toMatchObject({ layer: 'user', user_id: 'default', dry_run: false, tasks: ['compress_episodes', 'compaction'] });
    expect(r.compress_episodes).toMatchObject({ groups: 1500, removed: 3000, archived: 3000 });
    expect(r.compaction).toMatchObject({ indexes_refreshed: true });
    expect(r.compaction.old_texts).toBeGreaterThanOrEqual(3000);
    // Current: nothing left to apply or rebuild, and the answers of an index built from the tables now.
    expect(st.retrieval.catchUp().left).toEqual([]);
    const queries = Array.from({ length: 10 }, (_, i) => summaries[i * 97]!.split(' ').slice(0, 3).join(' '));
    const answers = () => queries.map((q) => st.retrieval.search(U, q, { limit: 20, sources: ['l3'] }).map((h) => [h.id, h.score]));
    const here = answers();
    expect(here.flat().length).toBeGreaterThan(0);
    st.retrieval.reset();
    expect(answers()).toEqual(here);
  });
});
