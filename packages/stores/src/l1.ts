import fs from 'node:fs';
import path from 'node:path';
import type { StoreContext } from './context.js';
import { cutChars, makeDirs, writeIfFree } from '@memory-service/kernel';
import { EPISODE_CONTEXT_MAX_CHARS } from './episodes.js';
import type { Breaker } from './ops/breakers.js';
import { idSegment, safeJoin, writeFileAtomic } from './paths.js';
import type { Layer, Scope } from './types.js';
import { LAYERS } from './types.js';
import { reconcileSteps } from './l1-reconcile.js';
export { MAX_RING_FILE_BYTES, RECONCILE_SLICE } from './l1-reconcile.js';
import { checkScope, checkText, checkWordPattern, makeId, scopeKey, wordsMatcher } from './util.js';

export interface L1Item {
  id: string;
  text: string;
  kind: string | null;
  ref: string | null;
  created: string;
}

export interface L1PushInput {
  text: string;
  kind?: string;
  ref?: string;
}

/** The persisted file: the scope it belongs to and its items, oldest first. */
export interface L1File {
  layer: Layer;
  user_id: string;
  size: number;
  items: L1Item[];
}

export interface L1FileCheck {
  file: string;
  valid: boolean;
  error?: string;
}

interface Row {
  id: number;
  text: string;
  kind: string | null;
  ref: string | null;
  created: string;
}

function toItem(r: Row): L1Item {
  return { id: makeId('l1', r.id), text: r.text, kind: r.kind, ref: r.ref, created: r.created };
}

/**
 * The item with its text cut to NEWEST_TEXT_CHARS, as recent() answers it. The cut is copied into a
 * string of its own: V8 makes a slice of a long string a view of it, which would keep the whole text.
 */
function headOf(item: L1Item): L1Item {
  const cut = cutChars(item.text, NEWEST_TEXT_CHARS);
  if (cut.length === item.text.length) return item;
  // UTF-16LE copies the code units as they are (a lone surrogate included).
  return { ...item, text: Buffer.from(cut, 'utf16le').toString('utf16le') };
}

/**
 * The L1 buffer: a short ring of recent items per scope. The canonical ring is the `l1_items`
 * table. A change marks the scope's file `<data_dir>/l1/<layer>/<user>.json` dirty; the file is
 * rewritten from the table at most L1_FLUSH_MS later (one rewrite for a burst of pushes) and on
 * close, inside an IMMEDIATE transaction, so two
 * processes sharing a data dir serialize and the last file written always holds every committed
 * push. Files are written atomically (temp file + rename).
 */
/** Longest time the ring file lags behind the table. */
export const L1_FLUSH_MS = 50;
/** Longest delay between two tries of an L1 file that cannot be written (see L1Ring.flush). */
export const L1_RETRY_MAX_MS = 30_000;
/**
 * Pushes to a scope between two trims of its ring. The table keeps up to this many items past the
 * ring's size, older than the ring, which every read leaves out (each reads the newest `size`):
 * trimming on every push was a DELETE and a WAL frame or two in every think.
 */
export const L1_TRIM_EVERY = 16;

/** How many of a scope's newest items are kept in memory: think reads the last two as context. */
export const NEWEST_KEPT = 2;

/**
 * The characters of an item's text that recent() and latest() answer (the copy keeps no more):
 * think joins the previous thoughts into an episode's context, which keeps this many. A thought may
 * hold 100,000 characters, and the copy kept two whole ones per scope ever used.
 */
export const NEWEST_TEXT_CHARS = EPISODE_CONTEXT_MAX_CHARS;

/**
 * Scopes whose newest items are kept in memory, per connection; past it the least recently used
 * goes, and its next read queries the table (the same answer, one read).
 */
export const NEWEST_SCOPES_MAX = 2_048;

/** Scopes whose pushes since their last trim are counted; past it the counts start over (each scope then trims at its next push). */
export const TRIM_COUNTS_MAX = 10_000;


