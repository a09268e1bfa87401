import fs from 'node:fs';
import path from 'node:path';
import { openSqlite } from '@memory-service/kernel';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { A, U, makeEnv, type Env } from '../test-helpers.js';
import { CHANGE_LOG_KEEP, CHANGE_LOG_TRIM_EVERY } from '../migrations/retrieval-changes.js';
import { SNAPSHOT_DIR } from './index-sync.js';
import type { Stores } from '../stores.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

const texts = (e: Env, q: string, opts = {}) => e.stores.retrieval.search(U, q, opts).map((h) => h.text);

/** A fresh Stores on the same database: its index is built from the tables, so it is the reference. */
const rebuilt = (e: Env, q: string, opts = {}) => e.second().stores.retrieval.search(U, q, opts);

describe('retrieval index kept in step with the tables', () => {
  it('sees inserts, updates and deletes made after it was built, and scores like a fresh build', () => {
    const s = env.stores;
    s.episodes.add(U, { summary: 'Melanie painted a sunrise over the lake.' });
    expect(texts(env, 'painted')).toHaveLength(1);
    const barn = s.episodes.add(U, { summary: 'Melanie painted a barn.' });
    expect(texts(env, 'painted')).toHaveLength(2);
    env.db.prepare('UPDATE episodes SET summary = ? WHERE id = ?').run('Melanie sketched a barn.', Number(barn.id.slice(3)));
    expect(texts(env, 'painted')).toEqual(['Melanie painted a sunrise over the lake.']);
    expect(texts(env, 'sketched')).toEqual(['Melanie sketched a barn.']);
    s.episodes.delete(U, barn.id);
    expect(texts(env, 'sketched')).toEqual([]);
    s.facts.upsert(U, { key: 'boat', value: 'a red kayak', importance: 0.6 });
    s.facts.upsert(U, { key: 'boat', value: 'a green canoe', importance: 0.6 });
    expect(texts(env, 'kayak')).toEqual([]);
    expect(texts(env, 'canoe')).toEqual(['boat: a green canoe']);
    for (const q of ['Melanie painted lake', 'boat canoe', 'barn']) expect(s.retrieval.search(U, q)).toEqual(rebuilt(env, q));
  });

  it('takes back nothing a rollback undid, and sees the open transaction’s own writes', () => {
    const s = env.stores;
    s.episodes.add(U, { summary: 'Melanie painted a fence.' });
    expect(texts(env, 'fence')).toHaveLength(1);
    try {
      s.transaction(() => {
        s.episodes.add(U, { summary: 'Caroline painted a second fence.' });
        const first = s.episodes.list(U).find((e) => e.summary.includes('Melanie'))!;
        s.episodes.delete(U, first.id);
        expect(texts(env, 'fence')).toEqual(['Caroline painted a second fence.']);
        throw new Error('roll back');
      });
    } catch {
      // rolled back on purpose
    }
    expect(texts(env, 'fence')).toEqual(['Melanie painted a fence.']);
    s.episodes.add(U, { summary: 'Another fence, committed.' });
    expect(texts(env, 'fence').sort()).toEqual(['Another fence, committed.', 'Melanie painted a fence.']);
  });

  it('answers inside a transaction before any index was built', () => {
    const s = env.stores;
    s.episodes.add(U, { summary: 'The violin stayed in the garden shed.' });
    s.episodes.add(A, { summary: 'Agent note on the violin.' });
    const inside = s.transaction(() => {
      s.episodes.add(U, { summary: 'A second violin arrived.' });
      return texts(env, 'violin');
    });
    expect(inside.sort()).toEqual(['A second violin arrived.', 'The violin stayed in the garden shed.']);
    expect(texts(env, 'violin').sort()).toEqual(inside.sort());
  });

  it('warm() builds the default sources, so the first search builds nothing; inside a transaction it does nothing', () => {
    const s = env.stores;
    s.episodes.add(U, { summary: 'A heron stood in the reeds.' });
    const builds: string[] = [];
    const stmt = s.ctx.stmt.bind(s.ctx);
    s.ctx.stmt = (sql: string) => {
      if (sql.includes('ORDER BY id')) builds.push(sql);
      return stmt(sql);
    };
    s.transaction(() => s.retrieval.warm());
    expect(builds).toHaveLength(0);
    s.retrieval.warm();
    expect(builds.map((q) => q.match(/FROM (\w+)/)?.[1]).sort()).toEqual(['episodes', 'facts', 'graph_nodes', 'wiki_pages']);
    expect(texts(env, 'heron')).toEqual(['A heron stood in the reeds.']);
    expect(builds).toHaveLength(4);
  });

  it('sees what another connection wrote', () => {
    expect(texts(env, 'kayak')).toEqual([]);
    env.second().stores.episodes.add(U, { summary: 'Caroline bought a kayak.' });
    expect(texts(env, 'kayak')).toEqual(['Caroline bought a kayak.']);
  });

  it('once its indexes are current, checks the log with the rows it reads, and still sees what another connection changed', () => {
    const s = env.stores;
    const kept = s.episodes.add(U, { summary: 'Caroline bought a kayak.' });
    const gone = s.episodes.add(U, { summary: 'Melanie sold her kayak.' });
    expect(texts(env, 'kayak')).toHaveLength(2);
    const ctx = s.ctx;
    const stmt = ctx.stmt.bind(ctx);
    const reads: string[] = [];
    ctx.stmt = (sql: string) => {
      reads.push(sql);
      return stmt(sql);
    };
    const logReads = () => reads.filter((sql) => sql === 'SELECT max(seq) FROM retrieval_changes').length;
    // Nothing changed: the rows' statement is the search's only read of the log.
    expect(texts(env, 'kayak')).toHaveLength(2);
    expect(logReads()).toBe(0);
    expect(reads.filter((sql) => sql.includes('CROSS JOIN'))).toHaveLength(1);
    // Another connection adds a match: the rows show the log moved, and the search is done again.
    const second = env.second();
    const other = second.stores;
    other.episodes.add(U, { summary: 'Dana rented a kayak.' });
    expect(texts(env, 'kayak').sort()).toEqual(['Caroline bought a kayak.', 'Dana rented a kayak.', 'Melanie sold her kayak.']);
    // It deletes every contender of a query: the rows read finds none of them, and the log is read.
    other.episodes.delete(U, gone.id);
    expect(texts(env, 'sold')).toEqual([]);
    // It changes a record no query term reaches any more: no contender at all, and the log is read.
    second.db.prepare('UPDATE episodes SET summary = ? WHERE id = ?').run('Caroline bought a canoe.', Number(kept.id.slice(3)));
    expect(texts(env, 'canoe')).toEqual(['Caroline bought a canoe.']);
    // A write of this process not taken in yet is seen the same way.
    s.episodes.add(U, { summary: 'Erin painted a kayak.' });
    expect(texts(env, 'kayak').sort()).toEqual(['Dana rented a kayak.', 'Erin painted a kayak.']);
    for (const q of ['kayak', 'canoe', 'sold']) expect(s.retrieval.search(U, q)).toEqual(rebuilt(env, q));
  });

  it('keeps wiki_type changes for the wiki_type filter', () => {
    const s = env.stores;
    s.wiki.save(U, { title: 'Trip', content: 'We walked along the harbour.', wiki_type: 'diary' });
    expect(texts(env, 'harbour', { sources: ['wiki'], wiki_type: 'diary' })).toHaveLength(1);
    s.wiki.save(U, { title: 'Trip', content: 'We walked along the harbour.', wiki_type: 'retrospective' });
    expect(texts(env, 'harbour', { sources: ['wiki'], wiki_type: 'diary' })).toEqual([]);
    expect(texts(env, 'harbour', { sources: ['wiki'], wiki_type: 'retrospective' })).toHaveLength(1);
  });

  it('rebuilds when the change log was trimmed past what it had applied', () => {
    const s = env.stores;
    s.episodes.add(U, { summary: 'first heron sighting' });
    expect(texts(env, 'heron')).toHaveLength(1);
    // Another process writes enough for the log to be trimmed beyond this index's cursor.
    const other = env.second().stores;
    const total = CHANGE_LOG_KEEP + CHANGE_LOG_TRIM_EVERY;
    other.transaction(() => {
      for (let i = 0; i < total; i++) other.timeline.add(U, { type: 'note', summary: `entry ${i}` });
    });
    other.episodes.add(U, { summary: 'second heron sighting' });
    const min = (env.db.prepare('SELECT min(seq) AS m FROM retrieval_changes').get() as { m: number }).m;
    expect(min).toBeGreaterThan(2);
    expect(texts(env, 'heron').sort()).toEqual(['first heron sighting', 'second heron sighting']);
  });
});

