import fs from 'node:fs';
import path from 'node:path';
import type { StoreContext } from './context.js';
import type { L1File, L1Ring } from './l1.js';
import type { Scope } from './types.js';
import { makeId } from './util.js';

/**
 * A ring file larger than this is not read when the files are compared with their rings at start
 * (reconcileFiles): it is taken as unreadable, so its ring's file is rewritten. A 3 GB file there
 * (damaged, or not the service's) was read whole on the event loop: 36 s and 4 GB of memory.
 */
export const MAX_RING_FILE_BYTES = 64 * 1024 * 1024;

/** Scopes (or files left over) compared between two yields of reconcileSteps. */
export const RECONCILE_SLICE = 200;

/**
 * Mark for rewriting the file of every scope whose file does not hold exactly its ring's items: a
 * process stopped between a change and its flush (killed) leaves the file behind the table, with
 * pushes missing or with items it deleted (forgotten text), and only the scope's next change would
 * have rewritten it. A file of a scope whose ring is empty now is rewritten empty. A file whose name
 * is not the one fileFor gives the scope it holds (written under an older build's name for that
 * user_id, which no write reaches again: forgotten text would stay in it) is removed. One read of
 * the scopes, then of each scope's ring and file, then of the files left; yields after every
 * `slice` of them. A change between two slices can only mark a file that was right (it is then
 * rewritten from its ring): each ring is read after its file, and files are only ever written from
 * the rings. Returns how many scopes were marked and files removed.
 */
export function* reconcileSteps(ring: L1Ring, ctx: StoreContext, slice = RECONCILE_SLICE): Generator<void, number> {
  if (!ctx.db.open) return 0;
  const files = new Set(ring.files());
  const scopes = ctx.stmt('SELECT DISTINCT layer, user_id FROM l1_items ORDER BY layer, user_id').all() as Scope[];
  const idsOf = ctx.stmt('SELECT id FROM l1_items WHERE layer = ? AND user_id = ? ORDER BY id DESC LIMIT ?').pluck(true);
  let marked = 0;
  let done = 0;
  const mark = (scope: Scope) => {
    ring.markForRewrite(scope);
    marked++;
  };
  for (const scope of scopes) {
    if (++done % slice === 0) yield;
    if (!ctx.db.open) return marked;
    const file = ring.fileFor(scope);
    const held = files.delete(file) ? readRingFile(file)?.items.map((it) => it.id) : undefined;
    // The ring is the scope's newest `size` rows (see L1_TRIM_EVERY).
    const want = (idsOf.all(scope.layer, scope.user_id, ring.size) as number[]).reverse().map((id) => makeId('l1', id));
    if (want.length === 0) {
      // Emptied since the scopes were read: treated below as a file of no ring.
      if (held !== undefined) files.add(file);
      continue;
    }
    if (held === undefined || held.length !== want.length || held.some((id, i) => id !== want[i])) mark(scope);
  }
  // The files left belong to no ring: those that still hold items are emptied, those under another
  // name than their scope's are removed. An unreadable file, or one naming no valid scope, names no
  // scope for certain, and is left to memory_diagnose and memory_heal (purgeInvalid).
  let removed = 0;
  for (const file of files) {
    if (++done % slice === 0) yield;
    if (!ctx.db.open) break;
    const body = readRingFile(file);
    if (body === undefined) continue;
    const scope: Scope = { layer: body.layer, user_id: body.user_id };
    const own = ownFile(ring, scope);
    if (own === null) continue;
    if (own === path.resolve(file)) {
      if (body.items.length > 0) mark(scope);
    } else if (removeMisnamed(ctx, file, scope, own)) removed++;
  }
  return marked + removed;
}

/**
 * Remove `file`, which holds the ring file of `scope` though `own` is that scope's file: unless it
 * is `own` itself (the same file under a name differing in case, on a disk that ignores case) or
 * holds another scope when read again. Never throws; returns whether it was removed.
 */
function removeMisnamed(ctx: StoreContext, file: string, scope: Scope, own: string): boolean {
  try {
    const st = fs.statSync(file);
    const current = fs.statSync(own, { throwIfNoEntry: false });
    if (current && current.dev === st.dev && current.ino === st.ino) return false;
    const again = readRingFile(file);
    if (again?.layer !== scope.layer || again.user_id !== scope.user_id) return false;
    fs.rmSync(file, { force: true });
  } catch (err) {
    ctx.logger.warn(`removing the L1 file ${file} (of ${scope.layer}/${JSON.stringify(scope.user_id)}, whose file is now ${own}) failed: ${(err as Error).message}`);
    return false;
  }
  ctx.logger.info(`removed the L1 file ${file}: it holds the ring of ${scope.layer}/${JSON.stringify(scope.user_id)}, whose file is now ${own}`);
  return true;
}

/** The resolved path of the scope's file, or null when `scope` (read from a file) is no valid scope. */
function ownFile(ring: L1Ring, scope: Scope): string | null {
  try {
    return path.resolve(ring.fileFor(scope));
  } catch {
    return null;
  }
}

/** A ring file's body when it is JSON with an array of objects as items, else undefined (missing or unreadable). */
function readRingFile(file: string): L1File | undefined {
  try {
    if (fs.statSync(file).size > MAX_RING_FILE_BYTES) return undefined;
    const body = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<L1File> | null;
    if (typeof body !== 'object' || body === null || !Array.isArray(body.items)) return undefined;
    // An item that is no object (a file edited by hand) would throw where its id is read.
    if (body.items.some((it: unknown) => typeof it !== 'object' || it === null)) return undefined;
    return body as L1File;
  } catch {
    return undefined;
  }
}

