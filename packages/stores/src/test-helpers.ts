import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { openSqlite, type Logger } from '@memory-service/kernel';
import { storesMigrations } from './migrations/index.js';
import { Stores } from './stores.js';
import type { Clock, Scope, StoresConfig } from './types.js';
import type { StoreError } from './errors.js';

/** A clock tests can move. */
export class TestClock implements Clock {
  constructor(public t = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export function openDb(file: string): Database.Database {
  const db = openSqlite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL');
  return db;
}

export function migrate(db: Database.Database): void {
  for (const m of [...storesMigrations].sort((a, b) => a.id - b.id)) db.transaction(() => m.up(db)).immediate();
}

export interface Env {
  dir: string;
  db: Database.Database;
  clock: TestClock;
  stores: Stores;
  /** Another connection and Stores on the same data dir and database file. */
  second(): { db: Database.Database; stores: Stores };
  close(): void;
}

/** A logger that keeps what it is given, by level. */
export interface RecordingLogger extends Logger {
  lines: { level: 'info' | 'warn' | 'error'; message: string }[];
}

export function recordingLogger(): RecordingLogger {
  const lines: RecordingLogger['lines'] = [];
  return {
    lines,
    info: (message) => lines.push({ level: 'info', message }),
    warn: (message) => lines.push({ level: 'warn', message }),
    error: (message) => lines.push({ level: 'error', message }),
  };
}

/** A temp data dir with a migrated database and a Stores on it; `logger` takes what the stores report (default: kept, not printed). */
export function makeEnv(config: Partial<StoresConfig> = {}, logger: Logger = recordingLogger()): Env {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stores-test-'));
  const file = path.join(dir, 'memory.db');
  const db = openDb(file);
  migrate(db);
  const clock = new TestClock();
  const stores = new Stores({ db, dataDir: dir, clock, config, logger });
  const extra: Database.Database[] = [];
  return {
    dir,
    db,
    clock,
    stores,
    second() {
      const db2 = openDb(file);
      extra.push(db2);
      return { db: db2, stores: new Stores({ db: db2, dataDir: dir, clock, config, logger }) };
    },
    close() {
      for (const d of extra) d.close();
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const U: Scope = { layer: 'user', user_id: 'default' };
export const A: Scope = { layer: 'agent', user_id: 'default' };
export const U2: Scope = { layer: 'user', user_id: 'bob' };

/** The store error `fn` throws; the test fails when it throws none. */
export function thrownBy(fn: () => unknown): StoreError {
  try {
    fn();
  } catch (e) {
    return e as StoreError;
  }
  throw new Error('expected an error');
}

/** A text in Unicode NFC and in NFD: the two forms of one name that look the same. */
export const nfc = (t: string): string => t.normalize('NFC');
export const nfd = (t: string): string => t.normalize('NFD');

/**
 * Run `copy` (a backup, a replica sync) over a database of 3,000 rows of 2 KB in a `filler` table
 * while another connection on the same file (another process) inserts a row at every turn of the
 * event loop; `result` is null when the copy had not finished after 8 s. `writesDuring` counts the
 * rows written while it ran.
 */
export async function copyUnderSteadyWriter<T>(env: Env, copy: () => Promise<T>): Promise<{ result: T | null; writesDuring: number }> {
  env.db.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const fill = env.db.prepare('INSERT INTO filler (body) VALUES (?)');
  env.db.transaction(() => {
    for (let i = 0; i < 3000; i++) fill.run(`${i} ${'x'.repeat(2000)}`);
  })();
  const write = env.second().db.prepare('INSERT INTO filler (body) VALUES (?)');
  let writes = 0;
  let stop = false;
  const writer = (async () => {
    while (!stop) {
      write.run(`written during the copy ${writes++}`);
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  let timer: NodeJS.Timeout | undefined;
  const result = await Promise.race([copy(), new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), 8000)))]);
  clearTimeout(timer);
  const writesDuring = writes;
  stop = true;
  await writer;
  return { result, writesDuring };
}

/** What a copy made by copyUnderSteadyWriter holds: its journal mode, its quick_check and the filler ids in order. */
export function copiedFiller(file: string): { journalMode: unknown; quickCheck: unknown; ids: number[] } {
  const copy = openSqlite(file, { readonly: true, fileMustExist: true });
  try {
    return {
      journalMode: copy.pragma('journal_mode', { simple: true }),
      quickCheck: copy.pragma('quick_check', { simple: true }),
      ids: copy.prepare('SELECT id FROM filler ORDER BY id').pluck().all() as number[],
    };
  } finally {
    copy.close();
  }
}
