import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seededRandom } from '@memory-service/kernel';
import { recurringTerms, REFLECT_TERM_MIN_RECORDS, REFLECT_TOP_TERMS } from './reflections.js';
import { STOP_WORDS, wordTokens } from './retrieval/query.js';
import { porterStem } from './retrieval/stemmer.js';
import { A, U, U2, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

describe('ReflectionStore', () => {
  it('counts the period records, top tags, most recalled and recurring terms, deterministically, and stores the reflection', () => {
    const s = env.stores;
    s.facts.upsert(U, { key: 'old', value: 'Old deploy note', importance: 0.5 });
    env.clock.advance(48 * 3600_000);
    const f = s.facts.upsert(U, { key: 'deploy', value: 'Deploy runs on Fridays', importance: 0.5 });
    const e1 = s.episodes.add(U, { summary: 'The deploy failed on staging', tags: ['ops', 'env:staging'] });
    s.episodes.add(U, { summary: 'Fixed the deploy script for staging', tags: ['ops'] });
    s.episodes.add(U2, { summary: 'Bob deploy deploy', tags: ['ops'] });
    s.retrieval.touch([{ source: 'l4', id: f.entry_id } as never, { source: 'l3', id: e1.id } as never, { source: 'l3', id: e1.id } as never]);
    env.clock.advance(1000);
    const r = s.reflections.write(U);
    expect(r).toMatchObject({ id: expect.stringMatching(/^refl_\d+$/), topic: null, period_hours: 24 });
    expect(r.counts).toEqual({ facts: 1, episodes: 2, wiki_pages: 0, graph_nodes: 0, events: 0, sessions_closed: 0, recalls: 0 });
    expect(r.top_tags).toEqual([{ tag: 'ops', count: 2 }, { tag: 'env:staging', count: 1 }]);
    expect(r.most_recalled.map((m) => [m.id, m.access_count])).toEqual([[e1.id, 2], [f.entry_id, 1]]);
    expect(r.recurring_terms).toEqual([{ term: 'deploy', records: 3 }, { term: 'staging', records: 2 }]);
    expect(r.summary).toContain('1 new facts, 2 new episodes');
    expect(r.summary).toContain('Top tags: ops (2)');
    // A longer period takes the old fact in; a topic keeps only the records holding it.
    expect(s.reflections.write(U, { period_hours: 72 }).counts.facts).toBe(2);
    const t = s.reflections.write(U, { topic: 'STAGING' });
    expect(t.counts).toMatchObject({ facts: 0, episodes: 2 });
    expect(t.recurring_terms.map((x) => x.term)).toEqual(['deploy']);
    // Stored: listed newest first, topic filter ignoring case, per scope.
    expect(s.reflections.list(U).map((x) => x.id)).toEqual([t.id, expect.any(String), r.id]);
    expect(s.reflections.list(U, { topic: 'staging' }).map((x) => x.id)).toEqual([t.id]);
    expect(s.reflections.list(U, { limit: 1 })).toHaveLength(1);
    expect(s.reflections.list(U)[2]).toEqual(r);
    expect(s.reflections.list(A)).toEqual([]);
    expect(s.reflections.write(A).summary).toContain('Nothing was recorded');
  });

  it('counts the recalls and accesses of the dreams still queued (it writes the queue first)', () => {
    const s = env.stores;
    const f = s.facts.upsert(U, { key: 'deploy', value: 'Deploy runs on Fridays' });
    s.defer(() => s.recallEvents.record(U, { query: 'deploy day', intent: 'balanced', result_count: 1, ms: 1 }));
    s.noteAccess([{ source: 'l4', id: f.entry_id }]);
    const r = s.reflections.write(U);
    expect(r.counts.recalls).toBe(1);
    expect(r.most_recalled.map((m) => [m.id, m.access_count])).toEqual([[f.entry_id, 1]]);
  });

  it('refuses a bad period, topic or limit naming the field, storing nothing', () => {
    const field = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return (err as { field?: string }).field;
      }
      return 'none';
    };
    expect(field(() => env.stores.reflections.write(U, { period_hours: 0 }))).toBe('period_hours');
    expect(field(() => env.stores.reflections.write(U, { period_hours: 8761 }))).toBe('period_hours');
    expect(field(() => env.stores.reflections.write(U, { topic: '  ' }))).toBe('topic');
    expect(field(() => env.stores.reflections.list(U, { limit: 51 }))).toBe('limit');
    expect(env.stores.reflections.list(U)).toEqual([]);
  });

  it('recurringTerms counts each record once and skips stop words, numbers, short words and the topic', () => {
    expect(recurringTerms(['the cat cat sat 2026', 'The CAT sat', 'a dog'], undefined)).toEqual([{ term: 'cat', records: 2 }, { term: 'sat', records: 2 }]);
    expect(recurringTerms(['the cat sat', 'the cat sat'], 'cats and a Cat')).toEqual([{ term: 'sat', records: 2 }]);
    // One stem, one term, shown by its shortest form.
    expect(recurringTerms(['Deploys failed', 'the deploy', 'deploying now'])).toEqual([{ term: 'deploy', records: 3 }]);
  });

  it('recurringTerms counts the inflected forms of a Russian or Arabic word as one term', () => {
    expect(recurringTerms(['Встреча отменена', 'после встречи', 'о встрече'])).toEqual([{ term: 'встреча', records: 3 }]);
    expect(recurringTerms(['الكتاب مفيد', 'قرأت كتابه', 'كتابها'])).toEqual([{ term: 'كتابه', records: 3 }]);
  });

  it('recurringTerms answers as counting each text\'s stems in turn did (seeded random texts)', () => {
    /** The former implementation, which stemmed every word of every text: the reference. */
    const reference = (texts: readonly string[], topic?: string) => {
      const skip = new Set(topic === undefined ? [] : wordTokens(topic).map((w) => porterStem(w)));
      const records = new Map<string, { n: number; form: string }>();
      for (const text of texts) {
        const seen = new Map<string, string>();
        for (const w of wordTokens(text)) {
          if (w.length < 3 || /^\d+$/.test(w) || STOP_WORDS.has(w)) continue;
          const stem = porterStem(w);
          if (skip.has(stem)) continue;
          const prev = seen.get(stem);
          if (prev === undefined || w.length < prev.length || (w.length === prev.length && w < prev)) seen.set(stem, w);
        }
        for (const [stem, form] of seen) {
          const r = records.get(stem);
          if (!r) records.set(stem, { n: 1, form });
          else {
            r.n++;
            if (form.length < r.form.length || (form.length === r.form.length && form < r.form)) r.form = form;
          }
        }
      }
      return [...records.values()]
        .filter((r) => r.n >= REFLECT_TERM_MIN_RECORDS)
        .sort((a, b) => b.n - a.n || (a.form < b.form ? -1 : a.form > b.form ? 1 : 0))
        .slice(0, REFLECT_TOP_TERMS)
        .map((r) => ({ term: r.form, records: r.n }));
    };
    const rand = seededRandom(3);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
    const words = ['deploy', 'Deploys', 'deploying', 'deployed', 'cat', 'cats', 'CAT', 'the', 'and', 'go', 'run', 'running', 'runs', '2026', '42nd', 'café', 'Cafe', 'cafés', 'zürich', 'zurich', 'garden', 'gardens', 'gardening', 'ox', 'fox', 'foxes', 'e-mail', 'emails', '猫猫', 'hoped', 'hopes', `${'Gardening'.repeat(8)}x`, `${'gardening'.repeat(8)}y`, 'Deploy123', 'under_score', "it's"];
    for (let round = 0; round < 300; round++) {
      const texts = Array.from({ length: Math.floor(rand() * 12) }, () => Array.from({ length: Math.floor(rand() * 10) }, () => pick(words)).join(pick([' ', ', ', '-', '.\n'])));
      const topic = rand() < 0.3 ? pick(words) : undefined;
      expect(recurringTerms(texts, topic), JSON.stringify({ texts, topic })).toEqual(reference(texts, topic));
    }
  });
});

