import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RECALL_TRIM_MAX_ROWS, recallTrimEvery } from './recall-events.js';
import { A, U, U2, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

const record = (scope: typeof U, query: string) => env.stores.recallEvents.record(scope, { query, intent: 'balanced', result_count: 0, ms: 1 });
const queries = (scope: typeof U) => env.stores.recallEvents.recent(scope, 100).map((e) => e.query).reverse();

describe('queued queries and forgets in other processes', () => {
  const queue = (stores: Env['stores'], query: string) =>
    stores.defer(() => stores.recallEvents.record(U, { query, intent: 'balanced', result_count: 0, ms: 1 }));

  it('a batch queued before another process forgot leaves its queries out; the next batch writes again', () => {
    const other = env.second().stores;
    queue(other, 'where does the zanzibar quokka live');
    queue(other, 'ferry times');
    // This process forgets the word while the other's queries still wait in its queue.
    expect(env.stores.recallEvents.deleteMatching(U, 'quokka')).toBe(0);
    other.flush();
    expect(queries(U)).toEqual([]);
    queue(other, 'bus times');
    other.flush();
    expect(queries(U)).toEqual(['bus times']);
  });

  it('each kind of forget counts (exact, fuzzy, recent); a trim does not; its own forget never drops the process’s next batch', () => {
    const other = env.second().stores;
    const forgets: (() => unknown)[] = [
      () => env.stores.recallEvents.deleteWhere(U, ['quokka'], () => true),
      () => env.stores.recallEvents.deleteSince(U, new Date(Date.now() + 3_600_000).toISOString()),
      () => env.stores.recallEvents.deleteMatching(U, 'quokka'),
    ];
    for (const forget of forgets) {
      queue(other, 'quokka again');
      forget();
      other.flush();
      expect(queries(U)).toEqual([]);
    }
    env.stores.recallEvents.trim(U, 1);
    queue(other, 'after a trim');
    other.flush();
    expect(queries(U)).toEqual(['after a trim']);
    // The forgetting process wrote its own queue first (Stores.writeDeferred): its next batch is written.
    env.stores.writeDeferred();
    env.stores.recallEvents.deleteMatching(U, 'trim');
    queue(env.stores, 'mine, after my forget');
    env.stores.flush();
    expect(queries(U)).toEqual(['mine, after my forget']);
  });

  it('a batch of this process written before it forgot is kept for the forget to judge', () => {
    queue(env.stores, 'the quokka question');
    queue(env.stores, 'the ferry question');
    env.stores.writeDeferred();
    expect(env.stores.recallEvents.deleteMatching(U, 'quokka')).toBe(1);
    expect(queries(U)).toEqual(['the ferry question']);
  });
});

describe('RecallEventStore reads and the queue', () => {
  it('count, openGaps and recent see the dreams still queued: they write the queue first', () => {
    const queue = (query: string, result_count: number) => env.stores.defer(() => env.stores.recallEvents.record(U, { query, intent: 'balanced', result_count, ms: 1 }));
    const since = new Date(env.clock.now() - 3_600_000).toISOString();
    queue('kiwi', 1);
    expect(env.stores.recallEvents.count(U)).toBe(1);
    queue('where is the quokka', 0);
    expect(env.stores.recallEvents.openGaps(U, since).map((g) => g.query)).toEqual(['where is the quokka']);
    queue('ferry times', 0);
    expect(env.stores.recallEvents.recent(U, 1).map((e) => e.query)).toEqual(['ferry times']);
    // Another scope's read writes the whole queue too (one batch): the count of each scope is exact.
    queue('bus', 0);
    expect(env.stores.recallEvents.count(A)).toBe(0);
    expect(env.db.prepare("SELECT COUNT(*) FROM recall_events WHERE user_id = 'default' AND layer = 'user'").pluck(true).get()).toBe(4);
  });
});

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

  // Regression guard, fixed: the prefilter was a LIKE of each term as written, so a query holding it only folded
  // (full-width, accented) was never read, and forget exact could not delete it.
  it('by test, reading the queries that hold a term folded as retrieval folds', () => {
    for (const q of ['where is the \uff23\uff21\uff26\uff25 Zurich', 'Café Zürich hours', 'CAFE ZURICH', 'tea only']) record(U, q);
    const read: string[] = [];
    expect(
      env.stores.recallEvents.deleteWhere(U, ['cafe'], (q) => {
        read.push(q);
        return true;
      }),
    ).toBe(3);
    expect(read).not.toContain('tea only');
    expect(queries(U)).toEqual(['tea only']);
  });
});

