import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryError } from './errors.js';
import { betterSqliteAddon, CHECKPOINT_DELAY_MS, DB_FILE_CHECK_MS, loadSqliteDriver, PAGE_CACHE_KIB, SQLITE_DRIVERS, sqliteDriver, sqliteDriverFor, Storage, WAL_BACKSTOP_PAGES, writeIfFree } from './storage.js';

describe('Storage checkpoints off the request path', () => {
  let dir: string;
  let storage: Storage;
  const dbBytes = () => fs.statSync(storage.file).size;
  const write = (rows: number) => {
    for (let i = 0; i < rows; i++) {
      storage.transaction(() => storage.prepare('INSERT INTO t (body) VALUES (?)').run('x'.repeat(3000)));
    }
  };

  beforeEach(() => {
    vi.useFakeTimers();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storage-test-'));
    storage = new Storage(dir);
    storage.db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    storage.db.pragma('wal_checkpoint(TRUNCATE)');
  });

  afterEach(() => {
    storage.close();
    vi.useRealTimers();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the inline autocheckpoint as the backstop', () => {
    expect(storage.db.pragma('wal_autocheckpoint', { simple: true })).toBe(WAL_BACKSTOP_PAGES);
  });

  it('copies committed pages into the database file only once the delay has passed', () => {
    const before = dbBytes();
    // About 600 WAL frames (a new leaf and the parent per commit): below the backstop, so only the scheduled checkpoint copies them.
    write(300);
    expect(dbBytes()).toBe(before);
    vi.advanceTimersByTime(CHECKPOINT_DELAY_MS - 1);
    expect(dbBytes()).toBe(before);
    vi.advanceTimersByTime(1);
    expect(dbBytes()).toBeGreaterThan(before + 300 * 3000);
    expect(storage.db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 300 });
  });

  it('starts the WAL over right after a checkpoint that copied every frame, and asks for no further checkpoint', () => {
    const frames = () => (storage.db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0].log;
    write(50);
    vi.advanceTimersByTime(CHECKPOINT_DELAY_MS);
    // Without the restart the WAL would still end at frame 100 or so (all copied, none reused yet).
    expect(frames()).toBeLessThanOrEqual(2);
    expect(vi.getTimerCount()).toBe(0);
    expect(storage.db.prepare('SELECT restarts FROM kernel_wal_restarts').get()).toEqual({ restarts: 1 });
    // The next write appends after the restart's frames instead of starting the WAL over.
    const before = frames();
    write(1);
    expect(frames()).toBeGreaterThan(before);
    expect(storage.db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 51 });
  });

  it('leaves the WAL alone while another connection still reads its frames', () => {
    write(20);
    const reader = new (sqliteDriver().Database)(storage.file);
    try {
      reader.exec('BEGIN');
      reader.prepare('SELECT count(*) AS n FROM t').get();
      write(20);
      vi.advanceTimersByTime(CHECKPOINT_DELAY_MS);
      expect(storage.db.prepare('SELECT count(*) AS n FROM kernel_wal_restarts').get()).toEqual({ n: 0 });
      reader.exec('COMMIT');
    } finally {
      reader.close();
    }
  });

  it('skips the restart, without waiting, while another connection holds the write lock', () => {
    storage.close();
    // A lock wait would block this thread for a minute: longer than the test may take.
    storage = new Storage(dir, { busyTimeoutMs: 60_000 });
    write(20);
    const writer = new (sqliteDriver().Database)(storage.file);
    try {
      // Every frame is copied, but the other connection is writing.
      storage.db.pragma('wal_checkpoint(PASSIVE)');
      writer.exec('BEGIN IMMEDIATE');
      write(0);
      storage.checkpointNow();
      writer.exec('COMMIT');
    } finally {
      writer.close();
    }
    expect(storage.db.prepare('SELECT count(*) AS n FROM kernel_wal_restarts').get()).toEqual({ n: 0 });
    expect(storage.db.pragma('busy_timeout', { simple: true })).toBe(60_000);
  });

  it('keeps one checkpoint pending however many commits ask', () => {
    write(3);
    storage.transaction(() => storage.transaction(() => storage.prepare('INSERT INTO t (body) VALUES (?)').run('nested')));
    expect(vi.getTimerCount()).toBe(1);
  });

  it('waits for an open transaction before checkpointing', () => {
    write(10);
    const before = dbBytes();
    storage.db.exec('BEGIN');
    vi.advanceTimersByTime(CHECKPOINT_DELAY_MS);
    expect(dbBytes()).toBe(before);
    expect(vi.getTimerCount()).toBe(1);
    storage.db.exec('COMMIT');
    vi.advanceTimersByTime(CHECKPOINT_DELAY_MS);
    expect(dbBytes()).toBeGreaterThan(before);
  });

  it('drops a pending checkpoint on close', () => {
    write(1);
    storage.close();
    expect(vi.getTimerCount()).toBe(0);
    expect(() => vi.advanceTimersByTime(CHECKPOINT_DELAY_MS)).not.toThrow();
  });
});

