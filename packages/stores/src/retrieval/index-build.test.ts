import fs from 'node:fs';
import path from 'node:path';
import { seededRandom } from '@memory-service/kernel';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeEnv, type Env } from '../test-helpers.js';
import type { Scope } from '../types.js';
import type { Stores } from '../stores.js';
import { RetrievalIndex, SNAPSHOT_DIR } from './index-sync.js';
import { DEFAULT_SOURCES } from './retrieval.js';
import { IndexBuild } from './index-build.js';
import { INLINE_POSTINGS } from './small-postings.js';
import { SourceIndex, type SourceIndexState } from './term-index.js';

let env: Env;
/** The builds from a table in one block (RetrievalIndex's private build(source, false)): a build in slices falls back to one when the log calls for it. */
let oneBlock: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  env = makeEnv();
  oneBlock = vi.spyOn(RetrievalIndex.prototype as unknown as { build(source: string, saved: boolean): unknown }, 'build');
});
afterEach(() => {
  oneBlock.mockRestore();
  env.close();
});

/** How many one-block rebuilds (not reads of a saved file, not a build at a first search) were made. */
const rebuilds = () => oneBlock.mock.calls.filter((c: unknown[]) => c[1] === false).length;

const SCOPES: Scope[] = [
  { layer: 'user', user_id: 'default' },
  { layer: 'agent', user_id: 'default' },
  { layer: 'user', user_id: 'bob' },
  { layer: 'user', user_id: 'carol' },
];

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Seeded random texts over a small vocabulary, so queries match a few percent of each scope. */
function texts(seed: number) {
  const rand = seededRandom(seed);
  const vocab = Array.from({ length: 300 }, (_, i) => `w${(i * 7919).toString(36)}x`);
  const word = () => vocab[Math.floor(rand() * vocab.length)];
  const text = () => Array.from({ length: 3 + Math.floor(rand() * 15) }, word).join(' ');
  const scope = () => SCOPES[Math.floor(rand() * SCOPES.length)];
  const query = () => Array.from({ length: 1 + Math.floor(rand() * 3) }, word).join(' ');
  return { rand, text, scope, query };
}

/** Episodes, facts, nodes and pages over the scopes, written as one transaction. */
function fill(s: Stores, n: number, seed: number): void {
  const { rand, text, scope } = texts(seed);
  s.transaction(() => {
    for (let i = 0; i < n; i++) {
      const sc = scope();
      const r = rand();
      if (r < 0.7) s.episodes.add(sc, { summary: text(), tags: [text().split(' ')[0]], importance: Math.round(rand() * 10) / 10 });
      else if (r < 0.85) s.facts.upsert(sc, { key: `k${i}`, value: text(), importance: 0.5 });
      else if (r < 0.95) s.graph.addNode(sc, { node_type: 'concept', content: text() });
      else s.wiki.save(sc, { title: `Page ${i}`, content: text(), wiki_type: 'work_notes' });
    }
  });
}

/** The built index of each default source, as state() shows it, undefined for one not built (white-box). */
function states(s: Stores): Record<string, SourceIndexState | undefined> {
  const built = (s.retrieval as unknown as { index: { built: Map<string, { index: { state(): SourceIndexState } }> } }).index.built;
  return Object.fromEntries(DEFAULT_SOURCES.map((src) => [src, built.get(src)?.index.state()]));
}

/** Whether the default sources are all built (white-box). */
function builtSources(s: Stores): string[] {
  const built = (s.retrieval as unknown as { index: { built: Map<string, unknown> } }).index.built;
  return [...built.keys()].sort();
}

function answers(s: Stores, queries: string[], limit = 10) {
  return queries.flatMap((q) => SCOPES.map((sc) => s.retrieval.search(sc, q, { limit })));
}