/**
 * A scope's newest items as far as they are known, oldest first: at most NEWEST_KEPT, and all of
 * the ring's when `whole` (a ring of fewer items, or one just read whole).
 */
interface Known {
  items: L1Item[];
  whole: boolean;
}

/**
 * The newest items of each scope of one connection, as of SQLite's data_version `version`, their
 * text cut to NEWEST_TEXT_CHARS. Set only by committed pushes and by reads outside a transaction,
 * dropped by any other change of a ring, and emptied whenever another connection has committed; at
 * most NEWEST_SCOPES_MAX scopes, in order of use (the least recently used first). Shared by every
 * L1Ring on the connection (several Stores may share one), so a push through one is never missed by
 * another.
 */
interface NewestItems {
  version: number;
  items: Map<string, Known>;
}

const NEWEST = new WeakMap<object, NewestItems>();

export class L1Ring {
  private readonly dirty = new Map<string, Scope>();
  /** Pushes per scope since its ring was last trimmed by this process; a scope not here trims at its next push. */
  private readonly sinceTrim = new Map<string, number>();
  private scheduled: NodeJS.Timeout | null = null;
  /** Flushes in a row whose files could not all be written (see flush). */
  private failures = 0;
  /**
   * The newest items of each scope, so think finds the previous thoughts without a query: see
   * NewestItems.
   */
  private readonly newest: NewestItems;

  /**
   * `breaker` (the l1_files breaker of Stores) counts the outcome of the timed file writes: once it
   * opens, the timer skips them until its cooldown ends (the ring is canonical; the files catch up).
   */
  constructor(
    private readonly ctx: StoreContext,
    private readonly breaker?: Breaker,
  ) {
    let shared = NEWEST.get(ctx.db);
    if (!shared) NEWEST.set(ctx.db, (shared = { version: -1, items: new Map() }));
    this.newest = shared;
  }

  /**
   * Rewrite the files of every scope changed since the last flush. On the timer (`wait` false) it
   * never waits for another process's write lock: the scopes stay dirty and are tried again
   * L1_FLUSH_MS later. It never throws: the ring is canonical and its changes are committed, so a
   * file that cannot be written (a read-only or full disk) is reported on the logger, its scope
   * stays dirty and is tried again after a delay that doubles with each failure in a row, up to
   * L1_RETRY_MAX_MS (a stop in between leaves it to the repair at the next start).
   */
  flush(wait = true): void {
    if (this.scheduled) clearTimeout(this.scheduled);
    this.scheduled = null;
    if (this.dirty.size === 0 || !this.ctx.db.open) return;
    if (!wait && this.breaker && !this.breaker.allow()) {
      this.scheduled = setTimeout(() => this.flush(false), Math.max(L1_FLUSH_MS, this.breaker.remainingMs()));
      this.scheduled.unref();
      return;
    }
    const scopes = [...this.dirty.values()];
    this.dirty.clear();
    const failed: { scope: Scope; err: unknown }[] = [];
    const write = () =>
      this.ctx.tx(() => {
        for (const s of scopes) {
          try {
            this.writeFile(s);
          } catch (err) {
            failed.push({ scope: s, err });
          }
        }
      });
    let written: boolean;
    try {
      written = wait ? (write(), true) : writeIfFree(this.ctx.db, write);
    } catch (err) {
      // The transaction itself failed (the database cannot be read): every scope is left to retry.
      failed.splice(0, failed.length, ...scopes.map((scope) => ({ scope, err })));
      written = true;
    }
    if (!written) {
      for (const s of scopes) this.markDirty(s);
      return;
    }
    // Only the timed flushes count as failures: the breaker guards the background work, not a flush asked for (close).
    if (failed.length === 0) this.breaker?.success();
    else if (!wait) this.breaker?.failure(failed[0]!.err);
    if (failed.length === 0) {
      if (this.failures > 0) this.ctx.logger.info('L1 files are written again');
      this.failures = 0;
      return;
    }
    const delay = Math.min(L1_FLUSH_MS * 2 ** this.failures, L1_RETRY_MAX_MS);
    this.failures++;
    for (const { scope, err } of failed) {
      this.ctx.logger.error(
        `writing the L1 file of ${scope.layer}/${scope.user_id} failed (the ring is stored; tried again in ${delay} ms): ${(err as Error).message}`,
      );
      this.markDirty(scope, delay);
    }
  }

