import { writeIfFree } from '@memory-service/kernel';
import type { StoreContext } from './context.js';

/** The tables noting file work a committed transaction owes, keyed by the file's path in the data dir. */
export type FileNoteTable = 'wiki_file_writes' | 'wiki_file_removals' | 'standing_file_writes';

/**
 * Clear the notes of these paths (their file work is done) in one transaction that never waits for
 * the lock: a note left is done again at the next start, which finds the work done. Never throws;
 * answers whether the notes were cleared (false: another process holds the lock, or the database
 * failed).
 */
export function clearFileNotes(ctx: StoreContext, table: FileNoteTable, paths: readonly string[]): boolean {
  if (paths.length === 0) return true;
  if (!ctx.db.open) return false;
  try {
    return writeIfFree(ctx.db, () =>
      ctx.db.transaction(() => {
        const del = ctx.stmt(`DELETE FROM ${table} WHERE path = ?`);
        for (const p of paths) del.run(p);
      })(),
    );
  } catch {
    return false;
  }
}
