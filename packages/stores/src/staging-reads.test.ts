import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DREAM_MARKER_TAG } from './episodes.js';
import { A, U, makeEnv, type Env } from './test-helpers.js';

/** The reads behind memory_report_card, memory_recap and memory_recall_protocol: open gaps, dream markers, day digest, auto-save sums. */
let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

const iso = () => new Date(env.clock.now()).toISOString();

describe('RecallEventStore.openGaps', () => {
  it('lists distinct empty queries of the period that no later call answered', () => {
    const since = iso();
    const rec = (query: string, n: number) => {
      env.stores.recallEvents.record(U, { query, intent: 'balanced', result_count: n, ms: 1 });
      env.clock.advance(1000);
    };
    rec('sister birthday', 0);
    rec('Sister  Birthday ', 0);
    rec('tax deadline', 0);
    rec('tax deadline', 3);
    rec('car insurance', 2);
    rec('car insurance', 0);
    rec('pet names', 1);
    const gaps = env.stores.recallEvents.openGaps(U, since);
    expect(gaps.map((g) => g.query)).toEqual(['car insurance', 'Sister  Birthday ']);
    expect(gaps[1]!.misses).toBe(2);
    expect(env.stores.recallEvents.openGaps(A, since)).toEqual([]);
    // Outside the period: not a gap of it.
    expect(env.stores.recallEvents.openGaps(U, iso())).toEqual([]);
  });
});

describe('RecallEventStore.openGaps: queries folded as dream folds words', () => {
  it('an NFD miss and a later NFC hit of one query close the gap, as do case beyond ASCII and full-width forms; the query shown is the latest miss', () => {
    const since = iso();
    const rec = (query: string, n: number) => {
      env.stores.recallEvents.record(U, { query, intent: 'balanced', result_count: n, ms: 1 });
      env.clock.advance(1000);
    };
    rec('cafe\u0301 opening hours', 0);
    rec('caf\u00e9 opening hours', 4);
    rec('\u00c9COLE FEES', 0);
    rec('\u00e9cole  fees', 0);
    rec('\u00e9cole fees', 2);
    rec('\uff31\uff35\uff2f\uff2b\uff2b\uff21', 0);
    rec('quokka', 1);
    rec('\u041c\u041e\u0421\u041a\u0412\u0410 trip', 0);
    rec('\u043c\u043e\u0441\u043a\u0432\u0430  trip', 0);
    expect(env.stores.recallEvents.openGaps(U, since)).toEqual([
      expect.objectContaining({ query: '\u043c\u043e\u0441\u043a\u0432\u0430  trip', misses: 2 }),
    ]);
  });
});

describe('EpisodeStore by tag and neighbours', () => {
  it('counts dream markers, in a period or all', () => {
    env.stores.episodes.add(U, { summary: 'next time: check the build', tags: [DREAM_MARKER_TAG] });
    env.clock.advance(3600_000);
    const since = iso();
    env.stores.episodes.add(U, { summary: 'next time: ask about the trip', tags: [DREAM_MARKER_TAG, 'travel'] });
    env.stores.episodes.add(U, { summary: 'not a marker' });
    env.stores.episodes.add(A, { summary: 'agent marker', tags: [DREAM_MARKER_TAG] });
    expect(env.stores.episodes.countTagged(U, DREAM_MARKER_TAG)).toBe(2);
    expect(env.stores.episodes.countTagged(U, DREAM_MARKER_TAG, since)).toBe(1);
    expect(env.stores.episodes.countTagged(A, DREAM_MARKER_TAG)).toBe(1);
  });

  it('finds the episodes just before and after one, in its scope only', () => {
    const a = env.stores.episodes.add(U, { summary: 'a' });
    env.stores.episodes.add(A, { summary: 'other scope' });
    const b = env.stores.episodes.add(U, { summary: 'b' });
    const c = env.stores.episodes.add(U, { summary: 'c' });
    const n = env.stores.episodes.neighbours(U, b.id);
    expect(n.before?.id).toBe(a.id);
    expect(n.after?.id).toBe(c.id);
    expect(env.stores.episodes.neighbours(U, a.id).before).toBeNull();
  });
});

describe('Stores.dayDigest', () => {
  it('counts and lists what was written today by the clock, not yesterday', () => {
    env.clock.t = Date.UTC(2026, 2, 10, 23, 0);
    env.stores.facts.upsert(U, { key: 'old', value: 'yesterday' });
    env.clock.t = Date.UTC(2026, 2, 11, 9, 0);
    env.stores.facts.upsert(U, { key: 'k1', value: 'v1' });
    env.clock.advance(1000);
    env.stores.facts.upsert(U, { key: 'k2', value: 'v2' });
    env.stores.episodes.add(U, { summary: 'morning run' });
    env.stores.wiki.save(U, { title: 'Diary', content: 'x', wiki_type: 'diary' });
    env.stores.timeline.add(U, { type: 'thought', summary: 'a thought' });
    env.stores.episodes.add(A, { summary: 'agent only' });
    const d = env.stores.dayDigest(U);
    expect(d.day_start).toBe('2026-03-11T00:00:00.000Z');
    expect(d.counts).toEqual({ facts: 2, episodes: 1, wiki: 1, timeline: 1 });
    expect(d.newest.facts.map((f) => f.text)).toEqual(['k2: v2', 'k1: v1']);
    expect(d.newest.wiki[0]!.text).toBe('Diary');
    expect(d.newest.timeline[0]!.text).toBe('thought: a thought');
  });
});

describe('AuditLog.autoSaveSums', () => {
  it('sums the auto_save rows of the scope in the period', () => {
    env.stores.audit.log(U, 'auto_save', 'hook', 'new_message', { saved_l3: 0, saved_l4: 0, saved_graph: 0 });
    env.clock.advance(1000);
    const since = iso();
    env.stores.audit.log(U, 'auto_save', 'hook', 'new_message', { saved_l3: 1, saved_l4: 1, saved_graph: 1 });
    env.stores.audit.log(U, 'auto_save', 'hook', 'auto_save_candidate', { saved_l3: 1, saved_l4: 0, saved_graph: 1 });
    env.stores.audit.log(U, 'create', 'fact', 'fact_1', {});
    env.stores.audit.log(A, 'auto_save', 'hook', 'new_message', { saved_l3: 1, saved_l4: 1, saved_graph: 1 });
    expect(env.stores.audit.autoSaveSums(U, since)).toEqual({ dispatched: 2, saved_l3: 2, saved_l4: 1, saved_graph: 2 });
  });
});
