import path from 'node:path';
import type Database from 'better-sqlite3';
import { ManualClock } from './clock.js';
import { Kernel } from './kernel.js';
import { silentLogger } from './logger.js';
import { definePlugin, type PluginDefinition } from './plugin.js';
import { scratch } from './scratch.fixture.js';
import { openSqlite } from './sqlite-driver.js';

/** The kernel tests' scratch: temporary data dirs (`tmp`), kernels on them (`kernel`), closed and removed by `cleanup`. */
export function kernelScratch(prefix: string) {
  const scratchpad = scratch(prefix);
  const tmp = () => scratchpad.dir();
  const kernel = (dataDir = tmp()): Kernel => scratchpad.kernel(new Kernel({ dataDir, logger: silentLogger(), clock: new ManualClock() }));
  return { scratchpad, tmp, kernel, cleanup: scratchpad.cleanup };
}

/** A plugin of tier tst that does nothing, with the fields given over it. */
export const plugin = (over: Partial<PluginDefinition> = {}) =>
  definePlugin({ name: 'p', version: '1.0.0', tier: 'tst', kernel: '^1.0.0', setup() {}, ...over });

/** Connections standing for another process on a kernel's memory.db (`open`), rolled back and closed by `closeAll`. */
export function otherConnections() {
  const held: Database.Database[] = [];
  return {
    open(dataDir: string): Database.Database {
      const db = openSqlite(path.join(dataDir, 'memory.db'));
      held.push(db);
      return db;
    },
    closeAll(): void {
      for (const h of held.splice(0)) {
        if (h.inTransaction) h.exec('ROLLBACK');
        h.close();
      }
    },
  };
}
