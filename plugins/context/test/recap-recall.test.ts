import { afterEach, describe, expect, it } from 'vitest';
import type { Stores } from '@memory-service/stores';
import { ManualClock, start, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const U = { layer: 'user' as const, user_id: 'default' };
const storesOf = (srv: TestServer) => srv.kernel.container.resolve<Stores>('stores');
const kinds = (r: any) => r.blocks.map((b: any) => b.kind);
const ids = (r: any, kind: string) => r.blocks.find((b: any) => b.kind === kind)?.items.map((i: any) => i.id) ?? [];
const allIds = (r: any) => r.blocks.flatMap((b: any) => b.items.map((i: any) => `${i.source}:${i.id}`));

/** A day of memory: a closed session yesterday, markers, notes, a gap, a pending proposal, today's writes. */
async function seed(srv: TestServer, clock: ManualClock): Promise<void> {
  const st = storesOf(srv);
  await srv.call('memory_hook', { event: 'session_started', payload: {} });
  await srv.call('memory_hook', { event: 'session_ended', payload: { summary: 'Refactored the billing importer', topics: ['billing', 'importer'], state_deltas: { tests: 'green' } } });
  st.episodes.add(U, { summary: 'Next session: benchmark the importer on the big file', tags: ['dream_marker'] });
  st.scratchpad.write(U, 'todo', 'wire the retry queue');
  st.proposals.propose(U, { kind: 'core_write', key: 'importer.batch', value: '500 rows' });
  st.recallEvents.record(U, { query: 'vendor contract terms', intent: 'balanced', result_count: 0, ms: 1 });
  clock.advance(24 * 3600_000);
  await srv.call('think', { text: 'The importer now streams rows instead of loading the whole file into memory at once.' });
}

describe('memory_recap', () => {
  it('gives last session, pending work, dream markers and the day digest, in that order', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    await seed(s, clock);
    const r = await s.call('memory_recap', {});
    expect(kinds(r)).toEqual(['session', 'pending', 'markers', 'day']);
    expect(r.text).toContain('Refactored the billing importer');
    expect(r.text).toContain('topics: billing, importer');
    expect(r.text).toContain('state deltas: {"tests":"green"}');
    expect(r.text).toContain('wire the retry queue');
    expect(r.text).toContain('vendor contract terms');
    expect(r.text).toContain('importer.batch');
    expect(r.text).toContain('benchmark the importer');
    expect(r.text).toContain('streams rows');
    expect(r.budget).toBe(2000);
    expect(r.truncated).toBe(false);
    expect(r.estimated_tokens).toBeLessThanOrEqual(2000);
  });

  it("shows a consolidated dream marker once: the day digest's episode: fact of it is the same memory", async () => {
    s = await start();
    const st = storesOf(s);
    const marker = st.episodes.add(U, { summary: 'Next session: benchmark the importer on the big file', tags: ['dream_marker'], importance: 0.9 });
    const other = st.episodes.add(U, { summary: 'The importer retries failed batches three times', importance: 0.2 });
    const r0 = await s.call('memory_context_inject', {});
    const promoted = r0.consolidated.find((c: any) => c.episode_id === marker.id);
    expect(promoted.key).toMatch(/^episode:/);
    const r = await s.call('memory_recap', {});
    expect(ids(r, 'markers')).toEqual([marker.id]);
    expect(ids(r, 'day')).toEqual([other.id]);
    expect(r.text.split('benchmark the importer')).toHaveLength(2);
  });

  it('lists as pending the gap of a dream answered a moment ago, whose telemetry is still queued', async () => {
    s = await start();
    await s.call('dream', { query: 'where does the zanzibar quokka live' });
    const r = await s.call('memory_recap', {});
    expect(r.blocks.find((b: any) => b.kind === 'pending')?.text).toContain('where does the zanzibar quokka live');
  });

  it('leaves out empty blocks and keeps scopes apart', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    await seed(s, clock);
    const other = await s.call('memory_recap', { user_id: 'bob' });
    expect(other.blocks).toEqual([]);
    expect(other.text).toBe('');
    expect((await s.call('memory_recap', { layer: 'agent' })).text).not.toContain('billing');
  });

  it('cuts to the budget in block order', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    await seed(s, clock);
    for (let i = 0; i < 10; i++) storesOf(s).scratchpad.write(U, `note${i}`, `a long working note number ${i} `.repeat(8));
    const r = await s.call('memory_recap', { budget: 100 });
    expect(r.truncated).toBe(true);
    expect(r.estimated_tokens).toBeLessThanOrEqual(100);
    expect(Math.ceil(r.text.length / 4)).toBeLessThanOrEqual(100);
    expect(kinds(r)[0]).toBe('session');
    expect(kinds(r)).not.toContain('day');
  });

  it('refuses a budget out of bounds, naming it', async () => {
    s = await start();
    expect((await toolError(s.call('memory_recap', { budget: 50 }))).field).toBe('budget');
    expect((await toolError(s.call('memory_recap', { budget: 40_000 }))).field).toBe('budget');
    expect((await toolError(s.call('memory_recap', { layer: 'team' }))).field).toBe('layer');
  });

  it('is read-only', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    await seed(s, clock);
    const db = storesOf(s).ctx.db;
    const before = db.prepare('SELECT COUNT(*) FROM audit_log').pluck().get();
    await s.call('memory_recap', {});
    storesOf(s).writeDeferred();
    expect(db.prepare('SELECT COUNT(*) FROM audit_log').pluck().get()).toBe(before);
  });
});

