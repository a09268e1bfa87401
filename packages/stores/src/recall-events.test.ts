import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { A, U, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

const record = (scope: typeof U, query: string) => env.stores.recallEvents.record(scope, { query, intent: 'balanced', result_count: 0, ms: 1 });
const queries = (scope: typeof U) => env.stores.recallEvents.recent(scope, 100).map((e) => e.query).reverse();

describe('RecallEventStore deletes', () => {
  it('by pattern: the queries holding it as whole words, folded as retrieval folds, in one scope', () => {
    for (const q of ['Café au lait?', 'where is the ＣＡＦＥ', 'cafeteria menu', 'CAFE hours', 'ferry times']) record(U, q);
    record(A, 'cafe for the agent');
    record({ layer: 'user', user_id: 'other' }, 'cafe of another user');
    expect(env.stores.recallEvents.deleteMatching(U, 'cafe')).toBe(3);
    expect(queries(U)).toEqual(['cafeteria menu', 'ferry times']);
    expect(queries(A)).toEqual(['cafe for the agent']);
    expect(queries({ layer: 'user', user_id: 'other' })).toEqual(['cafe of another user']);
    expect(() => env.stores.recallEvents.deleteMatching(U, '%')).toThrow(/letter or digit/);
    expect(env.stores.recallEvents.deleteMatching(U, '50%')).toBe(0);
  });

  it('by test, reading only the queries that hold a term, and by time', () => {
    for (const q of ['my birthday is March 3', 'birthday', 'march madness']) record(U, q);
    expect(env.stores.recallEvents.deleteWhere(U, ['birthday'], (q) => q === 'birthday')).toBe(1);
    // A query without any term is not read, whatever the test says.
    expect(env.stores.recallEvents.deleteWhere(U, ['birthday'], () => true)).toBe(1);
    expect(queries(U)).toEqual(['march madness']);
    env.clock.advance(3600_000);
    const since = new Date(env.clock.now()).toISOString();
    record(U, 'just now');
    record(A, 'agent just now');
    expect(env.stores.recallEvents.deleteSince(U, since)).toBe(1);
    expect(queries(U)).toEqual(['march madness']);
    expect(queries(A)).toEqual(['agent just now']);
  });
});