  private markDirty(scope: Scope, delay = L1_FLUSH_MS): void {
    this.dirty.set(scopeKey(scope.layer, scope.user_id), { layer: scope.layer, user_id: scope.user_id });
    if (!this.scheduled) {
      this.scheduled = setTimeout(() => this.flush(false), delay);
      // A pending flush never keeps the process alive; close() flushes what is left.
      this.scheduled.unref();
    }
  }

  get size(): number {
    return this.ctx.config.l1Size;
  }

  /** How many scopes' files are behind their rings, waiting for a flush. */
  get filesBehind(): number {
    return this.dirty.size;
  }

  /** The JSON file of one scope. */
  fileFor(scope: Scope): string {
    checkScope(scope);
    return safeJoin(this.ctx.dataDir, 'l1', scope.layer, `${idSegment(scope.user_id)}.json`);
  }

  push(scope: Scope, input: L1PushInput): L1Item {
    checkScope(scope);
    const text = checkText(input.text, 'text', this.ctx.config.maxTextChars);
    const created = this.ctx.iso();
    return this.ctx.tx(() => {
      const info = this.ctx
        .stmt('INSERT INTO l1_items (layer, user_id, text, kind, ref, created) VALUES (?, ?, ?, ?, ?, ?)')
        .run(scope.layer, scope.user_id, text, input.kind ?? null, input.ref ?? null, created);
      const key = scopeKey(scope.layer, scope.user_id);
      this.countPush(scope, key);
      this.markDirty(scope);
      const item: L1Item = { id: makeId('l1', Number(info.lastInsertRowid)), text, kind: input.kind ?? null, ref: input.ref ?? null, created };
      // What was known before this push, extended at commit: a commit of another connection in
      // between changes data_version, and the next read then drops the copy (see recent).
      const before = this.newest.items.get(key);
      this.newest.items.delete(key);
      this.ctx.onCommit(() => this.keepNewest(key, this.extended(before, headOf(item))));
      return item;
    });
  }

  /**
   * The newest item of the scope, or null when its ring is empty, its text cut to NEWEST_TEXT_CHARS
   * (as recent). After a push committed by this Stores it costs no read of the ring: only a check
   * that no other connection has committed since.
   */
  latest(scope: Scope): L1Item | null {
    return this.recent(scope, 1)[0] ?? null;
  }

  /**
   * The newest n items of the scope (n at most NEWEST_KEPT), oldest first; fewer when the ring
   * holds fewer. Each text is cut to its first NEWEST_TEXT_CHARS characters (list() reads whole
   * ones). Answered from the copy of the newest items as latest() is, read otherwise: the same
   * answer either way.
   */
  recent(scope: Scope, n: number): L1Item[] {
    checkScope(scope);
    const want = Math.min(Math.max(0, Math.floor(n)), NEWEST_KEPT, this.size);
    const version = this.ctx.dataVersion();
    const newest = this.newest;
    if (version !== newest.version) {
      newest.items.clear();
      newest.version = version;
    }
    const key = scopeKey(scope.layer, scope.user_id);
    const known = newest.items.get(key);
    if (known !== undefined && (known.whole || known.items.length >= want)) {
      // Used now: moved to the end of the order of use.
      newest.items.delete(key);
      newest.items.set(key, known);
      return known.items.slice(Math.max(0, known.items.length - want));
    }
    const keep = Math.min(NEWEST_KEPT, this.size);
    const items = this.list(scope, keep).map(headOf);
    // Inside a transaction the rows may not be committed yet (or may be rolled back): not kept.
    if (!this.ctx.db.inTransaction) this.keepNewest(key, { items, whole: items.length < keep });
    return items.slice(Math.max(0, items.length - want));
  }

