import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { lockWaitOf, runTransaction } from './sql-transaction.js';
import { openSqlite, Storage } from './storage.js';

const open: { storage: Storage; other: Database.Database; dir: string }[] = [];
afterEach(() => {
  for (const o of open.splice(0)) {
    if (o.other.open && o.other.inTransaction) o.other.exec('ROLLBACK');
    if (o.other.open) o.other.close();
    o.storage.close();
    fs.rmSync(o.dir, { recursive: true, force: true });
  }
});

/** A Storage with a table `t`, and another connection on its memory.db (another process's). */
function setup(busyTimeoutMs: number) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'write-when-free-'));
  const storage = new Storage(dir, { busyTimeoutMs });
  storage.db.exec('CREATE TABLE t (v TEXT)');
  const other = openSqlite(path.join(dir, 'memory.db'));
  open.push({ storage, other, dir });
  const rows = () => storage.db.prepare('SELECT v FROM t ORDER BY rowid').pluck(true).all();
  return { storage, other, rows };
}

describe('Storage.writeWhenFree', () => {
  it('runs a statement that refuses a transaction (VACUUM) once another process lets go of the write lock, the event loop turning meanwhile', async () => {
    const { storage, other } = setup(5000);
    other.exec('BEGIN IMMEDIATE');
    const order: string[] = [];
    // A timer of this process answers, then lets go: in SQLite's busy handler neither could happen before the wait's end.
    setTimeout(() => {
      order.push('timer');
      other.exec('COMMIT');
    }, 0);
    const got = await storage.writeWhenFree(() => {
      storage.db.exec('VACUUM');
      order.push('vacuum');
      return 'done';
    });
    expect(got).toBe('done');
    expect(order).toEqual(['timer', 'vacuum']);
    // The busy timeout is given back after each try.
    expect(storage.db.pragma('busy_timeout', { simple: true })).toBe(5000);
  });

  it('runs a transaction of fn\'s own once the lock is free, in order behind the writes already waiting', async () => {
    const { storage, other, rows } = setup(5000);
    other.exec('BEGIN IMMEDIATE');
    const first = storage.transactionWhenFree(() => storage.db.prepare("INSERT INTO t VALUES ('queued first')").run());
    const own = storage.writeWhenFree(() => runTransaction(storage.db, () => storage.db.prepare("INSERT INTO t VALUES ('own transaction')").run()));
    setTimeout(() => other.exec('COMMIT'), 0);
    await Promise.all([first, own]);
    expect(rows()).toEqual(['queued first', 'own transaction']);
  });

  it('gives up with SQLITE_BUSY, its wait noted, once the busy timeout has passed: nothing of fn written', async () => {
    const { storage, other, rows } = setup(150);
    other.exec('BEGIN IMMEDIATE');
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    const err = await storage
      .writeWhenFree(() => runTransaction(storage.db, () => storage.db.prepare("INSERT INTO t VALUES ('x')").run()))
      .catch((e: unknown) => e);
    clearInterval(ticker);
    expect((err as { code?: string }).code).toMatch(/^SQLITE_BUSY/);
    expect(lockWaitOf(err)).toBeGreaterThanOrEqual(140);
    expect(ticks).toBeGreaterThan(2);
    other.exec('ROLLBACK');
    expect(rows()).toEqual([]);
    expect(storage.db.inTransaction).toBe(false);
  });

  it('throws what fn throws other than SQLITE_BUSY at once; inside an open transaction fn runs at once', async () => {
    const { storage, rows } = setup(5000);
    await expect(storage.writeWhenFree(() => storage.db.exec('NOT SQL'))).rejects.toThrow(/syntax/);
    let inner: Promise<unknown> | undefined;
    storage.transaction(() => {
      inner = storage.writeWhenFree(() => storage.db.prepare("INSERT INTO t VALUES ('in')").run());
    });
    await inner;
    expect(rows()).toEqual(['in']);
  });

  it('fails KERNEL_ERR_CLOSED after the database closed, and for a write still waiting when it closes', async () => {
    const { storage, other } = setup(5000);
    other.exec('BEGIN IMMEDIATE');
    const waiting = storage.writeWhenFree(() => storage.db.exec('VACUUM')).catch((e: unknown) => e);
    storage.close();
    expect(await waiting).toMatchObject({ code: 'KERNEL_ERR_CLOSED' });
    await expect(storage.writeWhenFree(() => 1)).rejects.toMatchObject({ code: 'KERNEL_ERR_CLOSED' });
  });
});