describe('retrieval index and a database copied in (a restore)', () => {
  // Regression guard, fixed: an index past the log's newest seq (a restore's copy brought back the
  // backup's log, before the restore restarted it) was kept as current, though it described the
  // records from before the copy.
  it('an index whose cursor is past the log, which only a copy of another database brings, is rebuilt from the tables', async () => {
    const s = env.stores;
    const b = env.second().stores;
    const base = s.episodes.add(U, { summary: 'The harbour ferry leaves at dawn.' });
    const taken = await s.backups.create();
    s.episodes.delete(U, base.id);
    s.episodes.add(U, { summary: 'Bought a kiwi at the market.' });
    expect(b.retrieval.search(U, 'kiwi').map((h) => h.text)).toEqual(['Bought a kiwi at the market.']);
    const cursor = b.retrieval.changeSeq();
    // The copy alone, as a restore makes it, without what it does after.
    const src = openSqlite(path.join(env.dir, 'backups', taken.name), { readonly: true, fileMustExist: true });
    await src.backup(env.db.name);
    src.close();
    expect(b.retrieval.changeSeq()).toBeLessThan(cursor);
    expect(b.retrieval.search(U, 'harbour ferry').map((h) => h.text)).toEqual(['The harbour ferry leaves at dawn.']);
    expect(b.retrieval.search(U, 'kiwi')).toEqual([]);
  });
});