describe('retrieval index built in slices (warmInSlices)', () => {
  it('builds exactly the index a one-block build makes: same contents, same answers, scores and order', async () => {
    fill(env.stores, 2500, 1);
    const queries = Array.from({ length: 30 }, texts(2).query);
    // The reference builds each source in one block (warm); the file it saves is removed, so the
    // build in slices reads the tables too.
    const ref = env.second().stores;
    ref.retrieval.warm();
    const refStates = states(ref);
    fs.rmSync(path.join(env.dir, SNAPSHOT_DIR), { recursive: true, force: true });
    const slices = env.stores.retrieval.warmInSlices(() => false, 0);
    let turns = 0;
    for (let done = false; !done; turns++) done = await Promise.race([slices.then(() => true), turn().then(() => false)]);
    // Many slices, each a turn of the event loop.
    expect(turns).toBeGreaterThan(20);
    expect(builtSources(env.stores)).toEqual([...DEFAULT_SOURCES].sort());
    expect(states(env.stores)).toEqual(refStates);
    expect(rebuilds()).toBe(0);
    expect(answers(env.stores, queries)).toEqual(answers(ref, queries));
  });

  it('counts writes made during the build once: the answers of a fresh build of the final tables', async () => {
    fill(env.stores, 2500, 3);
    const s = env.stores;
    const { text, scope, rand } = texts(4);
    const ids = s.episodes.list(SCOPES[0], { limit: 10_000 }).map((e) => e.id);
    const slices = s.retrieval.warmInSlices(() => false, 0);
    let done = false;
    void slices.then(() => (done = true));
    let writes = 0;
    while (!done) {
      // Between slices of both passes: inserts, edits and deletes, of rows read already and not yet.
      const r = rand();
      const id = ids[Math.floor(rand() * ids.length)];
      if (r < 0.4) s.episodes.add(scope(), { summary: text() });
      else if (r < 0.6 && id) s.facts.upsert(scope(), { key: `k${Math.floor(rand() * 2500)}`, value: text(), importance: 0.5 });
      else if (r < 0.8 && id) env.db.prepare('UPDATE episodes SET summary = ? WHERE id = ?').run(text(), Number(id.slice(3)));
      else if (id) {
        s.episodes.delete(SCOPES[0], id);
        ids.splice(ids.indexOf(id), 1);
      }
      writes++;
      await turn();
    }
    await slices;
    expect(writes).toBeGreaterThan(50);
    // Every write was taken in by the build's own catch-up, none by a rebuild from the tables.
    expect(rebuilds()).toBe(0);
    // No document counted twice or lost: the index holds exactly the table's rows.
    const built = (s.retrieval as unknown as { index: { built: Map<string, { index: { live: number } }> } }).index.built;
    for (const [src, table] of [['l3', 'episodes'], ['l4', 'facts'], ['graph', 'graph_nodes'], ['wiki', 'wiki_pages']] as const) {
      expect(built.get(src)?.index.live).toBe((env.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n);
    }
    // A fresh build from the final tables (not the file the warm-up saved) answers the same, to the score.
    fs.rmSync(path.join(env.dir, SNAPSHOT_DIR), { recursive: true, force: true });
    const fresh = env.second().stores;
    const queries = Array.from({ length: 30 }, texts(5).query);
    // A limit past every match, so each search scores all its candidates (the order documents
    // were indexed in, which writes during a build change, then decides no tie at the pool's edge).
    expect(answers(s, queries, 200)).toEqual(answers(fresh, queries, 200));
  });

  it('a search during the build reads the rest of its source at once, and answers as after a full build', async () => {
    fill(env.stores, 1500, 6);
    const queries = Array.from({ length: 10 }, texts(7).query);
    const ref = env.second().stores;
    const expected = answers(ref, queries);
    const slices = env.stores.retrieval.warmInSlices(() => false, 0);
    for (let i = 0; i < 5; i++) await turn();
    expect(builtSources(env.stores)).toEqual([]);
    expect(answers(env.stores, queries)).toEqual(expected);
    await slices;
    expect(states(env.stores)).toEqual(states(ref));
  });

  it('a search inside a transaction during the build scores the scope from its rows, as before any build', async () => {
    fill(env.stores, 1500, 8);
    const queries = Array.from({ length: 10 }, texts(9).query);
    const expected = answers(env.second().stores, queries, 200);
    const slices = env.stores.retrieval.warmInSlices(() => false, 0);
    for (let i = 0; i < 5; i++) await turn();
    expect(env.stores.transaction(() => answers(env.stores, queries, 200))).toEqual(expected);
    await slices;
    expect(answers(env.stores, queries, 200)).toEqual(expected);
  });

  it('stops between slices when asked (the server closing), leaving the sources unbuilt', async () => {
    fill(env.stores, 1500, 10);
    let stop = false;
    const slices = env.stores.retrieval.warmInSlices(() => stop, 0);
    for (let i = 0; i < 5; i++) await turn();
    stop = true;
    await slices;
    expect(builtSources(env.stores)).toEqual([]);
    expect(fs.existsSync(path.join(env.dir, SNAPSHOT_DIR, 'l3.idx'))).toBe(false);
    // The next search builds as before.
    expect(env.stores.retrieval.search(SCOPES[0], 'anything at all')).toEqual([]);
  });

  it('waits while a transaction is open on the connection: rows it wrote and rolled back are never indexed', async () => {
    fill(env.stores, 1500, 12);
    const slices = env.stores.retrieval.warmInSlices(() => false, 0);
    for (let i = 0; i < 3; i++) await turn();
    env.db.exec('BEGIN');
    for (let i = 0; i < 200; i++) env.stores.episodes.add(SCOPES[0], { summary: `rolled back entry ${i}` });
    // Long enough for the episodes' whole build, had its slices not waited.
    for (let i = 0; i < 200; i++) await new Promise((r) => setTimeout(r, 1));
    env.db.exec('ROLLBACK');
    await slices;
    expect(rebuilds()).toBe(0);
    const built = (env.stores.retrieval as unknown as { index: { built: Map<string, { index: { live: number } }> } }).index.built;
    expect(built.get('l3')?.index.live).toBe((env.db.prepare('SELECT count(*) AS n FROM episodes').get() as { n: number }).n);
  });

  it('lets the event loop turn while it builds 20,000 memories', async () => {
    const insert = env.db.prepare("INSERT INTO episodes (layer, user_id, summary, tags, created) VALUES ('user', 'default', ?, '[]', '2024-01-01T00:00:00.000Z')");
    const { text } = texts(11);
    env.db.transaction(() => {
      for (let i = 0; i < 20_000; i++) insert.run(text());
    })();
    let turns = 0;
    let done = false;
    const tick = () => {
      turns++;
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    await env.stores.retrieval.warmInSlices();
    done = true;
    expect(builtSources(env.stores)).toEqual([...DEFAULT_SOURCES].sort());
    // Slices of about 10 ms: a build of 0.5-1.5 s turns the loop dozens of times (the one-block build: never).
    expect(turns).toBeGreaterThan(10);
  });
});

describe('stale index rebuilt in slices (refreshInSlices, once writes stop)', () => {
  /** A built index whose log then calls for a rebuild: more than half of its episodes edited. */
  function staleIndex(seedNo: number): void {
    fill(env.stores, 2000, seedNo);
    env.stores.retrieval.warm();
    const { text } = texts(seedNo + 100);
    const update = env.db.prepare('UPDATE episodes SET summary = ? WHERE id = ?');
    env.stores.transaction(() => {
      for (const e of SCOPES.flatMap((sc) => env.stores.episodes.list(sc, { limit: 10_000 }))) update.run(text(), Number(e.id.slice(3)));
    });
    expect(env.stores.retrieval.catchUp().left).toContain('l3');
  }

  it('rebuilds it a turn at a time, writes during the rebuild counted once, and answers as a fresh build', async () => {
    staleIndex(20);
    const s = env.stores;
    const { text, scope, rand } = texts(21);
    const refresh = s.retrieval.refreshInSlices(() => false, 0);
    let done = false;
    void refresh.then(() => (done = true));
    let turns = 0;
    while (!done) {
      if (rand() < 0.5) s.episodes.add(scope(), { summary: text() });
      else s.graph.addNode(scope(), { node_type: 'concept', content: text() });
      turns++;
      await turn();
    }
    expect(turns).toBeGreaterThan(20);
    expect(rebuilds()).toBe(0);
    expect(s.retrieval.catchUp().left).toEqual([]);
    fs.rmSync(path.join(env.dir, SNAPSHOT_DIR), { recursive: true, force: true });
    const fresh = env.second().stores;
    const queries = Array.from({ length: 30 }, texts(22).query);
    expect(answers(s, queries, 200)).toEqual(answers(fresh, queries, 200));
  });

  it('a search during the rebuild reads the rest of it at once, and answers as a fresh build', async () => {
    staleIndex(23);
    const refresh = env.stores.retrieval.refreshInSlices(() => false, 0);
    for (let i = 0; i < 5; i++) await turn();
    fs.rmSync(path.join(env.dir, SNAPSHOT_DIR), { recursive: true, force: true });
    const queries = Array.from({ length: 10 }, texts(24).query);
    expect(answers(env.stores, queries, 200)).toEqual(answers(env.second().stores, queries, 200));
    await refresh;
    expect(env.stores.retrieval.catchUp().left).toEqual([]);
  });
});

describe('IndexBuild', () => {
  /** A table of rows 1..n in memory whose log seq the test moves between slices. */
  function table(n: number) {
    const t = {
      seq: 100,
      ids: Array.from({ length: n }, (_, i) => i + 1),
      snapshot: <T>(fn: () => T): T => fn(),
      maxSeq: () => t.seq,
      *rowsAfter(after: number) {
        for (const id of t.ids) if (id > after) yield { id, scope: `user/${id % 3}`, facet: null, columns: [`word${id % 7} other${id % 5}`] };
      },
    };
    return t;
  }

  it('records the seq each row was read at: the slice whose id range holds it', () => {
    const t = table(100);
    const job = new IndexBuild(t, { weights: [1], own: 1 }, INLINE_POSTINGS, Number.POSITIVE_INFINITY);
    // A deadline already past: a slice reads one batch of 32 rows.
    for (let i = 0; !job.done; i++) {
      t.seq++;
      job.step(0);
    }
    // The first pass took 4 slices (seqs 101-104), the second 4 more (105-108): 1-32, 33-64, 65-96, the rest.
    expect(job.firstSeq).toBe(105);
    expect([1, 32, 33, 64, 65, 96, 97, 100, 5000].map((id) => job.seqOf(id))).toEqual([105, 105, 106, 106, 107, 107, 108, 108, 108]);
    expect(job.index.live).toBe(100);
    expect(job.movedSince(108)).toBe(true);
  });

  it('fills the index a one-block load makes, rows removed between its passes leaving no term behind', () => {
    const t = table(100);
    const job = new IndexBuild(t, { weights: [1], own: 1 }, INLINE_POSTINGS, Number.POSITIVE_INFINITY);
    job.step(Number.POSITIVE_INFINITY);
    // Between the passes every row of scope user/0, and every row holding word6, goes.
    t.ids = t.ids.filter((id) => id % 3 !== 0 && id % 7 !== 6);
    t.seq++;
    job.finish();
    job.index.dropUnreserved();
    const ref = new SourceIndex([1]);
    ref.load(() => t.rowsAfter(0));
    const { parts, ...rest } = job.index.state();
    const { parts: refParts, ...refRest } = ref.state();
    expect(rest.live).toBe(refRest.live);
    expect([...rest.slotDoc]).toEqual([...refRest.slotDoc]);
    expect(parts.map((p) => [p.scope, p.docs, p.terms.map((x) => [x.stem, x.df, x.n, [...x.bytes]]).sort()])).toEqual(
      refParts.map((p) => [p.scope, p.docs, p.terms.map((x) => [x.stem, x.df, x.n, [...x.bytes]]).sort()]),
    );
  });
});