describe('ReflectionStore: export, import, the window purge and forget', () => {
  it('restore stores a reflection as given; forget drops the rows naming deleted records and the terms of forgotten words', () => {
    const s = env.stores.reflections;
    const since = env.clock.now();
    env.clock.advance(1000);
    s.write(U, {});
    const given = {
      topic: 'deploy',
      period_hours: 24,
      period_start: '2020-01-01T00:00:00.000Z',
      period_end: '2020-01-02T00:00:00.000Z',
      summary: 'Most recalled: fact_7 "Deploys on Tuesday" (3).',
      counts: { facts: 1, episodes: 0, wiki_pages: 0, graph_nodes: 0, events: 0, sessions_closed: 0, recalls: 2 },
      top_tags: [],
      most_recalled: [{ source: 'l4' as const, id: 'fact_7', text: 'Deploys on Tuesday', access_count: 3 }],
      recurring_terms: [{ term: 'tuesday', records: 2 }, { term: 'staging', records: 2 }],
      created: '2020-01-02T00:00:00.000Z',
    };
    const r = s.restore(U2, given);
    expect(s.all(U2)).toEqual([{ ...given, id: r.id }]);
    expect(s.forget(U2, new Set(['fact_7']), ['Deploys on Tuesdays'])).toBe(1);
    const after = s.all(U2)[0]!;
    expect(after.most_recalled).toEqual([]);
    expect(after.recurring_terms).toEqual([{ term: 'staging', records: 2 }]);
    expect(after.summary).not.toMatch(/Tuesday|fact_7/);
    expect(after.counts).toEqual(given.counts);
    expect(s.deleteSince(U, new Date(since + 1).toISOString())).toBe(1);
    expect(s.clear(U2)).toBe(1);
  });

  it('refuses a topic of spaces or zero-width characters alone, and counts its length in characters (an emoji is one)', () => {
    for (const topic of ['   ', '\u200b\u200b']) {
      expect(() => env.stores.reflections.write(U, { topic })).toThrow(expect.objectContaining({ field: 'topic', message: expect.stringContaining('visible') }));
    }
    expect(env.stores.reflections.write(U, { topic: '🌅'.repeat(150) }).topic).toBeTruthy();
    expect(() => env.stores.reflections.write(U, { topic: '🌅'.repeat(201) })).toThrow(expect.objectContaining({ field: 'topic', message: expect.stringContaining('longer than 200') }));
  });

  // The topic filter was SQLite's lower(), which folds ASCII only: "CAFÉ" did not list the "Café"
  // reflections, nor a topic sent decomposed the precomposed one.
  it('lists by topic ignoring case beyond ASCII, NFC or NFD and accents, as names are folded; the whole topic, newest first, limit', () => {
    const r = env.stores.reflections;
    const cafe = r.write(U, { topic: 'Caf\u00e9' });
    const ist = r.write(U, { topic: '\u0130stanbul' });
    r.write(U, { topic: 'Caf\u00e9 Noir' });
    r.write(U);
    const cafe2 = r.write(U, { topic: 'CAFE\u0301' });
    r.write(A, { topic: 'Caf\u00e9' });
    const ids = (topic: string, limit?: number) => r.list(U, { topic, limit }).map((x) => x.id);
    for (const t of ['caf\u00e9', 'CAF\u00c9', 'cafe\u0301', ' Cafe ']) expect(ids(t), t).toEqual([cafe2.id, cafe.id]);
    expect(ids('CAF\u00c9', 1)).toEqual([cafe2.id]);
    expect(ids('ISTANBUL')).toEqual([ist.id]);
    expect(ids('istanbul')).toEqual([ist.id]);
    expect(ids('Caf')).toEqual([]);
    // A topic that folds to nothing still lists the reflections written for exactly it.
    const mark = r.write(U, { topic: '\u0301' });
    expect(ids('\u0301')).toEqual([mark.id]);
  });
});
