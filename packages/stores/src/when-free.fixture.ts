import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqlite, Storage, silentLogger } from '@memory-service/kernel';
import type Database from 'better-sqlite3';
import { storesMigrations } from './migrations/index.js';
import { Stores } from './stores.js';

/**
 * Stores over a kernel Storage (its transaction host, as in the server, so the writes that can wait
 * do so in the kernel's write queue), and another connection on its memory.db standing for another
 * process's. `closeAll` (afterEach) rolls back what the other connection holds and closes both.
 */
export function whenFreeScratch(prefix: string) {
  const open: { storage: Storage; stores: Stores; other: Database.Database; dir: string }[] = [];
  return {
    hosted(opts: { now?: () => number } = {}) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
      const storage = new Storage(dir, { logger: silentLogger() });
      storage.migrate('@memory-service/stores', storesMigrations);
      const stores = new Stores({ db: storage.db, dataDir: dir, clock: { now: opts.now ?? (() => Date.UTC(2026, 0, 1)) }, logger: silentLogger(), transactions: storage });
      const other = openSqlite(path.join(dir, 'memory.db'));
      open.push({ storage, stores, other, dir });
      return { storage, stores, other, dir };
    },
    async closeAll() {
      for (const o of open.splice(0)) {
        if (o.other.open && o.other.inTransaction) o.other.exec('ROLLBACK');
        if (o.other.open) o.other.close();
        await o.stores.nightly.stop();
        o.storage.close();
        fs.rmSync(o.dir, { recursive: true, force: true });
      }
    },
  };
}

/** Another process's lock, let go by a timer of this process (it fires only while the event loop turns), noting when in `order`. */
export function holdUntilTimer(other: { exec(sql: string): unknown }, order: string[], name: string): void {
  other.exec('BEGIN IMMEDIATE');
  setTimeout(() => {
    order.push(name);
    other.exec('COMMIT');
  }, 0);
}