describe('memory_recall_protocol', () => {
  it('an empty query runs only the markers and day axes', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    await seed(s, clock);
    const r = await s.call('memory_recall_protocol', {});
    expect(r.axes).toEqual(['markers', 'day']);
    expect(kinds(r)).toEqual(['markers', 'day']);
    expect(r.text).not.toContain('Refactored the billing importer');
    expect(r.budget).toBe(2000);
  });

  it('a query runs all five axes in order, each record once', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    await seed(s, clock);
    // Stored without a neighbouring context (think would index the previous thought with each).
    storesOf(s).episodes.add(U, { summary: 'Lunch was a sandwich in the park near the office fountain today.' });
    storesOf(s).episodes.add(U, { summary: 'The importer retries failed batches three times with a backoff before giving up.' });
    const r = await s.call('memory_recall_protocol', { query: 'importer batches' });
    expect(r.axes).toEqual(['markers', 'session', 'semantic', 'expand', 'day']);
    expect(kinds(r)).toEqual(['markers', 'session', 'semantic', 'expand', 'day']);
    expect(r.text).toContain('retries failed batches');
    expect(r.text).toContain('Refactored the billing importer');
    // The sandwich is not a hit, but the episode next to one: expand brings it.
    expect(r.blocks.find((b: any) => b.kind === 'semantic').text).not.toContain('sandwich');
    expect(r.blocks.find((b: any) => b.kind === 'expand').text).toContain('sandwich');
    const all = allIds(r);
    expect(new Set(all).size).toBe(all.length);
  });

  it('expands a promoted fact to its source episode once the fact says more than it; while it holds it whole, the episode is the same memory, shown once', async () => {
    s = await start();
    const st = storesOf(s);
    const ep = st.episodes.add(U, { summary: 'Quarterly taxes are filed by the accountant Maria', importance: 0.9 });
    const r0 = await s.call('memory_context_inject', {});
    expect(r0.consolidated[0].transition_id).toMatch(/^tr_\d+$/);
    const fact = st.facts.getByEntryId(r0.consolidated[0].entry_id)!;
    const same = await s.call('memory_recall_protocol', { query: 'quarterly taxes accountant' });
    expect(ids(same, 'semantic')).toContain(fact.entry_id);
    expect([...ids(same, 'semantic'), ...ids(same, 'expand'), ...ids(same, 'day')]).not.toContain(ep.id);
    // The fact rewritten (its source kept): the episode now says something the fact does not.
    st.facts.upsert(U, { key: fact.key, value: 'Quarterly taxes go to the accountant Jonas from April', importance: 0.9, metadata: fact.metadata });
    const r = await s.call('memory_recall_protocol', { query: 'quarterly taxes accountant' });
    expect([...ids(r, 'semantic'), ...ids(r, 'expand')]).toEqual(expect.arrayContaining([ep.id, fact.entry_id]));
  });

  it('expands a wiki hit to its linked pages and a graph hit to its neighbours', async () => {
    s = await start();
    const st = storesOf(s);
    st.wiki.save(U, { title: 'Kayak route', content: 'Paddle the northern kayak route along the fjord.', wiki_type: 'work_notes' });
    st.wiki.save(U, { title: 'Packing list', content: 'Dry bags, spare paddle, thermos.', wiki_type: 'work_notes' });
    st.wiki.link(U, 'Packing list', 'Kayak route', 'follows');
    const a = st.graph.addNode(U, { content: 'Glacier hike', node_type: 'memory' });
    const b = st.graph.addNode(U, { content: 'Ice axe rental shop', node_type: 'memory' });
    st.graph.addEdge(U, { from: a.node_id, to: b.node_id, relation: 'relates_to' });
    const r = await s.call('memory_recall_protocol', { query: 'kayak route glacier hike' });
    const expand = r.blocks.find((b: any) => b.kind === 'expand');
    expect(expand.text).toContain('Packing list (follows)');
    expect(expand.items).toEqual(expect.arrayContaining([{ source: 'graph', id: b.node_id }]));
    expect(ids(r, 'semantic')).not.toContain(b.node_id);
  });

  it('puts triggered disclosure rules first with score 0.95', async () => {
    s = await start();
    storesOf(s).disclosure.add(U, { name: 'allergy', trigger_keywords: ['dinner', 'restaurant'], content: 'Allergic to peanuts' });
    storesOf(s).disclosure.add(U, { name: 'off', trigger_keywords: ['dinner'], content: 'disabled rule text' });
    storesOf(s).disclosure.setEnabled(U, 'disc_2', false);
    const r = await s.call('memory_recall_protocol', { query: 'book a DINNER' });
    expect(r.blocks[0]).toMatchObject({ kind: 'triggered', score: 0.95, items: [{ source: 'rule', id: 'disc_1' }] });
    expect(r.text).toContain('Allergic to peanuts');
    expect(r.text).not.toContain('disabled rule text');
    expect(kinds(await s.call('memory_recall_protocol', { query: 'cinema' }))).not.toContain('triggered');
    expect(kinds(await s.call('memory_recall_protocol', { query: 'dinner', user_id: 'bob' }))).not.toContain('triggered');
  });

  it('cuts to the budget', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    await seed(s, clock);
    for (let i = 0; i < 8; i++) storesOf(s).episodes.add(U, { summary: `Marker ${i}: ${'remember the importer details '.repeat(6)}`, tags: ['dream_marker'] });
    const r = await s.call('memory_recall_protocol', { query: 'importer', budget: 120 });
    expect(r.truncated).toBe(true);
    expect(r.estimated_tokens).toBeLessThanOrEqual(120);
    expect(kinds(r)).toEqual(['markers']);
    expect(r.blocks[0].truncated).toBe(true);
  });

  it('is read-only: no recall_events row, no access count', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    await seed(s, clock);
    const st = storesOf(s);
    const events = st.recallEvents.count(U);
    await s.call('memory_recall_protocol', { query: 'importer streams rows' });
    st.writeDeferred();
    expect(st.recallEvents.count(U)).toBe(events);
    const touched = st.ctx.db.prepare('SELECT COALESCE(SUM(access_count), 0) FROM episodes').pluck().get();
    expect(touched).toBe(0);
    expect(st.ctx.db.prepare('SELECT COALESCE(SUM(access_count), 0) FROM facts').pluck().get()).toBe(0);
  });

  it('refuses bad input, naming the field', async () => {
    s = await start();
    expect((await toolError(s.call('memory_recall_protocol', { budget: 99 }))).field).toBe('budget');
    expect((await toolError(s.call('memory_recall_protocol', { query: 'x'.repeat(4001) }))).field).toBe('query');
    expect((await toolError(s.call('memory_recall_protocol', { user_id: '' }))).field).toBe('user_id');
  });
});