  /** Keep a scope's newest items as the most recently used, dropping the least recently used past NEWEST_SCOPES_MAX. */
  private keepNewest(key: string, known: Known): void {
    const items = this.newest.items;
    items.delete(key);
    items.set(key, known);
    while (items.size > NEWEST_SCOPES_MAX) items.delete(items.keys().next().value!);
  }

  /** Count a push to the scope; trim its ring at its first push in this process and every L1_TRIM_EVERY pushes after. */
  private countPush(scope: Scope, key: string): void {
    const pushes = this.sinceTrim.get(key);
    if (pushes !== undefined && pushes + 1 < L1_TRIM_EVERY) {
      this.sinceTrim.set(key, pushes + 1);
      return;
    }
    // A scope not counted may hold up to L1_TRIM_EVERY - 1 rows past its ring (a count dropped, or
    // another process's pushes): trimmed now, so no scope goes untrimmed however many there are.
    if (pushes === undefined && this.sinceTrim.size >= TRIM_COUNTS_MAX) this.sinceTrim.clear();
    this.trim(scope);
    this.sinceTrim.set(key, 0);
  }

  /** The copy of a scope's newest items after a push of `item`, from what was known before it. */
  private extended(before: Known | undefined, item: L1Item): Known {
    const keep = Math.min(NEWEST_KEPT, this.size);
    if (before === undefined) return { items: [item], whole: false };
    const items = [...before.items, item];
    // Items past the ring's size are no items of it (see L1_TRIM_EVERY).
    return { items: items.slice(Math.max(0, items.length - keep)), whole: before.whole && items.length <= keep };
  }

  /** The last n items (default: the whole ring), oldest first. */
  list(scope: Scope, n?: number): L1Item[] {
    checkScope(scope);
    const limit = n === undefined ? this.size : Math.max(0, Math.floor(n));
    const rows = this.ctx
      .stmt('SELECT * FROM l1_items WHERE layer = ? AND user_id = ? ORDER BY id DESC LIMIT ?')
      .all(scope.layer, scope.user_id, limit) as Row[];
    return rows.reverse().map(toItem);
  }

  count(scope: Scope): number {
    checkScope(scope);
    const r = this.ctx
      .stmt('SELECT COUNT(*) AS n FROM (SELECT 1 FROM l1_items WHERE layer = ? AND user_id = ? LIMIT ?)')
      .get(scope.layer, scope.user_id, this.size * 4) as { n: number };
    return Math.min(r.n, this.size);
  }

  /** Empty the ring; returns how many of its items were removed. */
  clear(scope: Scope): number {
    checkScope(scope);
    return this.ctx.tx(() => {
      // Rows past the ring's size (see L1_TRIM_EVERY) go too, but were never items of the ring.
      const n = Math.min(this.size, this.ctx.stmt('DELETE FROM l1_items WHERE layer = ? AND user_id = ?').run(scope.layer, scope.user_id).changes);
      this.forgetNewest(scope);
      this.markDirty(scope);
      return n;
    });
  }