describe('writeIfFree', () => {
  let dir: string;
  let storage: Storage;
  const rows = () => (storage.db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n;
  const insert = () => storage.db.transaction(() => storage.prepare('INSERT INTO t (body) VALUES (?)').run('x')).immediate();

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storage-free-'));
    storage = new Storage(dir);
    storage.db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  });

  afterEach(() => {
    storage.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes when no other connection holds the lock, and gives back the busy timeout it found each time', () => {
    expect(writeIfFree(storage.db, insert)).toBe(true);
    expect(rows()).toBe(1);
    expect(storage.db.pragma('busy_timeout', { simple: true })).toBe(10_000);
    // The timeout is read on every call, not kept from the first.
    storage.db.pragma('busy_timeout = 60000');
    expect(writeIfFree(storage.db, insert)).toBe(true);
    expect(storage.db.pragma('busy_timeout', { simple: true })).toBe(60_000);
    expect(rows()).toBe(2);
  });

  it("answers false at once while another connection writes, and the write is not made", () => {
    // A lock wait would block this thread for a minute: longer than the test may take.
    storage.db.pragma('busy_timeout = 60000');
    const writer = new (sqliteDriver().Database)(storage.file);
    try {
      writer.exec('BEGIN IMMEDIATE');
      expect(writeIfFree(storage.db, insert)).toBe(false);
      writer.exec('COMMIT');
    } finally {
      writer.close();
    }
    expect(rows()).toBe(0);
    expect(storage.db.pragma('busy_timeout', { simple: true })).toBe(60_000);
    expect(writeIfFree(storage.db, insert)).toBe(true);
    expect(rows()).toBe(1);
  });

  it('throws what is not a lock, and still gives back the timeout', () => {
    expect(() => writeIfFree(storage.db, () => storage.db.exec('INSERT INTO missing VALUES (1)'))).toThrow(/no such table: missing/);
    expect(storage.db.pragma('busy_timeout', { simple: true })).toBe(10_000);
  });
});

