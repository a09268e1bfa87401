import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scratch } from './scratch.fixture.js';
import { runTransaction } from './sql-transaction.js';
import { Storage } from './storage.js';

const scratchpad = scratch('ms-sql-transaction-');
let storage: Storage;
let other: Storage;

beforeEach(() => {
  const dir = scratchpad.dir();
  storage = new Storage(dir);
  storage.db.exec('CREATE TABLE t (v TEXT NOT NULL)');
  // A second connection on the same file, which never waits for a lock.
  other = new Storage(dir, { busyTimeoutMs: 0 });
});

afterEach(async () => {
  other.close();
  storage.close();
  await scratchpad.cleanup();
});

const values = () => (storage.db.prepare('SELECT v FROM t ORDER BY rowid').pluck().all() as string[]);
const insert = (v: string) => storage.db.prepare('INSERT INTO t (v) VALUES (?)').run(v);
const otherWrite = () => other.db.prepare("INSERT INTO t (v) VALUES ('other')").run();

describe('runTransaction', () => {
  it('commits what fn wrote and answers what fn answered', () => {
    expect(runTransaction(storage.db, () => (insert('a'), 42))).toBe(42);
    expect(storage.db.inTransaction).toBe(false);
    expect(values()).toEqual(['a']);
  });

  it('rolls back everything fn wrote when it throws, and throws the same error on', () => {
    const err = new Error('no');
    expect(() =>
      runTransaction(storage.db, () => {
        insert('a');
        throw err;
      }),
    ).toThrow(err);
    expect(storage.db.inTransaction).toBe(false);
    expect(values()).toEqual([]);
  });

  it('nests as a savepoint: an inner throw undoes the inner writes only, the outer commit keeps the rest', () => {
    runTransaction(storage.db, () => {
      insert('outer');
      expect(() =>
        runTransaction(storage.db, () => {
          insert('inner');
          throw new Error('inner');
        }),
      ).toThrow('inner');
      runTransaction(storage.db, () => insert('kept'));
      expect(storage.db.inTransaction).toBe(true);
    });
    expect(values()).toEqual(['outer', 'kept']);
  });

  it("nests with better-sqlite3's own transactions either way round", () => {
    runTransaction(storage.db, () => {
      storage.db.transaction(() => {
        insert('a');
        runTransaction(storage.db, () => insert('b'));
      })();
      expect(() =>
        storage.db.transaction(() => {
          runTransaction(storage.db, () => insert('gone'));
          throw new Error('undo');
        })(),
      ).toThrow('undo');
    });
    expect(values()).toEqual(['a', 'b']);
  });

  it('immediate takes the write lock at once; deferred lets another connection write until it writes itself', () => {
    runTransaction(storage.db, () => {
      expect(otherWrite).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }));
    });
    runTransaction(
      storage.db,
      () => {
        expect(values()).toEqual([]);
        otherWrite();
        // The read snapshot is the one the transaction began with.
        expect(values()).toEqual([]);
      },
      'deferred',
    );
    expect(values()).toEqual(['other']);
  });

  it('refuses a function that answers a promise, and rolls its writes back', () => {
    expect(() =>
      runTransaction(storage.db, () => {
        insert('a');
        return Promise.resolve(1);
      }),
    ).toThrow('a transaction function cannot return a promise');
    expect(storage.db.inTransaction).toBe(false);
    expect(values()).toEqual([]);
  });
});
