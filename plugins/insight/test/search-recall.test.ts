import { afterEach, describe, expect, it } from 'vitest';
import { dump, ManualClock, start, storesOf, toolError, USER, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const search = async (args: Record<string, unknown>): Promise<any> => s.call('memory_search', args);
const recall = async (args: Record<string, unknown>): Promise<any> => s.call('memory_recall', args);
const BOOKKEEPING = ['facts', 'episodes', 'graph_nodes', 'recall_events', 'audit_log'];
const snapshot = () => BOOKKEEPING.map((t) => dump(s, t)).join('\n');

/** A fact, an episode, a wiki page and a graph node about deploys on the user layer; one fact for bob. */
async function seed(clock: ManualClock) {
  const st = storesOf(s);
  const old = st.facts.upsert(USER, { key: 'deploy:old', value: 'deploy deploy deploy pipeline notes', importance: 0.05 });
  clock.advance(60 * 24 * 3600_000);
  const fact = st.facts.upsert(USER, { key: 'deploy:day', value: 'The deploy pipeline runs on Fridays', importance: 1 });
  const ep = st.episodes.add(USER, { summary: 'The deploy pipeline failed on staging' });
  const page = st.wiki.save(USER, { title: 'Deploy pipeline', content: 'How the deploy pipeline works.', wiki_type: 'work_notes' });
  // Words of their own: a node whose whole text stands in a better hit is left out, as dream leaves it.
  const node = st.graph.addNode(USER, { content: 'deploy pipeline dashboard', node_type: 'concept' });
  st.facts.upsert({ layer: 'user', user_id: 'bob' }, { key: 'deploy', value: 'Bob deploy pipeline', importance: 1 });
  return { old, fact, ep, page, node };
}

describe('memory_search', () => {
  it('searches l3, l4, wiki and graph with explained scores, by strategy and sources, recording nothing', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const { old, fact, ep } = await seed(clock);
    const before = snapshot();
    const all = await search({ query: 'deploy pipeline' });
    expect(all).toMatchObject({ query: 'deploy pipeline', strategy: 'hybrid', sources: ['l3', 'l4', 'wiki', 'graph'] });
    expect(new Set(all.hits.map((h: any) => h.source))).toEqual(new Set(['l3', 'l4', 'wiki', 'graph']));
    expect(all.count).toBe(all.hits.length);
    for (const h of all.hits) {
      const e = h.explain;
      expect(Math.abs(e.bm25 + e.importance + e.recency + e.access - h.score)).toBeLessThan(1e-5);
      expect(e.fused).toBe(h.score);
    }
    expect(all.hits.map((h: any) => h.text)).not.toContain('deploy: Bob deploy pipeline');
    // keyword: text relevance alone puts the repetitive old note first; core puts the important fact first.
    const keyword = await search({ query: 'deploy', strategy: 'keyword', sources: ['l4'] });
    expect(keyword.hits.map((h: any) => h.id)).toEqual([old.entry_id, fact.entry_id]);
    expect(keyword.hits[0].explain).toMatchObject({ importance: 0, recency: 0, access: 0 });
    expect((await search({ query: 'deploy', strategy: 'core', sources: ['l4'] })).hits[0].id).toBe(fact.entry_id);
    expect((await search({ query: 'deploy', strategy: 'recent', sources: ['l4'] })).hits[0].id).toBe(fact.entry_id);
    // sources and limit.
    expect((await search({ query: 'deploy pipeline', sources: ['l3'] })).hits.map((h: any) => h.id)).toEqual([ep.id]);
    expect((await search({ query: 'deploy pipeline', sources: ['wiki', 'graph'] })).hits.map((h: any) => h.source).sort()).toEqual(['graph', 'wiki']);
    expect((await search({ query: 'deploy pipeline', limit: 2 })).hits).toHaveLength(2);
    // Isolation.
    expect((await search({ query: 'deploy', user_id: 'bob' })).hits.map((h: any) => h.text)).toEqual(['deploy: Bob deploy pipeline']);
    expect((await search({ query: 'deploy', layer: 'agent' })).hits).toEqual([]);
    // A read: no access counts, no recall_events, no audit rows.
    expect(snapshot()).toBe(before);
    expect(storesOf(s).pendingAccessRows).toBe(0);
  });

  it('names the field of a blank query, unknown strategy or source, or a limit out of range', async () => {
    s = await start();
    const field = async (args: Record<string, unknown>) => (await toolError(search({ query: 'x', ...args }))).field;
    expect(await field({ query: '   ' })).toBe('query');
    expect(await field({ query: '' })).toBe('query');
    expect(await field({ strategy: 'semantic' })).toBe('strategy');
    expect(await field({ sources: ['timeline'] })).toMatch(/^sources/);
    expect(await field({ sources: [] })).toBe('sources');
    expect(await field({ limit: 51 })).toBe('limit');
    expect(await field({ layer: 'team' })).toBe('layer');
  });
});

