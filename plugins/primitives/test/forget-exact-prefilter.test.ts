import { seededRandom } from '@memory-service/kernel';
import { wordsMatcher, type Stores } from '@memory-service/stores';
import { afterEach, describe, expect, it } from 'vitest';
import { carriesValue, holdsStartOf, isExcerptOf } from '../src/services/forgetter.js';
import { start, type TestServer } from './helpers.js';

/**
 * forget exact reads only the timeline events and contexts that hold a piece of the forgotten
 * text's start (prefilterTerm), and finds a character beyond ASCII without a GLOB: the records it
 * deletes and clears are those a test of every record (the reference here) takes.
 */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const U = { layer: 'user' as const, user_id: 'default' };

describe('forget exact reads fewer records, and answers as testing every record', () => {
  it('deletes the events and clears the contexts a test of each one takes (seeded random records)', async () => {
    const values = ['The blue tandem "bicycle" by the harbour', 'Met "Bo" at the pier today', 'the  ＣＡＦＥ Zürich opens at nine', 'The e-mail draft\tfor Quentin is due'];
    // The first word is in nearly every record; the longest piece of the first 16 characters is not.
    for (const [seed, value] of values.entries()) {
      s = await start();
      const stores = s.kernel.container.resolve<Stores>('stores');
      const rand = seededRandom(seed);
      const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
      const forms = [
        value,
        value.toUpperCase(),
        value.replace(/ +/g, '\n '),
        `${value.slice(0, 20)}…`,
        `${value.slice(0, 12)}…`,
        value.slice(0, 20),
        'The weather was fine',
        'the harbour and the bicycle',
        'Café Zurich',
        'CAFE ZURICH opens',
      ];
      const text = () => {
        const parts = [pick(['', 'Earlier: ', 'the day ', 'Note - '])];
        if (rand() < 0.6) parts.push(pick(forms));
        if (rand() < 0.5) parts.push(pick([' and more', '', ' the end']));
        return parts.join('') || 'nothing';
      };
      // Episodes that carry the value go with the fact; other contexts may hold their start cut off.
      const carriers = [0, 1, 2].map((j) => stores.episodes.add(U, { summary: `${value} number ${j}` }).summary);
      for (let i = 0; i < 80; i++) {
        stores.timeline.add(U, { type: 'note', summary: text(), metadata: rand() < 0.5 ? { said: text(), n: i } : {} });
        const cut = rand() < 0.3 ? ` then ${pick(carriers).slice(0, 16 + Math.floor(rand() * 12))}` : '';
        stores.episodes.add(U, { summary: `episode ${i} about gardens`, context: `${text()}${cut}` });
      }
      stores.facts.upsert(U, { key: 'k', value });
      const db = s.kernel.storage.db;
      // The reference: every event and context, each tested against the value.
      const held = (t: string) => carriesValue(t, value) || isExcerptOf(t, value);
      const events = db.prepare("SELECT id, summary, metadata FROM timeline_events WHERE type = 'note'").all() as { id: number; summary: string; metadata: string }[];
      const eventsGone = events.filter((e) => held(e.summary) || held(JSON.stringify(JSON.parse(e.metadata)))).map((e) => e.id);
      const contexts = db.prepare("SELECT id, context FROM episodes WHERE context <> '' AND summary LIKE 'episode %'").all() as { id: number; context: string }[];
      // A context goes where it holds the value as whole words (scrubContext, as fuzzy matches) or a
      // deleted episode's text, whole or its start cut off (holdsStartOf).
      const contextsCleared = contexts.filter((c) => wordsMatcher(value)(c.context) || carriers.some((t) => holdsStartOf(c.context, t))).map((c) => c.id);
      expect(eventsGone.length, `seed ${seed}: some events hold the value`).toBeGreaterThan(0);
      expect(contextsCleared.length, `seed ${seed}: some contexts hold the value`).toBeGreaterThan(0);

      await s.call('forget', { key: 'k', scope: 'exact', layer: 'user' });
      const left = new Set((db.prepare("SELECT id FROM timeline_events WHERE type = 'note'").pluck().all() as number[]));
      expect(events.map((e) => e.id).filter((id) => !left.has(id)), `seed ${seed}: events deleted`).toEqual(eventsGone);
      const cleared = (db.prepare("SELECT id FROM episodes WHERE context = '' AND summary LIKE 'episode %'").pluck().all() as number[]).filter((id) => contexts.some((c) => c.id === id));
      expect(cleared, `seed ${seed}: contexts cleared`).toEqual(contextsCleared);
      await s.close();
    }
  });
});
