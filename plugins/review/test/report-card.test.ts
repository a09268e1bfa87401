import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, start, storesOf, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const HOUR = 3600_000;
const U = { layer: 'user' as const, user_id: 'default' };

describe('memory_report_card', () => {
  it('is empty on a fresh scope, with the default 24 hour period', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const r = await s.call('memory_report_card', {});
    expect(r).toEqual({
      period_hours: 24,
      since: new Date(clock.now() - 24 * HOUR).toISOString(),
      proposals: { pending: 0, applied: 0, rejected: 0, reverted: 0 },
      last_decisions: [],
      auto_save: { dispatched: 0, saved_l3: 0, saved_l4: 0, saved_graph: 0 },
      open_gaps: { count: 0, items: [] },
      dream_markers: { in_period: 0, total: 0 },
      nightly: null,
    });
  });

  it("shows the last nightly run that visited the layer and user_id, with its phases there only", async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const st = storesOf(s);
    st.episodes.add(U, { summary: 'Deploys go out on Fridays after lunch.', importance: 0.9, tags: ['dream_skill'] });
    st.episodes.add({ layer: 'user', user_id: 'bob' }, { summary: 'Bob keeps notes.' });
    clock.advance(HOUR);
    await st.nightly.run();
    const r = await s.call('memory_report_card', {});
    expect(r.nightly).toMatchObject({ run_id: 'night_1', started: new Date(clock.now()).toISOString() });
    expect(r.nightly.phases.map((p: any) => [p.phase, p.status])).toEqual([
      ['consolidation', 'ok'],
      ['dream_buffer', 'ok'],
      ['index_refresh', 'ok'],
      ['skill_promotion', 'ok'],
      ['reflection', 'ok'],
    ]);
    expect(r.nightly.phases[0].counts).toEqual({ facts: 1 });
    expect(r.nightly.phases[3].counts).toEqual({ candidates: 1, promoted: 1, refused: 0 });
    expect((await s.call('memory_report_card', { layer: 'agent' })).nightly).toBeNull();
    expect((await s.call('memory_report_card', { user_id: 'bob' })).nightly.phases[0].counts).toEqual({ facts: 0 });
    // A later run that does not visit the scope leaves the card on the run that did.
    clock.advance(25 * HOUR);
    st.episodes.add({ layer: 'user', user_id: 'bob' }, { summary: 'Bob again.' });
    await st.nightly.run();
    expect((await s.call('memory_report_card', {})).nightly.run_id).toBe('night_1');
    expect((await s.call('memory_report_card', { user_id: 'bob' })).nightly.run_id).toBe('night_2');
  });

  it('counts proposals by status and lists the decisions of the period, newest first', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const P = (a: Record<string, unknown>) => s.call('memory_proposals', a);
    for (const k of ['a', 'b', 'c', 'd']) await P({ action: 'propose', kind: 'core_write', key: k, value: k });
    await P({ action: 'decide', proposal_id: 'prop_1', approve: true });
    clock.advance(30 * HOUR);
    await P({ action: 'decide', proposal_id: 'prop_2', approve: false });
    clock.advance(1000);
    await P({ action: 'decide', proposal_id: 'prop_3', approve: true });
    await P({ action: 'revert', proposal_id: 'prop_3' });
    const r = await s.call('memory_report_card', {});
    expect(r.proposals).toEqual({ pending: 1, applied: 1, rejected: 1, reverted: 1 });
    expect(r.last_decisions.map((d: any) => [d.proposal_id, d.status])).toEqual([
      ['prop_3', 'reverted'],
      ['prop_2', 'rejected'],
    ]);
    const wide = await s.call('memory_report_card', { period_hours: 48 });
    expect(wide.last_decisions).toHaveLength(3);
  });

  it('sums the auto-save dispatches of the period by tier', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const l4: boolean[] = [];
    const msg = async (text: string, event = 'new_message') => {
      const r = await s.call('memory_hook', { event, payload: { text } });
      l4.push(JSON.stringify(r).includes('"store":"l4"'));
    };
    await msg('ok');
    clock.advance(25 * HOUR);
    l4.length = 0;
    await msg('ok');
    await msg('Remember: the launch deadline is March 3, this is important and urgent');
    await msg('Important decision: we always use Postgres for billing, never change it', 'auto_save_candidate');
    // The same text again within minutes: dispatched, nothing saved.
    await msg('Important decision: we always use Postgres for billing, never change it', 'auto_save_candidate');
    const r = await s.call('memory_report_card', {});
    expect(r.auto_save.dispatched).toBe(4);
    expect(r.auto_save.saved_l3).toBe(2);
    expect(r.auto_save.saved_graph).toBe(2);
    expect(l4.slice(0, 3).filter(Boolean).length).toBeGreaterThan(0);
    expect(r.auto_save.saved_l4).toBe(l4.slice(0, 3).filter(Boolean).length);
    const other = await s.call('memory_report_card', { layer: 'agent' });
    expect(other.auto_save.dispatched).toBe(0);
  });

  it('lists open gaps (unanswered empty dreams) and counts dream markers', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const st = storesOf(s);
    st.episodes.add(U, { summary: 'Next session: ask how the interview went', tags: ['dream_marker'] });
    clock.advance(48 * HOUR);
    st.episodes.add(U, { summary: 'Next session: check the garden', tags: ['dream_marker'] });
    await s.call('dream', { query: 'violin lessons' });
    clock.advance(1000);
    await s.call('dream', { query: 'garden' });
    await s.call('dream', { query: 'sailing trip' });
    clock.advance(1000);
    await s.call('think', { text: 'We planned a sailing trip to the islands for July with the whole family.' });
    await s.call('dream', { query: 'sailing trip' });
    st.writeDeferred();
    const r = await s.call('memory_report_card', {});
    expect(r.open_gaps.count).toBe(1);
    expect(r.open_gaps.items[0]).toMatchObject({ query: 'violin lessons', misses: 1 });
    expect(r.dream_markers).toEqual({ in_period: 1, total: 2 });
    expect((await s.call('memory_report_card', { user_id: 'bob' })).open_gaps.count).toBe(0);
  });

  it('a dream that finds a query asked before in another form (NFD, case, accents) closes its open gap', async () => {
    s = await start();
    await s.call('dream', { query: 'CAFE\u0301 Z\u00dcRICH hours' });
    await s.call('dream', { query: 'Fl\u00fcgelhorn  LESSONS' });
    await s.call('think', { text: 'The caf\u00e9 in Z\u00fcrich opens at seven, the hours are posted on the door by the tram stop.' });
    expect((await s.call('dream', { query: 'caf\u00e9 z\u00fcrich hours' })).result_count).toBeGreaterThan(0);
    await s.call('dream', { query: 'flu\u0308gelhorn lessons' });
    const r = await s.call('memory_report_card', {});
    expect(r.open_gaps).toEqual({ count: 1, items: [expect.objectContaining({ query: 'flu\u0308gelhorn lessons', misses: 2 })] });
  });

  it('counts nothing dated after now in the period (the clock stepped back)', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const st = storesOf(s);
    const now = clock.now();
    clock.set(Date.UTC(2099, 0, 1));
    st.episodes.add(U, { summary: 'Next session: ask how the interview went', tags: ['dream_marker'] });
    await s.call('dream', { query: 'violin lessons' });
    st.writeDeferred();
    clock.set(now);
    const r = await s.call('memory_report_card', {});
    expect(r.open_gaps.count).toBe(0);
    expect(r.dream_markers).toEqual({ in_period: 0, total: 1 });
  });

  it('refuses a period out of bounds, naming period_hours', async () => {
    s = await start();
    expect((await toolError(s.call('memory_report_card', { period_hours: 0 }))).field).toBe('period_hours');
    expect((await toolError(s.call('memory_report_card', { period_hours: 1.5 }))).field).toBe('period_hours');
    expect((await toolError(s.call('memory_report_card', { period_hours: 9000 }))).field).toBe('period_hours');
  });

  it('counts the open gap of a dream answered a moment ago, whose telemetry is still queued', async () => {
    s = await start();
    await s.call('dream', { query: 'where does the zanzibar quokka live' });
    const r = await s.call('memory_report_card', {});
    expect(r.open_gaps).toMatchObject({ count: 1, items: [expect.objectContaining({ query: 'where does the zanzibar quokka live', misses: 1 })] });
  });

  it('records nothing', async () => {
    s = await start();
    const before = storesOf(s).ctx.db.prepare('SELECT COUNT(*) FROM audit_log').pluck().get();
    await s.call('memory_report_card', {});
    storesOf(s).writeDeferred();
    expect(storesOf(s).ctx.db.prepare('SELECT COUNT(*) FROM audit_log').pluck().get()).toBe(before);
    expect(storesOf(s).recallEvents.count(U)).toBe(0);
  });
});
