import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { A, U, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

const summaries = (scope: typeof U) => env.stores.timeline.latest(scope, 100).map((e) => e.summary).reverse();

describe('TimelineStore.deleteWhere', () => {
  // Regression guard, fixed: the prefilter was a LIKE of each term as written, so an event holding a term only folded
  // (full-width "ＣＡＦＥ", "Café" for "cafe") was never read, and forget exact could not delete it.
  it('reads the events holding a term folded as retrieval folds, in the summary or the metadata, and deletes those the test takes', () => {
    const add = (scope: typeof U, summary: string, metadata: Record<string, unknown> = {}) => env.stores.timeline.add(scope, { type: 'thought', summary, metadata });
    add(U, 'We met at the \uff23\uff21\uff26\uff25 Zurich');
    add(U, 'We met at the Café Zürich');
    add(U, 'CAFE ZURICH again');
    add(U, 'a plain note', { place: 'Caf\u0065\u0301 zurich' });
    add(U, 'a plain note', { ref: 'L3:EP_7' });
    add(U, 'tea only');
    add(A, 'cafe for the agent');
    const read: string[] = [];
    const gone = env.stores.timeline.deleteWhere(U, ['cafe', 'l3:ep_7'], (e) => {
      read.push(e.summary);
      return true;
    });
    expect(gone).toHaveLength(5);
    expect(read).not.toContain('tea only');
    expect(summaries(U)).toEqual(['tea only']);
    expect(summaries(A)).toEqual(['cafe for the agent']);
    // With no terms every event of the scope is read.
    expect(env.stores.timeline.deleteWhere(U, [], () => true)).toHaveLength(1);
  });
});

describe('TimelineStore.deleteMatching', () => {
  // Regression guard, fixed: the metadata's ids of the records the service wrote (refs `l1:l1_1`, `wiki:wiki_1`,
  // evolve's entry_id `fact_3` and generated key `personality:...`) were matched as the event's words, so forgetting
  // "l1", "wiki", "fact" or "personality" took every event naming such a record.
  it("matches the caller's metadata, not the record ids and generated keys the service put there", () => {
    const add = (summary: string, metadata: Record<string, unknown>) => env.stores.timeline.add(U, { type: 'thought', summary, metadata });
    add('first', { refs: ['l1:l1_1', 'wiki:wiki_1', 'l3:ep_1', 'graph:node_1'], importance: 0.9 });
    add('second', { entry_id: 'fact_3', key: 'personality:be-brief' });
    add('third', { project: 'Atlas', key: 'my chosen key' });
    for (const p of ['l1', 'wiki', 'ep', 'graph', 'node', 'fact', 'personality', 'brief', 'high']) expect(env.stores.timeline.deleteMatching(U, p), p).toEqual([]);
    expect(env.stores.timeline.deleteMatching(U, 'atlas').map((e) => e.summary)).toEqual(['third']);
    expect(env.stores.timeline.deleteMatching(U, 'second').map((e) => e.summary)).toEqual(['second']);
    expect(summaries(U)).toEqual(['first']);
  });
});

describe('TimelineStore.add and training_value', () => {
  const add = (summary: string, metadata?: Record<string, unknown>) => env.stores.timeline.add(U, { type: 'project_decision', summary, metadata });

  it('classifies an event whose metadata carries none from its summary, with a neutral importance', () => {
    // The spec: temporal event metadata carries training_value (high, medium, low).
    const e = add('P: Use Go.', { project: 'P', decision_id: 1, outcome: null });
    expect(e.metadata).toEqual({ project: 'P', decision_id: 1, outcome: null, training_value: 'medium' });
    expect(add('We decided to drop Redis').metadata).toEqual({ training_value: 'high' });
    // A neutral 0.5 is never low: low needs an importance under 0.4.
    expect(add('ok').metadata.training_value).toBe('medium');
    // As stored, not only as answered.
    expect(env.stores.timeline.latest(U, 10).every((x) => ['high', 'medium', 'low'].includes(x.metadata.training_value as string))).toBe(true);
    expect(env.stores.timeline.latest(U, 10).at(-1)!.metadata).toEqual({ project: 'P', decision_id: 1, outcome: null, training_value: 'medium' });
  });

  it("uses the metadata's importance when it is a number in [0, 1]", () => {
    expect(add('ok', { importance: 0.9 }).metadata).toEqual({ importance: 0.9, training_value: 'high' });
    expect(add('ok', { importance: 0.1 }).metadata).toEqual({ importance: 0.1, training_value: 'low' });
    expect(add('ok', { importance: 7 }).metadata.training_value).toBe('medium');
    expect(add('ok', { importance: '0.1' }).metadata.training_value).toBe('medium');
  });

  it("keeps a caller's valid value where it is and replaces one that is not high, medium or low", () => {
    expect(Object.keys(add('ok', { training_value: 'low', importance: 0.9 }).metadata)).toEqual(['training_value', 'importance']);
    expect(add('ok', { training_value: 'low', importance: 0.9 }).metadata.training_value).toBe('low');
    expect(add('We decided', { training_value: 'HIGH' }).metadata.training_value).toBe('high');
    expect(add('ok', { training_value: 3 }).metadata.training_value).toBe('medium');
    expect(add('ok', { training_value: null }).metadata.training_value).toBe('medium');
  });

  it('does not let forget fuzzy match the label: "low" and "high" delete only the events whose words hold them', () => {
    add('ok', { importance: 0.1 });
    add('the high road');
    add('a note', { place: 'Low Street' });
    expect(env.stores.timeline.deleteMatching(U, 'high').map((e) => e.summary)).toEqual(['the high road']);
    expect(env.stores.timeline.deleteMatching(U, 'low').map((e) => e.summary)).toEqual(['a note']);
    expect(summaries(U)).toEqual(['ok']);
  });
});