describe('RecallEventStore keeps the newest rows of each scope', () => {
  const ids = (scope: typeof U) =>
    env.db.prepare('SELECT id FROM recall_events WHERE layer = ? AND user_id = ? ORDER BY id').pluck().all(scope.layer, scope.user_id) as number[];

  it('each layer and user_id its newest recallEventsKeep, trimmed by its own writes only', () => {
    env.close();
    env = makeEnv({ recallEventsKeep: 5 });
    expect(recallTrimEvery(5)).toBe(1);
    for (let i = 1; i <= 3; i++) record(A, `agent ${i}`);
    for (let i = 1; i <= 12; i++) record(U, `user ${i}`);
    for (let i = 1; i <= 8; i++) record(U2, `bob ${i}`);
    expect(queries(U)).toEqual(['user 8', 'user 9', 'user 10', 'user 11', 'user 12']);
    expect(queries(U2)).toEqual(['bob 4', 'bob 5', 'bob 6', 'bob 7', 'bob 8']);
    // Under its bound, and never trimmed by the other scopes' writes.
    expect(queries(A)).toEqual(['agent 1', 'agent 2', 'agent 3']);
    const agentIds = ids(A);
    for (let i = 13; i <= 20; i++) record(U, `user ${i}`);
    expect(ids(A)).toEqual(agentIds);
    expect(queries(U)).toEqual(['user 16', 'user 17', 'user 18', 'user 19', 'user 20']);
  });

  it('trims a scope at its first write, then once every tenth of the bound, keeping the newest', () => {
    env.close();
    env = makeEnv({ recallEventsKeep: 30 });
    const every = recallTrimEvery(30);
    expect(every).toBe(3);
    const insert = env.db.prepare("INSERT INTO recall_events (layer, user_id, query, intent, result_count, ms, created) VALUES ('user', 'default', ?, 'balanced', 0, 1, '2026-01-01')");
    for (let i = 1; i <= 40; i++) insert.run(`old ${i}`);
    record(U, 'first');
    expect(env.stores.recallEvents.count(U)).toBe(30);
    expect(queries(U).at(-1)).toBe('first');
    expect(queries(U)[0]).toBe('old 12');
    const counts: number[] = [];
    for (let i = 1; i <= 2 * every; i++) {
      record(U, `q ${i}`);
      counts.push(env.stores.recallEvents.count(U));
    }
    expect(counts).toEqual([31, 32, 30, 31, 32, 30]);
    expect(queries(U).slice(-3)).toEqual(['q 4', 'q 5', 'q 6']);
  });

  it('a scope far over the bound is brought down over its next writes, RECALL_TRIM_MAX_ROWS rows each', () => {
    env.close();
    env = makeEnv({ recallEventsKeep: 5 });
    const insert = env.db.prepare("INSERT INTO recall_events (layer, user_id, query, intent, result_count, ms, created) VALUES ('user', 'default', 'old', 'balanced', 0, 1, '2026-01-01')");
    env.db.transaction(() => {
      for (let i = 0; i < RECALL_TRIM_MAX_ROWS + 100; i++) insert.run();
    })();
    record(U, 'one');
    expect(env.stores.recallEvents.count(U)).toBe(101);
    record(U, 'two');
    expect(queries(U)).toEqual(['old', 'old', 'old', 'one', 'two']);
  });

  it('trim takes an explicit bound, and refuses one below 1', () => {
    for (let i = 1; i <= 4; i++) record(U, `q ${i}`);
    expect(env.stores.recallEvents.trim(U, 2)).toBe(2);
    expect(queries(U)).toEqual(['q 3', 'q 4']);
    expect(() => env.stores.recallEvents.trim(U, 0)).toThrow(/positive integer/);
  });
});
