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