  /**
   * Delete the scope's items for which `test` holds, the rows older than the ring (see
   * L1_TRIM_EVERY) included, so forgotten text leaves the table; the file is rewritten from the
   * ring as after any change. Returns the deleted items, oldest first.
   */
  deleteWhere(scope: Scope, test: (item: L1Item) => boolean): L1Item[] {
    checkScope(scope);
    return this.ctx.tx(() => {
      const rows = this.ctx.stmt('SELECT * FROM l1_items WHERE layer = ? AND user_id = ? ORDER BY id').all(scope.layer, scope.user_id) as Row[];
      const gone = rows.filter((r) => test(toItem(r)));
      if (gone.length === 0) return [];
      const del = this.ctx.stmt('DELETE FROM l1_items WHERE id = ?');
      for (const r of gone) del.run(r.id);
      this.forgetNewest(scope);
      this.markDirty(scope);
      return gone.map(toItem);
    });
  }

  /** Delete the scope's items whose text holds the pattern as whole words (util.wordsMatcher); returns them. */
  deleteMatching(scope: Scope, pattern: string): L1Item[] {
    checkWordPattern(pattern);
    const matches = wordsMatcher(pattern);
    return this.deleteWhere(scope, (item) => matches(item.text));
  }

  /** Drop the n oldest items of the ring; returns them. */
  evict(scope: Scope, n: number): L1Item[] {
    checkScope(scope);
    const count = Math.max(0, Math.floor(n));
    return this.ctx.tx(() => {
      // The oldest of the ring (its newest `size` items), not of the table: see L1_TRIM_EVERY.
      const ring = this.ctx
        .stmt('SELECT * FROM (SELECT * FROM l1_items WHERE layer = ? AND user_id = ? ORDER BY id DESC LIMIT ?) ORDER BY id')
        .all(scope.layer, scope.user_id, this.size) as Row[];
      const rows = ring.slice(0, count);
      if (rows.length > 0) {
        // The rows older than the ring, which no read sees, go first: once the ring is shorter
        // they would be read again.
        this.ctx.stmt('DELETE FROM l1_items WHERE layer = ? AND user_id = ? AND id < ?').run(scope.layer, scope.user_id, ring[0]!.id);
        const del = this.ctx.stmt('DELETE FROM l1_items WHERE id = ?');
        for (const r of rows) del.run(r.id);
      }
      this.forgetNewest(scope);
      this.markDirty(scope);
      return rows.map(toItem);
    });
  }

  /** Delete the scope's items created at or after the ISO time; returns how many of the ring's items were removed. */
  deleteSince(scope: Scope, sinceIso: string): number {
    const w = this.ctx.window(sinceIso);
    checkScope(scope);
    return this.ctx.tx(() => {
      // Rows past the ring's size (see L1_TRIM_EVERY) may go too, but were never items of the ring.
      const n = Math.min(
        this.size,
        this.ctx.stmt('DELETE FROM l1_items WHERE layer = ? AND user_id = ? AND created >= ? AND created <= ?').run(scope.layer, scope.user_id, w.since, w.until).changes,
      );
      if (n > 0) {
        this.forgetNewest(scope);
        this.markDirty(scope);
      }
      return n;
    });
  }

  /** Rewrite one scope's file from the table now. */
  sync(scope: Scope): void {
    checkScope(scope);
    this.dirty.delete(scopeKey(scope.layer, scope.user_id));
    this.ctx.tx(() => this.writeFile(scope));
  }

  /** Check that each L1 file (of one scope, or all) is a valid ring file. */
  validate(scope?: Scope): L1FileCheck[] {
    const files = scope ? [this.fileFor(scope)].filter((f) => fs.existsSync(f)) : this.files();
    return files.map((file) => checkFile(file));
  }

