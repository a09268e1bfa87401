import { openSqlite } from '@memory-service/kernel';
import type { StoreContext } from '../context.js';

/** better-sqlite3's backup() step size at its largest: every page in one step. */
export const ALL_PAGES = 0x7fffffff;

/**
 * Copy memory.db into `tmp` through the backup API (a backup, the replica), reading one snapshot:
 * a read-only connection of its own holds a read transaction from before the first step to the
 * last, so no write of another connection (another process, or this one's) restarts the copy, and
 * in WAL mode it blocks no writer. When memory.db's path
 * no longer leads to the open file (moved or deleted while the server runs), or the database is
 * no file, the live connection is the source, every page in one step (one snapshot too): that
 * open file is what the backup must keep.
 */
export async function snapshotInto(ctx: StoreContext, tmp: string): Promise<void> {
  let inPlace = ctx.db.name !== '' && ctx.db.name !== ':memory:' && !ctx.db.memory;
  if (inPlace) {
    try {
      ctx.checkFileInPlace();
    } catch {
      inPlace = false;
    }
  }
  if (!inPlace) {
    await ctx.db.backup(tmp, { progress: () => ALL_PAGES });
    return;
  }
  const reader = openSqlite(ctx.db.name, { readonly: true, fileMustExist: true });
  try {
    reader.exec('BEGIN');
    // A read makes the transaction take its snapshot now; every step of the copy reads it.
    reader.prepare('SELECT COUNT(*) FROM sqlite_master').get();
    await reader.backup(tmp);
  } finally {
    try {
      if (reader.inTransaction) reader.exec('ROLLBACK');
    } finally {
      reader.close();
    }
  }
}