describe('memory_recall', () => {
  it('searches L3 and L4 only and caches the answer per scope, query and limit until the TTL passes', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const { fact, ep } = await seed(clock);
    const before = snapshot();
    const first = await recall({ query: 'deploy pipeline' });
    expect(first.cached).toBe(false);
    expect(new Set(first.hits.map((h: any) => h.source))).toEqual(new Set(['l3', 'l4']));
    expect(first.hits.map((h: any) => h.id)).toEqual(expect.arrayContaining([fact.entry_id, ep.id]));
    const second = await recall({ query: 'deploy pipeline' });
    expect(second).toMatchObject({ cached: true, computed_at: first.computed_at, expires_at: first.expires_at });
    expect(second.hits).toEqual(first.hits);
    expect((await recall({ query: 'deploy pipeline', limit: 1 })).cached).toBe(false);
    expect((await recall({ query: 'deploy pipeline', user_id: 'bob' })).cached).toBe(false);
    expect((await recall({ query: 'deploy pipeline', user_id: 'bob' })).hits.map((h: any) => h.text)).toEqual(['deploy: Bob deploy pipeline']);
    clock.advance(Date.parse(first.expires_at) - Date.parse(first.computed_at) - 1);
    expect((await recall({ query: 'deploy pipeline' })).cached).toBe(true);
    clock.advance(1);
    expect((await recall({ query: 'deploy pipeline' })).cached).toBe(false);
    // A read: no access counts, no recall_events.
    expect(snapshot()).toBe(before);
  });

  it('never answers stale after a write to the scope: think, forget, feedback; writes elsewhere keep the cache', async () => {
    s = await start({ expose: 'insight' });
    await s.call('think', { text: 'The release train leaves every Tuesday morning from the main branch.', layer: 'user' });
    const q = { query: 'release train' };
    expect((await recall(q)).cached).toBe(false);
    expect((await recall(q)).cached).toBe(true);
    // Writes to another user or layer leave it.
    await s.call('think', { text: 'The release train for bob leaves on Monday from the main branch.', layer: 'user', user_id: 'bob' });
    await s.call('evolve', { instruction: 'Mention the release train when asked.' });
    expect((await recall(q)).cached).toBe(true);
    // A write to the scope shows at once.
    const think: any = await s.call('think', { text: 'The release train was moved to Wednesday afternoons this quarter.', layer: 'user' });
    const newId = think.actions.find((a: any) => a.store === 'l3').id;
    const afterThink = await recall(q);
    expect(afterThink.cached).toBe(false);
    expect(afterThink.hits.map((h: any) => h.id)).toContain(newId);
    expect((await recall(q)).cached).toBe(true);
    // Feedback moves a fact's importance: the cached score would be stale.
    const f = storesOf(s).facts.upsert(USER, { key: 'release', value: 'release train owner is Ana', importance: 0.5 });
    const withFact = await recall(q);
    expect(withFact.hits.find((h: any) => h.id === f.entry_id).explain.signals.importance).toBe(0.5);
    await s.call('memory_quality', { action: 'feedback', entry_id: f.entry_id, useful: true });
    const afterFeedback = await recall(q);
    expect(afterFeedback.cached).toBe(false);
    expect(afterFeedback.hits.find((h: any) => h.id === f.entry_id).explain.signals.importance).toBe(0.55);
    // forget removes it from the next answer.
    await s.call('forget', { key: 'release' });
    const afterForget = await recall(q);
    expect(afterForget.cached).toBe(false);
    expect(afterForget.hits.map((h: any) => h.id)).not.toContain(f.entry_id);
  });

  it('names the field of a blank query or a limit out of 1..50', async () => {
    s = await start();
    expect((await toolError(recall({ query: ' \u200b ' }))).field).toBe('query');
    expect((await toolError(recall({ query: 'x', limit: 0 }))).field).toBe('limit');
    expect((await toolError(recall({ query: 'x', limit: 51 }))).field).toBe('limit');
    expect((await toolError(recall({}))).field).toBe('query');
  });
});
