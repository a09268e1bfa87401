import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RecallCache, RECALL_CACHE_TTL_MS, strategyOptions } from './memory-search.js';
import { A, U, U2, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

describe('RecallCache', () => {
  it('serves a repeated recall from the cache until the TTL passes', () => {
    env.stores.facts.upsert(U, { key: 'editor', value: 'Uses Vim daily', importance: 0.8 });
    const first = env.stores.recall.recall(U, 'vim');
    expect(first.cached).toBe(false);
    expect(first.hits.map((h) => h.source)).toEqual(['l4']);
    const again = env.stores.recall.recall(U, 'vim');
    expect(again).toMatchObject({ cached: true, computed_at: first.computed_at });
    expect(again.hits).toEqual(first.hits);
    // Keyed by limit and query too.
    expect(env.stores.recall.recall(U, 'vim', 3).cached).toBe(false);
    expect(env.stores.recall.recall(U, 'Vim').cached).toBe(false);
    env.clock.advance(RECALL_CACHE_TTL_MS - 1);
    expect(env.stores.recall.recall(U, 'vim').cached).toBe(true);
    env.clock.advance(1);
    expect(env.stores.recall.recall(U, 'vim').cached).toBe(false);
  });

  // Regression guard: the TTL is a window that ends at now, as the stores' other windows; an answer
  // computed after now (the clock stepped back since) would otherwise be served for the step plus the TTL.
  it('does not serve an answer computed after now (the clock stepped back), and caches the new one', () => {
    env.stores.facts.upsert(U, { key: 'editor', value: 'Uses Vim daily', importance: 0.8 });
    const first = env.stores.recall.recall(U, 'vim');
    env.clock.advance(-60 * 60_000);
    const after = env.stores.recall.recall(U, 'vim');
    expect(after.cached).toBe(false);
    expect(after.computed_at).toBe(new Date(env.clock.now()).toISOString());
    expect(after.computed_at < first.computed_at).toBe(true);
    expect(env.stores.recall.recall(U, 'vim')).toMatchObject({ cached: true, computed_at: after.computed_at });
  });

  it('drops the answer on any write to the scope (insert, update, importance, delete, another process), not on another scope', () => {
    const s = env.stores;
    const f = s.facts.upsert(U, { key: 'editor', value: 'Uses Vim daily', importance: 0.8 });
    const hits = () => s.recall.recall(U, 'vim daily');
    expect(hits().cached).toBe(false);
    // Writes elsewhere leave it cached.
    s.facts.upsert(U2, { key: 'editor', value: 'Uses Vim daily', importance: 0.8 });
    s.episodes.add(A, { summary: 'vim daily' });
    expect(hits().cached).toBe(true);
    // A new episode of the scope shows at once.
    const ep = s.episodes.add(U, { summary: 'Configured vim plugins daily' });
    const afterInsert = hits();
    expect(afterInsert.cached).toBe(false);
    expect(afterInsert.hits.map((h) => h.id)).toContain(ep.id);
    expect(hits().cached).toBe(true);
    // An importance change moves the score.
    s.facts.adjustImportance(f.entry_id, -0.5, 'agent_feedback');
    const afterImportance = hits();
    expect(afterImportance.cached).toBe(false);
    expect(afterImportance.hits.find((h) => h.id === f.entry_id)?.explain.signals.importance).toBe(0.3);
    // An update of the value.
    s.facts.upsert(U, { key: 'editor', value: 'Uses Emacs now', importance: 0.3 });
    expect(hits().hits.map((h) => h.id)).not.toContain(f.entry_id);
    // A delete, and a write by another connection on the same database.
    s.episodes.add(U, { summary: 'vim daily notes' });
    expect(hits().hits).toHaveLength(2);
    s.facts.delete(U, 'editor');
    expect(hits().cached).toBe(false);
    expect(hits().cached).toBe(true);
    const other = env.second().stores;
    other.episodes.add(U, { summary: 'vim daily from elsewhere' });
    const fromOther = hits();
    expect(fromOther.cached).toBe(false);
    expect(fromOther.hits).toHaveLength(3);
  });

  it('drops every answer cached before a restore, in this process and another, though the next write brings the count back', async () => {
    const s = env.stores;
    const other = env.second().stores;
    s.episodes.add(U, { summary: 'kiwi base episode' });
    const taken = await s.backups.create('manual');
    s.episodes.add(U, { summary: 'kiwi secret written after the backup' });
    const countAtRecall = s.recall.stamp(U);
    expect(s.recall.recall(U, 'kiwi').hits).toHaveLength(2);
    expect(other.recall.recall(U, 'kiwi').hits).toHaveLength(2);
    await s.backups.restore(taken.name);
    // One write after the restore: the scope's count is the one the answers were computed at.
    s.episodes.add(U, { summary: 'banana unrelated episode' });
    expect(s.recall.stamp(U).split('\u0000')[1]).toBe(countAtRecall.split('\u0000')[1]);
    const r = s.recall.recall(U, 'kiwi');
    expect(r.cached).toBe(false);
    expect(r.hits.map((h) => h.text)).toEqual(['kiwi base episode']);
    // The other process sees the new token too (its search answers from its own index).
    expect(other.recall.recall(U, 'kiwi').cached).toBe(false);
    // Each restore is a new token, a restore of the same backup again too.
    const before = s.recall.stamp(U);
    await s.backups.restore(taken.name);
    expect(s.recall.stamp(U)).not.toBe(before);
  });

  it('never keeps an answer computed inside a transaction, and evicts the least recently used beyond its size', () => {
    env.stores.facts.upsert(U, { key: 'editor', value: 'Uses Vim daily', importance: 0.8 });
    env.stores.transaction(() => {
      env.stores.facts.upsert(U, { key: 'shell', value: 'vim keys in zsh', importance: 0.8 });
      expect(env.stores.recall.recall(U, 'vim').hits).toHaveLength(2);
    });
    expect(env.stores.recall.recall(U, 'vim').cached).toBe(false);
    const small = new RecallCache(env.stores.ctx, env.stores.retrieval, 1000, 2);
    small.recall(U, 'a vim');
    small.recall(U, 'b vim');
    expect(small.recall(U, 'a vim').cached).toBe(true);
    small.recall(U, 'c vim');
    expect(small.size).toBe(2);
    expect(small.recall(U, 'a vim').cached).toBe(true);
    expect(small.recall(U, 'b vim').cached).toBe(false);
  });

  it('refuses a blank query or a limit out of 1..50, naming the field', () => {
    expect(() => env.stores.recall.recall(U, '  ')).toThrow(expect.objectContaining({ field: 'query' }));
    expect(() => env.stores.recall.recall(U, 'x', 51)).toThrow(expect.objectContaining({ field: 'limit' }));
    expect(() => env.stores.recall.recall(U, 'x', 0)).toThrow(expect.objectContaining({ field: 'limit' }));
  });
});

describe('RecallCache distinct hits', () => {
  // An episode whose text a fact holds whole (`key: text`), ranked below the fact: one memory, which
  // filled two of the limit's slots. (Ranked above the fact it stays: only a hit that stands inside a
  // better-ranked one is dropped, as dream drops it.)
  it('answers each memory once and fills its limit when a fact holds an episode of the same text', () => {
    for (let i = 1; i <= 6; i++) {
      const text = `Database setting number ${i} for the reporting cluster`;
      env.stores.facts.upsert(U, { key: `db.note${i}`, value: text, importance: 1 });
      env.stores.episodes.add(U, { summary: text, importance: 0.05 });
    }
    const hits = env.stores.recall.recall(U, 'database', 4).hits;
    expect(hits).toHaveLength(4);
    const settings = hits.map((h) => /number (\d+)/.exec(h.text)?.[1]);
    expect(new Set(settings).size, hits.map((h) => `${h.source} ${h.text}`).join(' | ')).toBe(4);
    // All six, once each, when more are asked for.
    expect(env.stores.recall.recall(U, 'database', 20).hits.map((h) => h.source)).toEqual(Array(6).fill('l4'));
  });
});

describe('strategyOptions', () => {
  it('maps each strategy to a weighting of the one retrieval ranking; keyword ranks by text relevance alone', () => {
    expect(strategyOptions('hybrid')).toEqual({ intent: 'balanced' });
    expect(strategyOptions('recent')).toEqual({ intent: 'recent' });
    expect(strategyOptions('core')).toEqual({ intent: 'core' });
    expect(() => strategyOptions('fuzzy' as never)).toThrow(expect.objectContaining({ field: 'strategy' }));
    const s = env.stores;
    s.facts.upsert(U, { key: 'a', value: 'deploy deploy deploy pipeline', importance: 0.05 });
    env.clock.advance(30 * 24 * 3600_000);
    s.facts.upsert(U, { key: 'b', value: 'deploy pipeline', importance: 1 });
    const keyword = s.retrieval.search(U, 'deploy', { limit: 2, ...strategyOptions('keyword') });
    expect(keyword.map((h) => h.title)).toEqual(['a', 'b']);
    expect(keyword[0].explain).toMatchObject({ importance: 0, recency: 0, access: 0, bm25: 1 });
    expect(s.retrieval.search(U, 'deploy', { limit: 2, ...strategyOptions('core') }).map((h) => h.title)).toEqual(['b', 'a']);
  });
});