  /**
   * Remove every invalid L1 file, then rewrite the files of all scopes that still hold items in
   * the table, so a healed data dir matches the canonical ring. With `backupDir`, each invalid file
   * is copied there first (as `<layer>-<file>`). Returns the removed files and their copies.
   */
  purgeInvalid(backupDir?: string): { removed: string[]; rewritten: number; backed_up: string[] } {
    const removed: string[] = [];
    const backedUp: string[] = [];
    for (const check of this.validate()) {
      if (!check.valid) {
        // A copy first (memory_heal keeps the bad content, in case it holds something to recover).
        if (backupDir) {
          makeDirs(backupDir);
          const copy = path.join(backupDir, `${path.basename(path.dirname(check.file))}-${path.basename(check.file)}`);
          fs.copyFileSync(check.file, copy);
          backedUp.push(copy);
        }
        fs.rmSync(check.file, { force: true });
        removed.push(check.file);
      }
    }
    let rewritten = 0;
    this.ctx.tx(() => {
      const scopes = this.ctx.stmt('SELECT DISTINCT layer, user_id FROM l1_items').all() as Scope[];
      for (const s of scopes) {
        if (!fs.existsSync(this.fileFor(s))) {
          this.writeFile(s);
          rewritten += 1;
        }
      }
    });
    return { removed, rewritten, backed_up: backedUp };
  }

  /**
   * Mark for rewriting the file of every scope whose file does not hold exactly its ring's items
   * (see reconcileSteps in l1-reconcile.ts), all at once. Returns how many scopes were marked and
   * files removed.
   */
  reconcileFiles(): number {
    const steps = reconcileSteps(this, this.ctx);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  }

  /**
   * reconcileFiles in slices of RECONCILE_SLICE scopes or files, yielding to the event loop between
   * two (requests are served meanwhile: at 10,000 scopes the whole took seconds). Resolves to the
   * count, or null when `stopped()` turned true or the database closed before the end.
   */
  async reconcileFilesInSlices(stopped: () => boolean = () => false): Promise<number | null> {
    const steps = reconcileSteps(this, this.ctx);
    for (;;) {
      if (stopped() || !this.ctx.db.open) return null;
      const step = steps.next();
      if (step.done) return step.value;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Mark the scope's file for rewriting from its ring at the next flush. */
  markForRewrite(scope: Scope): void {
    this.markDirty(scope);
  }

  /** Drop the scope's newest items from the copy, now and again at commit (a read in between may not keep them, see recent). */
  private forgetNewest(scope: Scope): void {
    const key = scopeKey(scope.layer, scope.user_id);
    this.newest.items.delete(key);
    this.ctx.onCommit(() => this.newest.items.delete(key));
  }

  /** Delete the scope's items older than its newest `size`. */
  private trim(scope: Scope): void {
    this.ctx
      .stmt(
        `DELETE FROM l1_items WHERE layer = ? AND user_id = ? AND id <= (
           SELECT id FROM l1_items WHERE layer = ? AND user_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
      )
      .run(scope.layer, scope.user_id, scope.layer, scope.user_id, this.size);
  }

  private writeFile(scope: Scope): void {
    const body: L1File = { layer: scope.layer, user_id: scope.user_id, size: this.size, items: this.list(scope) };
    writeFileAtomic(this.fileFor(scope), `${JSON.stringify(body, null, 2)}\n`);
  }

  /** Every ring file of the data dir (`l1/<layer>/*.json`), in name order. */
  files(): string[] {
    const out: string[] = [];
    for (const layer of LAYERS) {
      const dir = safeJoin(this.ctx.dataDir, 'l1', layer);
      if (!fs.existsSync(dir)) continue;
      for (const name of fs.readdirSync(dir).sort()) {
        if (name.endsWith('.json')) out.push(path.join(dir, name));
      }
    }
    return out;
  }
}

function checkFile(file: string): L1FileCheck {
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    return { file, valid: false, error: `not valid JSON: ${(err as Error).message}` };
  }
  if (typeof data !== 'object' || data === null || !Array.isArray((data as L1File).items)) {
    return { file, valid: false, error: 'missing items array' };
  }
  const bad = (data as L1File).items.findIndex(
    (it) => typeof it !== 'object' || it === null || typeof (it as L1Item).text !== 'string',
  );
  if (bad >= 0) return { file, valid: false, error: `item ${bad} has no text` };
  return { file, valid: true };
}