describe('saved retrieval indexes', () => {
  /** The tables each search of `stores` built its index from (a saved index read builds none). */
  const watchBuilds = (stores: Stores) => {
    const builds: string[] = [];
    const stmt = stores.ctx.stmt.bind(stores.ctx);
    stores.ctx.stmt = (sql: string) => {
      if (sql.includes('ORDER BY id')) builds.push(sql.match(/FROM (\w+)/)?.[1] ?? sql);
      return stmt(sql);
    };
    return builds;
  };
  /** A Stores on the same database with no saved index to read: the reference answers. */
  const built = (e: Env) => {
    fs.rmSync(path.join(e.dir, SNAPSHOT_DIR), { recursive: true, force: true });
    return e.second().stores;
  };
  const queries = ['Melanie painted lake', 'kayak', 'harbour ferry', 'canoe boat', 'violin'];
  const seed = (s: Stores) => {
    s.episodes.add(U, { summary: 'Melanie painted a sunrise over the lake.' });
    s.episodes.add(U, { summary: 'Caroline took the ferry across the harbour.' });
    s.episodes.add(A, { summary: 'Agent note: the ferry runs hourly.' });
    s.facts.upsert(U, { key: 'boat', value: 'a red kayak', importance: 0.6 });
    s.wiki.save(U, { title: 'Trip', content: 'We walked along the harbour.', wiki_type: 'diary' });
  };

  it('warm() saves what it built; the next start reads it, builds nothing and answers the same', () => {
    seed(env.stores);
    env.stores.retrieval.warm();
    expect(fs.readdirSync(path.join(env.dir, SNAPSHOT_DIR)).sort()).toEqual(['graph.idx', 'l3.idx', 'l4.idx', 'wiki.idx']);
    const next = env.second().stores;
    const builds = watchBuilds(next);
    next.retrieval.warm();
    for (const q of queries) expect(next.retrieval.search(U, q)).toEqual(env.stores.retrieval.search(U, q));
    expect(builds).toEqual([]);
  });

  it('a start that reads a saved index applies what changed after the save, from any connection', () => {
    const s = env.stores;
    seed(s);
    s.retrieval.warm();
    const barn = s.episodes.add(U, { summary: 'Melanie painted a barn by the lake.' });
    s.episodes.delete(U, s.episodes.list(U).find((e) => e.summary.includes('ferry'))!.id);
    env.second().stores.facts.upsert(U, { key: 'boat', value: 'a green canoe', importance: 0.6 });
    env.db.prepare('UPDATE episodes SET summary = ? WHERE id = ?').run('Melanie sketched a barn by the lake.', Number(barn.id.slice(3)));
    const next = env.second().stores;
    const builds = watchBuilds(next);
    const answers = queries.map((q) => next.retrieval.search(U, q));
    expect(builds).toEqual([]);
    const reference = built(env);
    expect(answers).toEqual(queries.map((q) => reference.retrieval.search(U, q)));
    expect(answers[3].map((h) => h.text)).toEqual(['boat: a green canoe']);
  });

  it('persist() on close saves the indexes that moved past their last save, and the next start reads them', () => {
    const s = env.stores;
    seed(s);
    s.retrieval.warm();
    expect(s.retrieval.persist()).toEqual([]);
    s.episodes.add(U, { summary: 'A violin case by the door.' });
    expect(s.retrieval.search(U, 'violin', { sources: ['l3'] })).toHaveLength(1);
    // Only the searched source applied the log; the others still hold what they saved.
    expect(s.retrieval.persist()).toEqual(['l3']);
    expect(s.retrieval.persist()).toEqual([]);
    const next = env.second().stores;
    const builds = watchBuilds(next);
    expect(next.retrieval.search(U, 'violin').map((h) => h.text)).toEqual(['A violin case by the door.']);
    expect(builds).toEqual([]);
  });

  it('builds instead when the file is not the last one saved for this database, is damaged, or is missing', () => {
    seed(env.stores);
    env.stores.retrieval.warm();
    const file = path.join(env.dir, SNAPSHOT_DIR, 'l3.idx');
    const saved = fs.readFileSync(file);
    const check = (what: string) => {
      const next = env.second().stores;
      const builds = watchBuilds(next);
      for (const q of queries) expect(next.retrieval.search(U, q), what).toEqual(env.stores.retrieval.search(U, q));
      expect(builds, what).toContain('episodes');
    };
    // The database records another save (a copy of the data dir, or a save cut off before its record).
    env.db.prepare("UPDATE retrieval_snapshots SET token = 'other' WHERE source = 'l3'").run();
    check('token');
    env.stores.retrieval.persist();
    env.db.prepare("UPDATE retrieval_snapshots SET cursor = cursor + 1 WHERE source = 'l3'").run();
    check('cursor');
    fs.writeFileSync(file, saved.subarray(0, saved.length - 3));
    check('cut short');
    fs.rmSync(file);
    check('missing');
  });

  it('builds instead when the change log no longer holds everything after the saved cursor', () => {
    const s = env.stores;
    s.episodes.add(U, { summary: 'first heron sighting' });
    s.retrieval.warm();
    const other = env.second().stores;
    other.transaction(() => {
      for (let i = 0; i < CHANGE_LOG_KEEP + CHANGE_LOG_TRIM_EVERY; i++) other.timeline.add(U, { type: 'note', summary: `entry ${i}` });
    });
    other.episodes.add(U, { summary: 'second heron sighting' });
    const next = env.second().stores;
    const builds = watchBuilds(next);
    expect(next.retrieval.search(U, 'heron').map((h) => h.text).sort()).toEqual(['first heron sighting', 'second heron sighting']);
    expect(builds).toContain('episodes');
  });
});