// Only better-sqlite3 12 is opened by path (13 finds its prebuilt addon itself).
describe('Storage keeps temporary data off the disk', () => {
  it('holds statement journals and savepoints in memory (temp_store = MEMORY), where a nested transaction writes its page images', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storage-test-'));
    const storage = new Storage(dir);
    try {
      expect(storage.db.pragma('temp_store', { simple: true })).toBe(2);
      storage.db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
      // A savepoint inside a transaction rolls back alone; the outer write stays.
      storage.transaction(() => {
        storage.prepare('INSERT INTO t (body) VALUES (?)').run('kept');
        expect(() =>
          storage.transaction(() => {
            storage.prepare('INSERT INTO t (body) VALUES (?)').run('undone');
            throw new Error('inner failure');
          }),
        ).toThrow('inner failure');
      });
      expect(storage.db.prepare('SELECT body FROM t').pluck().all()).toEqual(['kept']);
    } finally {
      storage.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Storage page cache', () => {
  it('opens with a cache of PAGE_CACHE_KIB, above SQLite\'s 2,000 KiB default', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storage-test-'));
    const storage = new Storage(dir);
    try {
      expect(PAGE_CACHE_KIB).toBeGreaterThan(2000);
      // A negative cache_size is KiB, a positive one pages.
      expect(storage.db.pragma('cache_size', { simple: true })).toBe(-PAGE_CACHE_KIB);
    } finally {
      storage.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.runIf(sqliteDriver().name === SQLITE_DRIVERS.legacy)("Storage loads better-sqlite3's addon by path", () => {
  it('finds the addon the install built, without the bindings search, and opens on it', () => {
    const addon = betterSqliteAddon();
    expect(addon).toMatch(/better-sqlite3[\\/]build[\\/]Release[\\/]better_sqlite3\.node$/);
    expect(fs.existsSync(addon!)).toBe(true);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ms-addon-'));
    const s = new Storage(dir);
    try {
      expect(s.db.prepare('SELECT sqlite_version()').pluck().get()).toMatch(/^3\./);
      // A default open (through bindings) loads the same file: one copy of SQLite in the process.
      const other = new (sqliteDriver().Database)(':memory:');
      other.close();
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => f.endsWith('better_sqlite3.node'));
      expect(loaded).toEqual([addon]);
    } finally {
      s.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the SQLite driver follows the Node-API version of the running Node', () => {
  it('takes better-sqlite3 13 from Node-API 10 on and better-sqlite3 12 below it', () => {
    expect(sqliteDriverFor(8)).toBe(SQLITE_DRIVERS.legacy);
    expect(sqliteDriverFor(9)).toBe(SQLITE_DRIVERS.legacy);
    expect(sqliteDriverFor(10)).toBe(SQLITE_DRIVERS.nodeApi10);
    expect(sqliteDriverFor(11)).toBe(SQLITE_DRIVERS.nodeApi10);
  });

  it('installs both drivers, each the major version its rule needs', () => {
    const require = createRequire(import.meta.url);
    const major = (name: string) => Number((require(`${name}/package.json`) as { version: string }).version.split('.')[0]);
    expect(major(SQLITE_DRIVERS.legacy)).toBe(12);
    expect(major(SQLITE_DRIVERS.nodeApi10)).toBe(13);
  });

  it('names the package, the Node and the remedy when the driver cannot be loaded', () => {
    const missing = (id: string) => {
      throw new Error(`Cannot find module '${id}'`);
    };
    let caught: unknown;
    try {
      loadSqliteDriver('better-sqlite3', missing);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(MemoryError);
    expect((caught as MemoryError).code).toBe('KERNEL_ERR_STORAGE');
    expect((caught as Error).message).toContain(`cannot load the SQLite driver better-sqlite3 for Node ${process.versions.node}`);
    expect((caught as Error).message).toContain("Cannot find module 'better-sqlite3'; run npm install again with this Node");
  });

  it('opens the data dir with the driver chosen for this Node', () => {
    const chosen = sqliteDriver();
    expect(chosen.name).toBe(sqliteDriverFor(Number(process.versions.napi)));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ms-driver-'));
    const s = new Storage(dir);
    try {
      expect(s.db).toBeInstanceOf(chosen.Database);
      expect(s.db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      s.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Storage on a database file it cannot use', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storage-test-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const openError = (): MemoryError => {
    try {
      new Storage(dir).close();
    } catch (err) {
      return err as MemoryError;
    }
    throw new Error('the database opened');
  };

  it('refuses a data dir it cannot create (a file in its path) with KERNEL_ERR_STORAGE naming the dir and MCP_MEMORY_DATA_DIR', () => {
    fs.writeFileSync(path.join(dir, 'file'), 'x');
    const target = path.join(dir, 'file', 'sub');
    let err: MemoryError | undefined;
    try {
      new Storage(target).close();
    } catch (e) {
      err = e as MemoryError;
    }
    expect(err).toBeInstanceOf(MemoryError);
    expect(err!.code).toBe('KERNEL_ERR_STORAGE');
    expect(err!.message).toContain(`cannot create the data dir ${target}`);
    expect(err!.message).toMatch(/ENOTDIR/);
    expect(err!.message).toMatch(/MCP_MEMORY_DATA_DIR/);
  });

  it('refuses a file that is not a SQLite database with KERNEL_ERR_STORAGE naming the file and what to do', () => {
    fs.writeFileSync(path.join(dir, 'memory.db'), 'these are notes, not a database\n'.repeat(200));
    const err = openError();
    expect(err).toBeInstanceOf(MemoryError);
    expect(err.code).toBe('KERNEL_ERR_STORAGE');
    expect(err.message).toContain(path.join(dir, 'memory.db'));
    expect(err.message).toMatch(/not a SQLite database/);
    expect(err.message).toMatch(/move it away|restore/);
  });

  it('refuses a memory.db (or its -wal or -shm) this user cannot write with KERNEL_ERR_STORAGE naming it, before SQLite opens it read-only', () => {
    new Storage(dir).close();
    const file = path.join(dir, 'memory.db');
    // chmod 444 does not stop root (these tests may run as root): the permission check answers as it would for another user.
    const realAccess = fs.accessSync;
    for (const target of [file, `${file}-wal`]) {
      if (target.endsWith('-wal')) fs.writeFileSync(target, '');
      const spy = vi.spyOn(fs, 'accessSync').mockImplementation((p, mode) => {
        if (p === target && mode === fs.constants.W_OK) throw Object.assign(new Error(`EACCES: permission denied, access '${target}'`), { code: 'EACCES' });
        return realAccess(p, mode);
      });
      try {
        const err = openError();
        expect(err).toBeInstanceOf(MemoryError);
        expect(err.code).toBe('KERNEL_ERR_STORAGE');
        expect(err.message).toBe(
          `cannot open the database ${file}: ${target} is read-only for this user; make it writable by this user (chmod u+w ${target}, or chown it to this user; its -wal and -shm files too), or point MCP_MEMORY_DATA_DIR at a writable directory`,
        );
      } finally {
        spy.mockRestore();
      }
    }
    new Storage(dir).close();
  });

  it('refuses a truncated database file the same way', () => {
    const storage = new Storage(dir);
    storage.db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    for (let i = 0; i < 50; i++) storage.prepare('INSERT INTO t (body) VALUES (?)').run('x'.repeat(3000));
    storage.close();
    fs.truncateSync(path.join(dir, 'memory.db'), 1000);
    const err = openError();
    expect(err.code).toBe('KERNEL_ERR_STORAGE');
    expect(err.message).toContain(path.join(dir, 'memory.db'));
  });
});

// Regression guard, fixed: with memory.db deleted (an `rm -rf` of the data dir) while the server ran,
// every write was acknowledged into the unlinked file and lost at the next start. SQLite's own check
// (SQLITE_READONLY_DBMOVED) is made with a rollback journal only, not in WAL mode.
describe('Storage refuses writes once its database file is no longer at its path', () => {
  let dir: string;
  let storage: Storage;
  let now: number;
  const rows = () => (storage.db.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n;
  const write = () => storage.transaction(() => storage.prepare('INSERT INTO t (body) VALUES (?)').run('x'));
  const refused = (what: RegExp) =>
    expect(write).toThrow(
      expect.objectContaining({
        code: 'KERNEL_ERR_STORAGE',
        message: expect.stringMatching(new RegExp(`^cannot write to the database ${storage.file.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}: it was moved, deleted or replaced while the server runs \\(${what.source}\\)`)),
      }),
    );

  beforeEach(() => {
    now = 1_000_000;
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storage-test-'));
    storage = new Storage(dir);
    storage.db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  });

  afterEach(() => {
    storage.close();
    vi.restoreAllMocks();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a write after memory.db was deleted, with nothing written, and still reads from the open file', () => {
    write();
    for (const f of ['memory.db', 'memory.db-wal', 'memory.db-shm']) fs.rmSync(path.join(dir, f), { force: true });
    now += DB_FILE_CHECK_MS;
    refused(/no file is at its path now/);
    expect(storage.db.inTransaction).toBe(false);
    expect(rows()).toBe(1);
    // A write made outside transaction() (a store's own) asks the same check first.
    expect(() => storage.checkFileInPlace()).toThrow(expect.objectContaining({ code: 'KERNEL_ERR_STORAGE' }));
  });

  it('refuses it after the whole data dir was deleted, and after memory.db was replaced by another file', () => {
    fs.rmSync(dir, { recursive: true, force: true });
    now += DB_FILE_CHECK_MS;
    refused(/no file is at its path now/);
    fs.mkdirSync(dir);
    new Storage(dir).close();
    refused(/another file is at its path now/);
    expect(rows()).toBe(0);
  });

  it('writes again to a file moved away and put back, checked at every write while it is away', () => {
    const away = path.join(dir, 'away.db');
    fs.renameSync(storage.file, away);
    now += DB_FILE_CHECK_MS;
    refused(/no file is at its path now/);
    fs.renameSync(away, storage.file);
    // At once: while the file is away, no interval is waited for.
    write();
    expect(rows()).toBe(1);
  });

  it('stats the path at most once per DB_FILE_CHECK_MS while the file is in place', () => {
    const stat = vi.spyOn(fs, 'statSync');
    for (let i = 0; i < 50; i++) write();
    now += DB_FILE_CHECK_MS - 1;
    write();
    expect(stat).toHaveBeenCalledTimes(1);
    now += 1;
    write();
    expect(stat).toHaveBeenCalledTimes(2);
    // A nested transaction (a savepoint) is inside a checked one, and checks nothing.
    now += DB_FILE_CHECK_MS;
    storage.transaction(() => storage.transaction(() => storage.prepare('INSERT INTO t (body) VALUES (?)').run('y')));
    expect(stat).toHaveBeenCalledTimes(3);
  });

  it('looks at the file in the idle time after a write, so the next write within DB_FILE_CHECK_MS is refused without a stat of its own', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      write();
      for (const f of ['memory.db', 'memory.db-wal', 'memory.db-shm']) fs.rmSync(path.join(dir, f), { force: true });
      // Within the interval the request path does not look...
      write();
      expect(rows()).toBe(2);
      // ...but the idle time after that write does (with its checkpoint), and the next write is refused.
      vi.advanceTimersByTime(CHECKPOINT_DELAY_MS);
      const stat = vi.spyOn(fs, 'statSync');
      refused(/no file is at its path now/);
      expect(stat).toHaveBeenCalledTimes(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('has nothing to check for a database without a file of its own, and does not refuse when the stat fails otherwise', () => {
    const memory = new Storage(dir, { file: ':memory:' });
    memory.db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY)');
    now += DB_FILE_CHECK_MS;
    expect(() => memory.transaction(() => memory.prepare('INSERT INTO t DEFAULT VALUES').run())).not.toThrow();
    memory.close();
    const realStat = fs.statSync;
    vi.spyOn(fs, 'statSync').mockImplementation(((p: fs.PathLike, opts?: fs.StatSyncOptions) => {
      if (p === storage.file) throw Object.assign(new Error(`EACCES: permission denied, stat '${storage.file}'`), { code: 'EACCES' });
      return realStat(p, opts);
    }) as typeof fs.statSync);
    write();
    expect(rows()).toBe(1);
  });
});
