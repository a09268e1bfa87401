import fs from 'node:fs';
import path from 'node:path';
import { L1_FLUSH_MS, L1_RETRY_MAX_MS, L1_TRIM_EVERY, MAX_RING_FILE_BYTES, NEWEST_KEPT, NEWEST_SCOPES_MAX, NEWEST_TEXT_CHARS, TRIM_COUNTS_MAX } from './l1.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Stores } from './stores.js';
import { A, U, U2, makeEnv, recordingLogger, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv({ l1Size: 5 });
});
afterEach(() => env.close());

describe('L1Ring', () => {
  it('keeps the newest l1Size items, oldest first, and mirrors them in the JSON file', () => {
    for (let i = 0; i < 8; i++) env.stores.l1.push(U, { text: `item ${i}`, kind: 'user' });
    const items = env.stores.l1.list(U);
    expect(items.map((i) => i.text)).toEqual(['item 3', 'item 4', 'item 5', 'item 6', 'item 7']);
    expect(env.stores.l1.list(U, 2).map((i) => i.text)).toEqual(['item 6', 'item 7']);
    env.stores.flush();
    const file = env.stores.l1.fileFor(U);
    expect(file).toBe(path.join(env.dir, 'l1', 'user', 'default.json'));
    const body = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(body.items.map((i: { text: string }) => i.text)).toEqual(items.map((i) => i.text));
    expect(fs.readdirSync(path.dirname(file)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('reconcileFiles() rewrites the files a stopped process left behind their rings, and only those', () => {
    env.stores.l1.push(U, { text: 'flushed' });
    env.stores.l1.push(U2, { text: 'flushed too' });
    env.stores.flush();
    // A process killed between its pushes and their flush: the rows are there, the files are not.
    const killed = env.second().stores;
    killed.l1.push(U, { text: 'pushed, never flushed' });
    killed.l1.push(A, { text: 'a scope with no file yet' });
    const fresh = env.second().stores;
    expect(fresh.l1.reconcileFiles()).toBe(2);
    fresh.flush();
    const lastText = (scope: typeof U) => JSON.parse(fs.readFileSync(fresh.l1.fileFor(scope), 'utf8')).items.at(-1).text;
    expect(lastText(U)).toBe('pushed, never flushed');
    expect(lastText(A)).toBe('a scope with no file yet');
    expect(lastText(U2)).toBe('flushed too');
    expect(fresh.l1.reconcileFiles()).toBe(0);
    fs.writeFileSync(fresh.l1.fileFor(U2), '{ not json');
    expect(fresh.l1.reconcileFiles()).toBe(1);
  });

  it("reconcileFiles() removes a file under an older build's name for the scope it holds, never a scope's current file", () => {
    const l1 = env.stores.l1;
    const dir = path.join(env.dir, 'l1', 'user');
    const NUL = { layer: 'user' as const, user_id: 'nul' };
    const SPELLED = { layer: 'user' as const, user_id: 'alice-3bc5106297' };
    const ALICE = { layer: 'user' as const, user_id: 'Alice' };
    l1.push(NUL, { text: 'the numbat secret' });
    l1.push(SPELLED, { text: 'spelled like a hash' });
    env.stores.flush();
    // An older build named a file by the id itself whenever it was its own slug: nul.json, and
    // alice-3bc5106297.json, which is the current name of Alice's file (idSegment hashes both now).
    expect(path.basename(l1.fileFor(NUL))).toMatch(/^nul-x-[0-9a-f]{10}\.json$/);
    expect(l1.fileFor(ALICE)).toBe(path.join(dir, 'alice-3bc5106297.json'));
    const old = (name: string, scope: { layer: string; user_id: string }, text: string) => {
      const item = { id: 'l1_99', text, kind: null, ref: null, created: '2025-01-01T00:00:00.000Z' };
      fs.writeFileSync(path.join(dir, name), JSON.stringify({ ...scope, size: 5, items: [item] }));
    };
    old('nul.json', NUL, 'the numbat secret');
    old('alice-3bc5106297.json', SPELLED, 'spelled like a hash');
    // A file of a scope with no ring under its current name is emptied, not removed; an unreadable
    // file and one naming no valid scope are left to memory_diagnose and memory_heal.
    old('carol.json', { layer: 'user', user_id: 'carol' }, 'carol text');
    fs.writeFileSync(path.join(dir, 'broken.json'), '{ not json');
    fs.writeFileSync(path.join(dir, 'nobody.json'), JSON.stringify({ layer: 'team', user_id: 'x', items: [] }));
    // The same file as a scope's current one under another name (a hard link, as a name differing
    // in case is on a disk that ignores case) is never removed.
    fs.linkSync(l1.fileFor(NUL), path.join(dir, 'linked.json'));
    const next = env.second().stores;
    expect(next.repairAfterStop()).toEqual({ l1_files: 3, wiki_files: 0 });
    expect(fs.readdirSync(dir).sort()).toEqual(
      [path.basename(l1.fileFor(SPELLED)), 'broken.json', 'carol.json', 'linked.json', path.basename(l1.fileFor(NUL)), 'nobody.json'].sort(),
    );
    // Forgetting now leaves the text in no file of the service's (the link keeps the file it named,
    // now another file than the ring's: the next start removes it).
    next.l1.deleteMatching(NUL, 'numbat');
    next.flush();
    for (const name of fs.readdirSync(dir)) {
      if (name !== 'linked.json') expect(fs.readFileSync(path.join(dir, name), 'utf8')).not.toContain('numbat');
    }
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'carol.json'), 'utf8')).items).toEqual([]);
    // Under a name that is now another scope's, with a ring: the file is that scope's, rewritten.
    old('alice-3bc5106297.json', SPELLED, 'spelled like a hash');
    next.l1.push(ALICE, { text: "Alice's own" });
    const third = env.second().stores;
    third.repairAfterStop();
    third.flush();
    expect(fs.existsSync(path.join(dir, 'linked.json'))).toBe(false);
    const body = JSON.parse(fs.readFileSync(path.join(dir, 'alice-3bc5106297.json'), 'utf8'));
    expect(body).toMatchObject({ layer: 'user', user_id: 'Alice', items: [{ text: "Alice's own" }] });
  });

  it('reconcileFiles() rewrites a file over MAX_RING_FILE_BYTES without reading it', () => {
    env.stores.l1.push(U, { text: 'kept' });
    env.stores.flush();
    const file = env.stores.l1.fileFor(U);
    fs.truncateSync(file, MAX_RING_FILE_BYTES + 1);
    const read = vi.spyOn(fs, 'readFileSync');
    try {
      expect(env.stores.l1.reconcileFiles()).toBe(1);
      expect(read.mock.calls.filter(([f]) => f === file)).toEqual([]);
    } finally {
      read.mockRestore();
    }
    env.stores.flush();
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).items.map((i: { text: string }) => i.text)).toEqual(['kept']);
  });

  it('reconcileFiles() rewrites a file whose items hold a null or a number, instead of throwing', () => {
    env.stores.l1.push(U, { text: 'kept' });
    env.stores.flush();
    const file = env.stores.l1.fileFor(U);
    fs.writeFileSync(file, JSON.stringify({ layer: 'user', user_id: 'default', size: 5, items: [null, 7] }));
    // A file of no ring (another scope's) with such items is left alone, not a throw either.
    fs.writeFileSync(path.join(path.dirname(file), 'other.json'), JSON.stringify({ layer: 'user', user_id: 'other', items: [null] }));
    expect(env.stores.l1.reconcileFiles()).toBe(1);
    env.stores.flush();
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).items.map((i: { text: string }) => i.text)).toEqual(['kept']);
  });

  it('reconcileFiles() rewrites the files that still hold items a stopped process deleted from their rings', () => {
    env.stores.l1.push(U, { text: 'kept before' });
    env.stores.l1.push(U, { text: 'the secret to forget' });
    env.stores.l1.push(U, { text: 'kept after' });
    env.stores.l1.push(U2, { text: 'the only item, cleared' });
    env.stores.l1.push(A, { text: 'untouched' });
    env.stores.flush();
    // Killed within L1_FLUSH_MS of its deletes: the rows are gone, the files still hold them.
    const killed = env.second().stores;
    expect(killed.l1.deleteMatching(U, 'secret')).toHaveLength(1);
    expect(killed.l1.clear(U2)).toBe(1);
    const fresh = env.second().stores;
    expect(fresh.l1.reconcileFiles()).toBe(2);
    fresh.flush();
    const texts = (scope: typeof U) => JSON.parse(fs.readFileSync(fresh.l1.fileFor(scope), 'utf8')).items.map((i: { text: string }) => i.text);
    expect(texts(U)).toEqual(['kept before', 'kept after']);
    expect(texts(U2)).toEqual([]);
    expect(texts(A)).toEqual(['untouched']);
    expect(fresh.l1.reconcileFiles()).toBe(0);
  });

  it('writes the file within L1_FLUSH_MS of a burst of pushes, not on every push', async () => {
    const file = env.stores.l1.fileFor(U);
    env.stores.l1.push(U, { text: 'first' });
    env.stores.l1.push(U, { text: 'second' });
    expect(fs.existsSync(file)).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, L1_FLUSH_MS + 30));
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).items.map((i: { text: string }) => i.text)).toEqual(['first', 'second']);
  });

  it("never waits on the timer for another process's write lock: the file is written once the lock is free", async () => {
    env.db.pragma('busy_timeout = 60000');
    const file = env.stores.l1.fileFor(U);
    env.stores.l1.push(U, { text: 'pushed' });
    const other = env.second();
    other.db.exec('BEGIN IMMEDIATE');
    await new Promise((resolve) => setTimeout(resolve, L1_FLUSH_MS + 30));
    expect(fs.existsSync(file)).toBe(false);
    other.db.exec('COMMIT');
    await new Promise((resolve) => setTimeout(resolve, L1_FLUSH_MS + 30));
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).items.map((i: { text: string }) => i.text)).toEqual(['pushed']);
  });

  it('a file that cannot be written never throws from the timer: logged, the scope stays dirty and is written once it can be', () => {
    env.close();
    const logger = recordingLogger();
    env = makeEnv({ l1Size: 5 }, logger);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const file = env.stores.l1.fileFor(U);
      env.stores.l1.push(U, { text: 'first' });
      vi.advanceTimersByTime(L1_FLUSH_MS);
      expect(fs.existsSync(file)).toBe(true);
      // A folder where the file goes: the write fails as on a read-only or full disk (even as root).
      fs.rmSync(file);
      fs.mkdirSync(file);
      env.stores.l1.push(U, { text: 'second' });
      vi.advanceTimersByTime(L1_FLUSH_MS);
      expect(logger.lines.filter((l) => l.level === 'error')).toHaveLength(1);
      expect(logger.lines[0]!.message).toMatch(/L1 file of user\/default.*(EISDIR|EPERM|EACCES)/);
      // Tried again later, each time after a longer delay (no tight loop), never throwing.
      vi.advanceTimersByTime(L1_FLUSH_MS);
      expect(logger.lines.filter((l) => l.level === 'error')).toHaveLength(2);
      vi.advanceTimersByTime(L1_FLUSH_MS * 2 - 1);
      expect(logger.lines.filter((l) => l.level === 'error')).toHaveLength(2);
      vi.advanceTimersByTime(1);
      expect(logger.lines.filter((l) => l.level === 'error')).toHaveLength(3);
      expect(() => env.stores.l1.flush(false)).not.toThrow();
      expect(() => env.stores.flush()).not.toThrow();
      expect(env.stores.l1.list(U).map((i) => i.text)).toEqual(['first', 'second']);
      // Unblocked: the scope is still dirty, and the next try writes the ring, with no new push.
      fs.rmdirSync(file);
      vi.advanceTimersByTime(L1_RETRY_MAX_MS);
      expect(JSON.parse(fs.readFileSync(file, 'utf8')).items.map((i: { text: string }) => i.text)).toEqual(['first', 'second']);
      expect(logger.lines.at(-1)).toEqual({ level: 'info', message: 'L1 files are written again' });
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('deleteSince() removes the items created since, from the table, the newest copy and the file', () => {
    env.stores.l1.push(U, { text: 'old' });
    env.clock.advance(60_000);
    const since = new Date(env.clock.now()).toISOString();
    env.stores.l1.push(U, { text: 'new 1' });
    env.stores.l1.push(U, { text: 'new 2' });
    env.stores.l1.push(A, { text: 'agent' });
    expect(env.stores.l1.latest(U)?.text).toBe('new 2');
    expect(env.stores.l1.deleteSince(U, since)).toBe(2);
    expect(env.stores.l1.list(U).map((i) => i.text)).toEqual(['old']);
    expect(env.stores.l1.latest(U)?.text).toBe('old');
    expect(env.stores.l1.count(A)).toBe(1);
    env.stores.flush();
    const file = JSON.parse(fs.readFileSync(env.stores.l1.fileFor(U), 'utf8')) as { items: { text: string }[] };
    expect(file.items.map((i) => i.text)).toEqual(['old']);
    expect(env.stores.l1.deleteSince(U, since)).toBe(0);
  });

  it('isolates layers and users, with one file per scope', () => {
    env.stores.l1.push(U, { text: 'user default' });
    env.stores.l1.push(A, { text: 'agent default' });
    env.stores.l1.push(U2, { text: 'user bob' });
    env.stores.l1.push({ layer: 'user', user_id: 'Bob' }, { text: 'user Bob' });
    expect(env.stores.l1.list(U).map((i) => i.text)).toEqual(['user default']);
    expect(env.stores.l1.list(A).map((i) => i.text)).toEqual(['agent default']);
    expect(env.stores.l1.list(U2).map((i) => i.text)).toEqual(['user bob']);
    expect(env.stores.l1.fileFor({ layer: 'user', user_id: 'Bob' })).not.toBe(env.stores.l1.fileFor(U2));
  });

  it('gives an id spelled like another id\'s hashed segment its own file', () => {
    const alice = { layer: 'user' as const, user_id: 'Alice' };
    const lookalike = { layer: 'user' as const, user_id: 'alice-3bc5106297' };
    expect(env.stores.l1.fileFor(alice)).not.toBe(env.stores.l1.fileFor(lookalike));
    env.stores.l1.push(alice, { text: 'from Alice' });
    env.stores.l1.push(lookalike, { text: 'from the lookalike' });
    env.stores.l1.sync(alice);
    env.stores.l1.sync(lookalike);
    const fileTexts = (scope: typeof U) => JSON.parse(fs.readFileSync(env.stores.l1.fileFor(scope), 'utf8')).items.map((i: { text: string }) => i.text);
    expect(fileTexts(alice)).toEqual(['from Alice']);
    expect(fileTexts(lookalike)).toEqual(['from the lookalike']);
  });

  it('trims the table every L1_TRIM_EVERY pushes; reads, counts, evictions, clears and the file only see the ring', () => {
    const rows = () => (env.db.prepare('SELECT COUNT(*) AS n FROM l1_items').get() as { n: number }).n;
    const texts = () => env.stores.l1.list(U).map((i) => i.text);
    for (let i = 0; i < 40; i++) env.stores.l1.push(U, { text: `item ${i}` });
    // Trimmed at the first push (of this process), then at the 17th and 33rd: the ring's 5 and 7 rows newer than it.
    expect(rows()).toBe(40 - 2 * L1_TRIM_EVERY - 1 + 5);
    expect(texts()).toEqual(['item 35', 'item 36', 'item 37', 'item 38', 'item 39']);
    expect(env.stores.l1.count(U)).toBe(5);
    env.stores.flush();
    expect(JSON.parse(fs.readFileSync(env.stores.l1.fileFor(U), 'utf8')).items.map((i: { text: string }) => i.text)).toEqual(texts());
    // Eviction takes the ring's oldest, and the rows past it go along.
    expect(env.stores.l1.evict(U, 2).map((i) => i.text)).toEqual(['item 35', 'item 36']);
    expect(rows()).toBe(3);
    expect(texts()).toEqual(['item 37', 'item 38', 'item 39']);
    for (let i = 40; i < 60; i++) env.stores.l1.push(U, { text: `item ${i}` });
    expect(rows()).toBeGreaterThan(5);
    expect(env.stores.l1.clear(U)).toBe(5);
    expect(rows()).toBe(0);
  });

  it('evicts the oldest and clears', () => {
    for (let i = 0; i < 4; i++) env.stores.l1.push(U, { text: `t${i}` });
    expect(env.stores.l1.evict(U, 2).map((i) => i.text)).toEqual(['t0', 't1']);
    expect(env.stores.l1.list(U).map((i) => i.text)).toEqual(['t2', 't3']);
    expect(env.stores.l1.clear(U)).toBe(2);
    expect(env.stores.l1.list(U)).toEqual([]);
    env.stores.flush();
    expect(JSON.parse(fs.readFileSync(env.stores.l1.fileFor(U), 'utf8')).items).toEqual([]);
  });

  it('keeps user ids with path characters inside the data dir', () => {
    const scope = { layer: 'user' as const, user_id: '../../etc/passwd' };
    env.stores.l1.push(scope, { text: 'x' });
    env.stores.flush();
    const file = env.stores.l1.fileFor(scope);
    expect(file.startsWith(path.join(env.dir, 'l1', 'user') + path.sep)).toBe(true);
    expect(fs.existsSync(file)).toBe(true);
  });

  it('validates files and purges invalid ones, rewriting them from the table', () => {
    env.stores.l1.push(U, { text: 'a' });
    env.stores.l1.push(A, { text: 'b' });
    env.stores.flush();
    expect(env.stores.l1.validate().every((c) => c.valid)).toBe(true);
    fs.writeFileSync(env.stores.l1.fileFor(U), '{not json');
    const checks = env.stores.l1.validate();
    expect(checks.filter((c) => !c.valid).map((c) => c.file)).toEqual([env.stores.l1.fileFor(U)]);
    expect(env.stores.l1.validate(U)[0].valid).toBe(false);
    const res = env.stores.l1.purgeInvalid();
    expect(res.removed).toEqual([env.stores.l1.fileFor(U)]);
    expect(res.rewritten).toBe(1);
    expect(env.stores.l1.validate().every((c) => c.valid)).toBe(true);
    expect(JSON.parse(fs.readFileSync(env.stores.l1.fileFor(U), 'utf8')).items[0].text).toBe('a');
  });

  it('two Stores on two connections interleaving pushes lose nothing in table or file', () => {
    const env2 = makeEnv({ l1Size: 100 });
    try {
      const other = env2.second();
      for (let i = 0; i < 20; i++) {
        env2.stores.l1.push(U, { text: `a${i}` });
        other.stores.l1.push(U, { text: `b${i}` });
      }
      const texts = env2.stores.l1.list(U).map((i) => i.text);
      expect(texts).toHaveLength(40);
      // Each process flushes its file from the canonical table: whichever writes last holds every push.
      other.stores.flush();
      env2.stores.flush();
      const file = JSON.parse(fs.readFileSync(env2.stores.l1.fileFor(U), 'utf8'));
      expect(file.items.map((i: { text: string }) => i.text)).toEqual(texts);
      expect(other.stores.l1.list(U).map((i) => i.text)).toEqual(texts);
    } finally {
      env2.close();
    }
  });

  it('latest() gives the newest item, null for an empty ring, and follows pushes, evictions and clears', () => {
    expect(env.stores.l1.latest(U)).toBeNull();
    env.stores.l1.push(U, { text: 'one', kind: 'thought' });
    env.stores.l1.push(U2, { text: 'for bob' });
    expect(env.stores.l1.latest(U)).toMatchObject({ text: 'one', kind: 'thought' });
    env.stores.l1.push(U, { text: 'two' });
    expect(env.stores.l1.latest(U)?.text).toBe('two');
    expect(env.stores.l1.latest(U2)?.text).toBe('for bob');
    expect(env.stores.l1.evict(U, 5).map((i) => i.text)).toEqual(['one', 'two']);
    expect(env.stores.l1.latest(U)).toBeNull();
    env.stores.l1.push(U, { text: 'three' });
    env.stores.l1.clear(U);
    expect(env.stores.l1.latest(U)).toBeNull();
  });

  it('latest() never keeps a push that was rolled back, nor one cleared later in the same transaction', () => {
    env.stores.l1.push(U, { text: 'kept' });
    expect(env.stores.l1.latest(U)?.text).toBe('kept');
    expect(() =>
      env.stores.transaction(() => {
        env.stores.l1.push(U, { text: 'rolled back' });
        expect(env.stores.l1.latest(U)?.text).toBe('rolled back');
        throw new Error('abort');
      }),
    ).toThrow('abort');
    expect(env.stores.l1.latest(U)?.text).toBe('kept');
    env.stores.transaction(() => {
      env.stores.l1.push(U, { text: 'pushed then cleared' });
      env.stores.l1.clear(U);
    });
    expect(env.stores.l1.latest(U)).toBeNull();
  });

  it('recent() gives the newest n items oldest first, at most NEWEST_KEPT and the ring, and follows pushes, evictions and clears', () => {
    expect(env.stores.l1.recent(U, 2)).toEqual([]);
    env.stores.l1.push(U, { text: 'one' });
    expect(env.stores.l1.recent(U, 2).map((i) => i.text)).toEqual(['one']);
    env.stores.l1.push(U, { text: 'two' });
    env.stores.l1.push(U2, { text: 'for bob' });
    expect(env.stores.l1.recent(U, 2).map((i) => i.text)).toEqual(['one', 'two']);
    env.stores.l1.push(U, { text: 'three' });
    expect(env.stores.l1.recent(U, 2).map((i) => i.text)).toEqual(['two', 'three']);
    expect(env.stores.l1.recent(U, 1).map((i) => i.text)).toEqual(['three']);
    expect(env.stores.l1.recent(U, 5).map((i) => i.text)).toHaveLength(NEWEST_KEPT);
    expect(env.stores.l1.recent(U, 0)).toEqual([]);
    expect(env.stores.l1.recent(U2, 2).map((i) => i.text)).toEqual(['for bob']);
    env.stores.l1.evict(U, 2);
    expect(env.stores.l1.recent(U, 2).map((i) => i.text)).toEqual(['three']);
    env.stores.l1.push(U, { text: 'four' });
    expect(env.stores.l1.recent(U, 2).map((i) => i.text)).toEqual(['three', 'four']);
    env.stores.l1.clear(U);
    expect(env.stores.l1.recent(U, 2)).toEqual([]);
  });

  it('recent() answers from what a fresh Stores reads, then follows its pushes, and never keeps a rolled-back push', () => {
    for (const text of ['a', 'b', 'c']) env.stores.l1.push(U, { text });
    const other = env.second();
    expect(other.stores.l1.recent(U, 1).map((i) => i.text)).toEqual(['c']);
    // Known: only the newest item; the two newest need a read, then pushes extend what is known.
    other.stores.l1.push(U, { text: 'd' });
    expect(other.stores.l1.recent(U, 2).map((i) => i.text)).toEqual(['c', 'd']);
    other.stores.l1.push(U, { text: 'e' });
    expect(other.stores.l1.recent(U, 2).map((i) => i.text)).toEqual(['d', 'e']);
    expect(() =>
      other.stores.transaction(() => {
        other.stores.l1.push(U, { text: 'rolled back' });
        expect(other.stores.l1.recent(U, 2).map((i) => i.text)).toEqual(['e', 'rolled back']);
        throw new Error('abort');
      }),
    ).toThrow('abort');
    expect(other.stores.l1.recent(U, 2).map((i) => i.text)).toEqual(['d', 'e']);
    // Another connection's push is seen through data_version.
    env.stores.l1.push(U, { text: 'f' });
    expect(other.stores.l1.recent(U, 2).map((i) => i.text)).toEqual(['e', 'f']);
  });

  it('recent() gives no more than a ring of one holds', () => {
    const small = makeEnv({ l1Size: 1 });
    try {
      for (const text of ['a', 'b', 'c']) small.stores.l1.push(U, { text });
      expect(small.stores.l1.recent(U, 2).map((i) => i.text)).toEqual(['c']);
      expect(small.second().stores.l1.recent(U, 2).map((i) => i.text)).toEqual(['c']);
    } finally {
      small.close();
    }
  });

  it("latest() sees another connection's pushes and clears", () => {
    const other = env.second();
    env.stores.l1.push(U, { text: 'mine' });
    expect(env.stores.l1.latest(U)?.text).toBe('mine');
    other.stores.l1.push(U, { text: 'theirs' });
    expect(env.stores.l1.latest(U)?.text).toBe('theirs');
    other.stores.l1.clear(U);
    expect(env.stores.l1.latest(U)).toBeNull();
    expect(other.stores.l1.latest(U)).toBeNull();
  });

  it('latest() is shared by every Stores on one connection', () => {
    const same = new Stores({ db: env.db, dataDir: env.dir, clock: env.clock, config: { l1Size: 5 } });
    env.stores.l1.push(U, { text: 'first' });
    expect(same.l1.latest(U)?.text).toBe('first');
    same.l1.push(U, { text: 'through the other Stores' });
    expect(env.stores.l1.latest(U)?.text).toBe('through the other Stores');
    same.l1.clear(U);
    expect(env.stores.l1.latest(U)).toBeNull();
  });

  it('recent() and latest() cut each text to NEWEST_TEXT_CHARS, kept or read, the same answer', () => {
    const long = `${'😀'.repeat(10)}${'w'.repeat(NEWEST_TEXT_CHARS * 3)}`;
    env.stores.l1.push(U, { text: long, kind: 'thought' });
    env.stores.l1.push(U, { text: 'short', kind: 'thought' });
    const kept = env.stores.l1.recent(U, 2);
    expect([...kept[0]!.text]).toHaveLength(NEWEST_TEXT_CHARS);
    expect(long.startsWith(kept[0]!.text)).toBe(true);
    expect(kept[1]!.text).toBe('short');
    // Read from the table by another connection: the same items, cut alike.
    expect(env.second().stores.l1.recent(U, 2)).toEqual(kept);
    // list() reads whole texts.
    expect(env.stores.l1.list(U).at(-2)!.text).toBe(long);
  });

  it('keeps the newest items of at most NEWEST_SCOPES_MAX scopes, the least recently used going first', () => {
    const scope = (i: number) => ({ layer: 'user' as const, user_id: `u${i}` });
    // A first read takes the connection's data_version, so the copy is not emptied at the next one.
    expect(env.stores.l1.recent(U, 1)).toEqual([]);
    env.stores.l1.push(U, { text: 'kept in memory' });
    // A row deleted behind the ring's back on the same connection (no data_version change): while
    // U's copy is kept, recent() answers from it; once it is dropped, from the table.
    const dropRows = () => env.db.prepare("DELETE FROM l1_items WHERE user_id = 'default'").run();
    dropRows();
    expect(env.stores.l1.recent(U, 1).map((i) => i.text)).toEqual(['kept in memory']);
    env.stores.l1.push(U, { text: 'used again' });
    dropRows();
    for (let i = 0; i < NEWEST_SCOPES_MAX - 1; i++) env.stores.l1.push(scope(i), { text: `t${i}` });
    // U is the least recently used of NEWEST_SCOPES_MAX scopes: still kept; using it keeps it longer.
    expect(env.stores.l1.recent(U, 1).map((i) => i.text)).toEqual(['used again']);
    env.stores.l1.push(scope(NEWEST_SCOPES_MAX), { text: 'one more scope' });
    expect(env.stores.l1.recent(U, 1).map((i) => i.text)).toEqual(['used again']);
    // u0 was the least recently used: dropped, so it is read again (its row is there: same answer).
    expect(env.stores.l1.recent(scope(0), 1).map((i) => i.text)).toEqual(['t0']);
    for (let i = 1; i < NEWEST_SCOPES_MAX; i++) env.stores.l1.push(scope(NEWEST_SCOPES_MAX + i), { text: 'more' });
    // U has gone now: read from the table, which no longer holds its rows.
    expect(env.stores.l1.recent(U, 1)).toEqual([]);
  });

  it('counts pushes for at most TRIM_COUNTS_MAX scopes, and a scope not counted trims at its next push', () => {
    const rows = () => (env.db.prepare("SELECT COUNT(*) AS n FROM l1_items WHERE user_id = 'default'").get() as { n: number }).n;
    for (let i = 0; i < 10; i++) env.stores.l1.push(U, { text: `item ${i}` });
    expect(rows()).toBe(10);
    env.stores.transaction(() => {
      for (let i = 0; i < TRIM_COUNTS_MAX; i++) env.stores.l1.push({ layer: 'user', user_id: `s${i}` }, { text: 'x' });
    });
    // The counts started over: U's next push trims its ring at once.
    env.stores.l1.push(U, { text: 'item 10' });
    expect(rows()).toBe(5);
  });
});
