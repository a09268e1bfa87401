import fs from 'node:fs';
import path from 'node:path';
import { seededRandom } from '@memory-service/kernel';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IndexBuild } from './retrieval/index-build.js';
import { SNAPSHOT_DIR } from './retrieval/index-sync.js';
import type { Stores } from './stores.js';
import { makeEnv, U, U2, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => {
  vi.restoreAllMocks();
  env.close();
});

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Seeded random texts over a small vocabulary, so queries match a few percent of the records. */
function texts(seed: number) {
  const rand = seededRandom(seed);
  const vocab = Array.from({ length: 300 }, (_, i) => `w${(i * 7919).toString(36)}x`);
  const word = () => vocab[Math.floor(rand() * vocab.length)]!;
  const text = () => Array.from({ length: 3 + Math.floor(rand() * 15) }, word).join(' ');
  const query = () => Array.from({ length: 1 + Math.floor(rand() * 3) }, word).join(' ');
  return { rand, text, query };
}

/**
 * Episodes and facts over two scopes, their indexes built (and saved), then more than half of the
 * episodes edited at once: the log calls for the episodes' index to be rebuilt from its table.
 */
function staleIndex(n: number, seed: number): void {
  const s = env.stores;
  const { rand, text } = texts(seed);
  s.transaction(() => {
    for (let i = 0; i < n; i++) {
      const sc = i % 2 === 0 ? U : U2;
      if (rand() < 0.8) s.episodes.add(sc, { summary: text(), tags: [text().split(' ')[0]!] });
      else s.facts.upsert(sc, { key: `k${i}`, value: text() });
    }
  });
  s.retrieval.warm();
  const update = env.db.prepare('UPDATE episodes SET summary = ? WHERE id = ?');
  const ids = env.db.prepare('SELECT id FROM episodes').pluck(true).all() as number[];
  s.transaction(() => {
    for (const id of ids) update.run(text(), id);
  });
  expect(s.retrieval.catchUp().left).toContain('l3');
}

/**
 * What happens from now on, in order: `slice` for each slice of an index build, `ping` for each
 * turn of the event loop (a request the process answers), and whatever the test adds.
 */
function recordEvents(): { events: string[]; stop(): void } {
  const events: string[] = [];
  const step = IndexBuild.prototype.step;
  vi.spyOn(IndexBuild.prototype, 'step').mockImplementation(function (this: IndexBuild, ms: number) {
    events.push('slice');
    return step.call(this, ms);
  });
  let on = true;
  const ping = () => {
    if (!on) return;
    events.push('ping');
    setImmediate(ping);
  };
  setImmediate(ping);
  return { events, stop: () => (on = false) };
}

/** The rebuild went in several slices, the event loop turned between two of them, and `done` came after the last. */
function expectAnsweredBetweenSlices(events: readonly string[], done: string): void {
  const first = events.indexOf('slice');
  const last = events.lastIndexOf('slice');
  expect(events.filter((e) => e === 'slice').length).toBeGreaterThanOrEqual(2);
  expect(events.slice(first, last)).toContain('ping');
  expect(events.indexOf(done)).toBeGreaterThan(last);
}

/** Each query's hits (ids, scores, order) over both scopes. */
function answers(s: Stores, queries: string[]): unknown[] {
  return queries.flatMap((q) => [U, U2].map((sc) => s.retrieval.search(sc, q, { limit: 50 }).map((h) => [h.id, h.score])));
}

/** The indexes here answer as indexes built from the tables now (a second Stores, no saved file). */
function expectCurrent(): void {
  expect(env.stores.retrieval.catchUp().left).toEqual([]);
  const queries = Array.from({ length: 20 }, texts(99).query);
  const here = answers(env.stores, queries);
  fs.rmSync(path.join(env.dir, SNAPSHOT_DIR), { recursive: true, force: true });
  expect(answers(env.second().stores, queries)).toEqual(here);
}

describe('index refresh without stalling (memory_cleanup compaction, the saga reindex, the nightly index_refresh)', () => {
  it('memory_cleanup compaction rebuilds a stale index in slices, the process answering between them; its answer and the index after are as before', async () => {
    staleIndex(4000, 1);
    const { events, stop } = recordEvents();
    const result = await Promise.resolve(env.stores.cleanup.run(U, { dryRun: false, tasks: ['compaction'] })).finally(() => events.push('done'));
    stop();
    expectAnsweredBetweenSlices(events, 'done');
    expect(result).toEqual({
      dry_run: false,
      tasks: ['compaction'],
      compaction: { old_texts: expect.any(Number), freelist_pages_before: expect.any(Number), freelist_pages_after: expect.any(Number), vacuum: expect.any(String), indexes_refreshed: true },
    });
    expect(result.compaction!.old_texts).toBeGreaterThan(0);
    expect(env.db.prepare('SELECT COUNT(*) FROM retrieval_changes WHERE old IS NOT NULL').pluck(true).get()).toBe(0);
    expectCurrent();
  });

  it('the saga reindex step rebuilds a stale index in slices, the process answering between them', async () => {
    staleIndex(4000, 2);
    const { events, stop } = recordEvents();
    const r = await env.stores.sagas.run('consolidate', U).finally(() => events.push('done'));
    stop();
    expect(r.steps.map((x) => [x.step, x.status, x.step === 'reindex' ? x.detail : null])).toEqual([
      ['consolidate', 'done', null],
      ['audit', 'done', null],
      ['reindex', 'done', { indexes: 'current' }],
    ]);
    expectAnsweredBetweenSlices(events, 'done');
    expectCurrent();
  });

  it('the nightly index_refresh phase rebuilds a stale index in slices, the process answering between them', async () => {
    staleIndex(4000, 3);
    env.clock.advance(3_600_000);
    const { events, stop } = recordEvents();
    const run = await env.stores.nightly.run().finally(() => events.push('done'));
    stop();
    const phases = run.results.find((sc) => sc.layer === U.layer && sc.user_id === U.user_id)!.phases;
    expect(phases.find((p) => p.phase === 'index_refresh')).toMatchObject({ status: 'ok', error: null });
    expectAnsweredBetweenSlices(events, 'done');
    expectCurrent();
  });

  it('the database closing during the compaction rebuild ends it cleanly: no error, no save after the close, indexes_refreshed false', async () => {
    staleIndex(4000, 4);
    const saved = path.join(env.dir, SNAPSHOT_DIR, 'l3.idx');
    const before = fs.readFileSync(saved);
    const { events, stop } = recordEvents();
    const run = Promise.resolve(env.stores.cleanup.run(U, { dryRun: false, tasks: ['compaction'] }));
    while (!events.includes('slice') && events.filter((e) => e === 'ping').length < 1000) await turn();
    env.db.close();
    const result = await run;
    for (let i = 0; i < 5; i++) await turn();
    stop();
    expect(result.compaction).toMatchObject({ vacuum: 'none', indexes_refreshed: false });
    expect(fs.readFileSync(saved).equals(before)).toBe(true);
  });

  it('a refresh started while another runs waits for it: it ends after it, with the indexes current', async () => {
    staleIndex(4000, 5);
    const order: string[] = [];
    const r = env.stores.retrieval;
    const first = r.refreshInSlices().then(() => order.push('first'));
    let leftAtSecond: string[] | null = null;
    const second = r.refreshInSlices().then((done) => {
      order.push('second');
      leftAtSecond = r.catchUp().left;
      return done;
    });
    expect(await second).toBe(true);
    await first;
    expect(order).toEqual(['first', 'second']);
    expect(leftAtSecond).toEqual([]);
    expectCurrent();
  });
});
