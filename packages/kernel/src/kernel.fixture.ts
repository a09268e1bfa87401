import path from 'node:path';
import type Database from 'better-sqlite3';
import { ManualClock } from './clock.js';
import { createKernel, Kernel } from './kernel.js';
import { silentLogger } from './logger.js';
import { definePlugin, type PluginContext, type PluginDefinition } from './plugin.js';
import { scratch } from './scratch.fixture.js';
import { openSqlite } from './sqlite-driver.js';
import { defineTool } from './tools.js';
import { z } from 'zod';

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

/**
 * A ready kernel for the lock-wait tests (kept by `scratch`): its plugin `name` has the table
 * tst_notes and the tool `note` (inserts its text, in the call's transaction), plus the tools
 * `more` registers with the same insert; `other` is a connection standing for another process on
 * its memory.db (from `others`), and `rows` reads the notes in order.
 */
export async function notesBesideOther(
  scratch: ReturnType<typeof kernelScratch>,
  others: ReturnType<typeof otherConnections>,
  opts: { name: string; closeWaitMs?: number; more?: (ctx: PluginContext, insert: (text: string) => void) => void },
): Promise<{ k: Kernel; other: Database.Database; rows: () => string[] }> {
  const k = await createKernel({
    dataDir: scratch.tmp(),
    logger: silentLogger(),
    closeWaitMs: opts.closeWaitMs,
    plugins: [
      plugin({
        name: opts.name,
        migrations: [{ id: 1, name: 'notes', up: (db) => db.exec('CREATE TABLE tst_notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)') }],
        setup(ctx) {
          const insert = (text: string) => void ctx.db.prepare('INSERT INTO tst_notes (body) VALUES (?)').run(text);
          ctx.tools.register(
            defineTool({
              name: 'note',
              title: 'note',
              description: 'note',
              input: z.object({ text: z.string() }),
              annotations: { readOnlyHint: false },
              handler: (a: { text: string }) => {
                insert(a.text);
                return { text: a.text };
              },
            }),
          );
          opts.more?.(ctx, insert);
        },
      }),
    ],
  });
  scratch.scratchpad.kernel(k);
  const other = others.open(k.dataDir);
  const rows = () => k.storage.db.prepare('SELECT body FROM tst_notes ORDER BY id').pluck().all() as string[];
  return { k, other, rows };
}
