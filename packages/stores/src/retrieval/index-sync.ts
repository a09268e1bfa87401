import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { runTransaction, writeIfFree } from '@memory-service/kernel';
import type { StoreContext } from '../context.js';
import type { IndexedTable } from '../migrations/retrieval-changes.js';
import { safeJoin, writeFileAtomic } from '../paths.js';
import { writtenText } from '../thought-link.js';
import { scopeKey } from '../util.js';
import { IndexBuild } from './index-build.js';
import { decodeSnapshot, encodeSnapshot } from './index-snapshot.js';
import { INLINE_POSTINGS } from './small-postings.js';
import { MAX_SLOT, SourceIndex, type IndexColumns, type IndexedDoc } from './term-index.js';

/** A scope a search reads: its layer and user_id, and their scopeKey (the index's part key). */
export interface ScopeRef {
  layer: string;
  user_id: string;
  key: string;
}

/** The folder of the data dir that holds the saved indexes, one `<source>.idx` file each. */
export const SNAPSHOT_DIR = 'retrieval';

/** What a search reads of one source: the index, and the changes it does not hold yet. */
export interface IndexView {
  index: SourceIndex;
  /**
   * Row ids changed inside the open transaction (not applied to the index, since a rollback could
   * take them back): the search leaves their indexed versions out and scores their current rows.
   */
  pending: ReadonlySet<number>;
}

interface Built {
  index: SourceIndex;
  /** seq of the last retrieval_changes row applied. */
  cursor: number;
  /** The cursor the saved file holds (saved or loaded in this process), -1 when none is known. */
  saved: number;
  /**
   * Set when the log after `cursor` was found to call for a rebuild (see apply). The verdict only
   * ever holds more strongly as the log grows, so it is kept and the log is not read again for it.
   */
  stale?: true;
}

interface ChangeRow {
  seq: number;
  doc: number;
  old: string | null;
}

/**
 * What a catch-up did: the sources it brought up to date, and those it left for the next search to
 * rebuild (a source can be both: up to date, and worn out).
 */
export interface CatchUp {
  applied: string[];
  left: string[];
}

/** The source of the row restart() writes to the change log: no index reads it. */
export const RESTORE_SOURCE = 'restore';

/** When a batch of changes edits or deletes more documents than this share of the index, it is rebuilt instead. */
const REBUILD_SHARE = 0.5;

/**
 * An index to rebuild from its table whatever the log says: more dead postings (of records
 * changed or deleted since the build) than live ones, or its slots close to running out.
 */
function wornOut(index: SourceIndex): boolean {
  return index.dead > Math.max(1024, index.live) || index.slotsUsed > MAX_SLOT - 65_536;
}

/**
 * The in-memory indexes of the retrieval sources, each built from its table on first use and then
 * kept current from the retrieval_changes log (see migrations/retrieval-changes.ts), so changes made
 * by any code path, or by another process on the same database, are seen by the next search.
 *
 * - Outside a transaction, a search first reads the log's newest seq (one primary-key lookup); if
 *   it is past an index's cursor, the new rows are applied inside one read transaction, so the log
 *   rows and the records read agree: a changed record's first logged old text is exactly the
 *   version the index holds, and comes out before the current version goes in.
 * - Inside a transaction nothing is applied (a rollback could undo it): the changed row ids come
 *   back as `pending` for the search to handle. An index not built yet is not built there either.
 * - When the log was trimmed past an index's cursor, when a batch is larger than half the index,
 *   or when freed slots outnumber live documents, the index is rebuilt from its table.
 * - A memory_backup restore (in any process) restarts the log above every cursor (restart()): it
 *   reads as trimmed past every index built before it, which is rebuilt at its next catch-up.
 * - An index is saved to `<data_dir>/retrieval/<source>.idx` (persist(): after a build at start,
 *   and on close) and a later start reads it instead of building, then applies the log from the
 *   saved cursor as above. The file is used only when the token in it is the one retrieval_snapshots
 *   recorded for its last save, its cursor is not past the log and the log holds everything after
 *   it, and it is whole (checksum) and of this format and these columns (weights, own); otherwise the
 *   index is built from the table.
 */
export class RetrievalIndex {
  private readonly built = new Map<string, Built>();
  /**
   * Builds from the tables in progress in slices (buildInSlices), of sources not in `built` yet: a
   * search of such a source outside a transaction reads what is left of it at once (build()).
   */
  private readonly building = new Map<string, IndexBuild>();
  /** The refresh in slices under way (refreshInSlices), settled whatever its outcome; null when none. */
  private refreshing: Promise<void> | null = null;

  constructor(
    private readonly ctx: StoreContext,
    private readonly tables: ReadonlyMap<string, IndexedTable>,
    private readonly columns: ReadonlyMap<string, IndexColumns>,
  ) {}

  /** Forget every index built in this process (Retrieval.reset). */
  drop(): void {
    this.built.clear();
    // A build in slices in progress stops at its next slice (it is no longer the source's).
    this.building.clear();
  }

  /**
   * The highest seq the change log ever handed out (its AUTOINCREMENT counter, at least its newest
   * row's seq): no index of any process holds a cursor above it, since the log's seq only grows
   * (restart() keeps it growing across a restore).
   */
  topSeq(): number {
    const counter = (this.ctx.stmt("SELECT seq FROM sqlite_sequence WHERE name = 'retrieval_changes'").pluck(true).get() as number | undefined) ?? 0;
    return Math.max(counter, this.maxSeq());
  }

  /**
   * After a restore copied another database in (BackupStore.restore), whose change log describes
   * the backup's history and whose seq is the backup's: every index built before it, in any
   * process, must be rebuilt from the restored tables, and no saved index from before it read.
   * In one transaction the log is emptied and a single row (source `restore`, which no index
   * reads) is written at seq `max(top, the log's counter now) + 2`, where `top` is topSeq() read
   * before the copy replaced the log (under its write lock, so no process can hold more); and the
   * records of the saved indexes are deleted. Every index built before then has a cursor at most
   * that seq - 2, so the log now reads as trimmed past it and its next catch-up rebuilds it from
   * its table (apply), as when the log was trimmed; and the log's newest seq moved for each of
   * them, so a search at its cursor sees it (Retrieval.search) and no search pays for the check.
   * The indexes of this process are dropped. Returns false, doing nothing, when the restored
   * database has no change log or snapshot table yet (older than their migrations): to be called
   * again once it is migrated.
   */
  restart(top: number): boolean {
    const tables = this.ctx
      .stmt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('retrieval_changes', 'retrieval_snapshots')")
      .pluck(true)
      .get() as number;
    if (tables !== 2) return false;
    this.ctx.tx(() => {
      const seq = Math.max(top, this.topSeq()) + 2;
      this.ctx.stmt('DELETE FROM retrieval_changes').run();
      this.ctx.stmt('DELETE FROM retrieval_snapshots').run();
      this.ctx.stmt(`INSERT INTO retrieval_changes (seq, source, doc) VALUES (?, '${RESTORE_SOURCE}', 0)`).run(seq);
    });
    this.drop();
    return true;
  }

  /** The newest seq of the change log: what an index must have applied to be current. */
  maxSeq(): number {
    // A bare max() reads the last row of the primary key; wrapped in coalesce() SQLite scans the table.
    return (this.ctx.stmt('SELECT max(seq) FROM retrieval_changes').pluck(true).get() as number | null) ?? 0;
  }

  /**
   * The seq every index of `sources` has applied, when each is built, they agree, and none is due
   * for a rebuild: at that seq view() has nothing to do. A search can then read at it without
   * reading the log first, and check the log's newest seq in the same statement as its rows
   * (Retrieval.search). Otherwise null.
   */
  settledSeq(sources: Iterable<string>): number | null {
    let seq: number | null = null;
    for (const source of sources) {
      const b = this.built.get(source);
      if (!b || b.stale || wornOut(b.index)) return null;
      if (seq === null) seq = b.cursor;
      else if (b.cursor !== seq) return null;
    }
    return seq;
  }

  /**
   * The current index of a source, or null inside a transaction when it was never built. `max` is
   * maxSeq(), read once per search. With `scope`, the scope's part is marked used and, when it was
   * evicted, reloaded (see reloadScope); null when that cannot be done inside a transaction.
   */
  view(source: string, max: number = this.maxSeq(), scope?: ScopeRef): IndexView | null {
    const db = this.ctx.db;
    if (db.inTransaction) {
      const b = this.built.get(source);
      if (!b) return null;
      if (scope && !b.index.use(scope.key) && !this.reloadScope(source, b, scope)) return null;
      return { index: b.index, pending: b.cursor < max ? this.pendingDocs(source, b.cursor) : new Set() };
    }
    let b = this.built.get(source);
    if (!b) b = this.build(source, true);
    // A saved index read just now holds the log up to its save: the rest is applied here. One the
    // catch-up brought up to date may still be worn out (it never rebuilds): rebuilt here. A cursor
    // past the log's newest seq is one from before a restore that has not restarted the log yet
    // (BackupStore.restore, between its copy and restart()): the seq never goes back otherwise.
    if (b.cursor < max) b = this.apply(source, b);
    else if (b.cursor > max || wornOut(b.index)) b = this.build(source, false);
    if (scope && !b.index.use(scope.key)) {
      // The log moved past the cursor (another process wrote): apply it and try again. Should the
      // rows still not match after a rebuild, the search scores the scope's rows itself (null).
      for (let tries = 0; !this.reloadScope(source, b, scope); tries++) {
        if (tries === 4) return null;
        b = tries < 2 ? this.apply(source, b) : this.build(source, false);
        if (b.index.use(scope.key)) break;
      }
    }
    return { index: b.index, pending: new Set() };
  }

  /**
   * Give an evicted scope part of a source's index its postings again, from the scope's rows (one
   * select of the scope), read in one snapshot in which the log's newest seq is the index's cursor,
   * so the rows are the versions the index holds. False when the log is past the cursor (the
   * caller applies it first) or the rows do not match (SourceIndex.reload; then the index is
   * marked for a rebuild).
   */
  private reloadScope(source: string, b: Built, scope: ScopeRef): boolean {
    return this.snapshot(() => {
      if (this.maxSeq() !== b.cursor) return false;
      if (b.index.reload(scope.key, this.scopeDocs(source, scope.layer, scope.user_id))) return true;
      b.stale = true;
      return false;
    });
  }

  /**
   * Apply the change log to each index built in this process that is behind it, as the next search
   * would before reading. It never builds: an index not built yet stays unbuilt, and one the log
   * says to rebuild (a bulk edit, a trimmed log) or that is worn out is left to the next search,
   * which would rebuild it anyway; rebuilding on every pause of a stream of edits would build it over
   * and over. The log is read once for that verdict (`stale`), not again at each pause: after such a
   * batch, each later write would otherwise read the whole batch's rows back, milliseconds of a
   * blocked event loop per write. Nothing happens inside a transaction or on a closed database.
   */
  catchUp(): CatchUp {
    const db = this.ctx.db;
    const result: CatchUp = { applied: [], left: [] };
    if (!db.open || db.inTransaction || this.built.size === 0) return result;
    const max = this.maxSeq();
    for (const [source, b] of this.built) {
      const behind = b.cursor < max;
      if (behind) this.apply(source, b, false);
      if (behind && b.cursor >= max) result.applied.push(source);
      if (b.cursor !== max || wornOut(b.index)) result.left.push(source);
    }
    return result;
  }

  /**
   * Bring every index built in this process up to date without stalling the process: what is
   * behind is applied as the catch-up applies it (never rebuilding), and the indexes the log or
   * their wear call to rebuild are rebuilt from their tables in slices (buildInSlices), the stale
   * index answering nothing meanwhile: a search of its source would rebuild it, so it reads the
   * rest of the new build instead. One refresh at a time: a call made while another runs waits for
   * it to end, then does its own (what was written after the first one began may call for more).
   * Resolves true once every index is current as of the call, false when `stop()` said so or the
   * database closed first (nothing is written after that). It begins in a later microtask, once
   * the caller's synchronous work (a transaction it has open) is over.
   */
  refreshInSlices(sliceMs: number, stop: () => boolean = () => false): Promise<boolean> {
    const run = (this.refreshing ?? Promise.resolve()).then(() => this.refreshNow(sliceMs, stop));
    // The next call waits for this one whatever its outcome (its own caller sees a failure).
    const waited = run.then(
      () => undefined,
      () => undefined,
    );
    this.refreshing = waited;
    void waited.then(() => {
      if (this.refreshing === waited) this.refreshing = null;
    });
    return run;
  }

  private async refreshNow(sliceMs: number, stop: () => boolean): Promise<boolean> {
    if (stop() || !this.ctx.db.open) return false;
    // Never inside a transaction (a rollback could undo what is applied); buildInSlices waits one out.
    while (this.ctx.db.inTransaction) {
      await new Promise<void>((resolve) => setTimeout(resolve, 5));
      if (stop() || !this.ctx.db.open) return false;
    }
    const max = this.maxSeq();
    const due: string[] = [];
    for (const [source, b] of this.built) {
      // A cursor past the log's newest seq is one from before a restore (see view()).
      const past = b.cursor > max;
      if (b.cursor < max) this.apply(source, b, false);
      if (b.stale || past || wornOut(b.index)) due.push(source);
    }
    await this.buildInSlices(due, sliceMs, stop, true);
    return !stop() && this.ctx.db.open;
  }

  /**
   * Save the indexes built from their tables in this process (`built`) or every index whose cursor
   * moved since it was saved or read (`changed`), each at the cursor it holds. Never waits for
   * another process's write lock, and never throws: a save that fails leaves the next start to
   * build. Returns the sources saved.
   */
  persist(which: 'built' | 'changed'): string[] {
    const db = this.ctx.db;
    if (!db.open || db.inTransaction) return [];
    const saved: string[] = [];
    for (const [source, b] of this.built) {
      if (which === 'built' ? b.saved !== -1 : b.saved === b.cursor) continue;
      const token = randomBytes(12).toString('hex');
      try {
        writeFileAtomic(this.snapshotFile(source), encodeSnapshot({ source, token, cursor: b.cursor }, b.index.state()));
        const recorded = writeIfFree(db, () =>
          this.ctx.tx(() =>
            this.ctx
              .stmt(
                'INSERT INTO retrieval_snapshots (source, token, cursor) VALUES (?, ?, ?) ON CONFLICT (source) DO UPDATE SET token = excluded.token, cursor = excluded.cursor',
              )
              .run(source, token, b.cursor),
          ),
        );
        if (!recorded) continue;
        b.saved = b.cursor;
        saved.push(source);
      } catch {
        // Only a cache: the file or its record is missing or stale, and the next start builds.
      }
    }
    return saved;
  }

  private snapshotFile(source: string): string {
    return safeJoin(this.ctx.dataDir, SNAPSHOT_DIR, `${source}.idx`);
  }

  /** The saved index of a source when it matches the database (see the class comment), else null. */
  private load(source: string, { weights, own }: IndexColumns, max: number): Built | null {
    const row = this.ctx.stmt('SELECT token, cursor, (SELECT min(seq) FROM retrieval_changes) AS min FROM retrieval_snapshots WHERE source = ?').get(source) as
      | { token: string; cursor: number; min: number | null }
      | undefined;
    // Nor when the log no longer holds everything after its cursor (trimmed past it, or restarted
    // by a restore since: restart()): it would be rebuilt at once, so the file is not even read.
    if (!row || (row.min !== null && row.min > row.cursor + 1)) return null;
    try {
      // Only the parts the bound lets stay resident keep their terms, each decoded at its first
      // use (SourceIndex.fromState): a start with many scopes neither stalls nor spikes on them.
      const { meta, state } = decodeSnapshot(fs.readFileSync(this.snapshotFile(source)), this.ctx.config.indexMaxScopes);
      if (meta.source !== source || meta.token !== row.token || meta.cursor !== row.cursor || meta.cursor > max) return null;
      if (state.weights.length !== weights.length || state.weights.some((w, i) => w !== weights[i]) || state.own !== own) return null;
      return { index: SourceIndex.fromState(state, INLINE_POSTINGS, this.ctx.config.indexMaxScopes), cursor: meta.cursor, saved: meta.cursor };
    } catch {
      return null;
    }
  }

  /** The current rows of the given ids in the source's table, as the index reads them. */
  readDocs(source: string, ids: readonly number[]): IndexedDoc[] {
    if (ids.length === 0) return [];
    const t = this.table(source);
    const rows = this.ctx.stmt(`${this.selectSql(t)} WHERE id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids)) as Record<string, unknown>[];
    return rows.map((r) => this.toDoc(t, r));
  }

  /** Every row of one scope of a source (for a search inside a transaction before any index was built). */
  scopeDocs(source: string, layer: string, userId: string): IndexedDoc[] {
    const t = this.table(source);
    const rows = this.ctx.stmt(`${this.selectSql(t)} WHERE layer = ? AND user_id = ?`).all(layer, userId) as Record<string, unknown>[];
    return rows.map((r) => this.toDoc(t, r));
  }

  private table(source: string): IndexedTable {
    const t = this.tables.get(source);
    if (!t) throw new Error(`no indexed table for source ${source}`);
    return t;
  }

  private selectSql(t: IndexedTable): string {
    return `SELECT id, layer, user_id, ${[...t.text, t.facet ?? 'NULL AS facet'].join(', ')} FROM ${t.table}`;
  }

  private toDoc(t: IndexedTable, r: Record<string, unknown>): IndexedDoc {
    return {
      id: Number(r.id),
      scope: scopeKey(String(r.layer), String(r.user_id)),
      facet: t.facet ? String(r[t.facet]) : null,
      // A long thought's link is indexed by the words the user wrote, not the page title and path
      // think appended (thought-link.ts): forget reads it so too, and "diary" or the user's id
      // found every link of the scope.
      columns: t.text.map((c) => (r[c] === null || r[c] === undefined ? '' : writtenText(String(r[c])))),
    };
  }

  private changes(source: string, cursor: number): ChangeRow[] {
    return this.ctx.stmt('SELECT seq, doc, old FROM retrieval_changes WHERE seq > ? AND source = ? ORDER BY seq').all(cursor, source) as ChangeRow[];
  }

  private pendingDocs(source: string, cursor: number): Set<number> {
    return new Set(this.changes(source, cursor).map((c) => c.doc));
  }

  /** Read consistently: one deferred (read) transaction, a single snapshot of the database. */
  private snapshot<T>(fn: () => T): T {
    return runTransaction(this.ctx.db, fn, 'deferred');
  }

  /** The source's index from its saved file when `saved` and the file matches, else from its table. */
  private build(source: string, saved: boolean): Built {
    // A build in slices of the source in progress is read to its end now (the rest in one block).
    const job = this.building.get(source);
    if (job) {
      this.building.delete(source);
      const done = this.complete(source, job);
      if (done) return done;
    }
    const t = this.table(source);
    const columns = this.columns.get(source) ?? { weights: [], own: 0 };
    const b = this.snapshot((): Built => {
      const cursor = this.maxSeq();
      const loaded = saved ? this.load(source, columns, cursor) : null;
      if (loaded) return loaded;
      const index = new SourceIndex(columns.weights, INLINE_POSTINGS, this.ctx.config.indexMaxScopes, columns.own);
      const count = (this.ctx.stmt(`SELECT count(*) AS n FROM ${t.table}`).get() as { n: number }).n;
      const select = this.ctx.stmt(`${this.selectSql(t)} ORDER BY id`);
      const toDoc = (r: Record<string, unknown>) => this.toDoc(t, r);
      index.load(function* docs() {
        for (const r of select.iterate() as IterableIterator<Record<string, unknown>>) yield toDoc(r);
      }, count);
      return { index, cursor, saved: -1 };
    });
    this.built.set(source, b);
    return b;
  }

  /**
   * Inside a read snapshot: apply the log's changes of a source after seq `from` to its index, and
   * answer the log's newest seq (the index's new cursor), or null, leaving the index as it was,
   * when the log calls for a rebuild (trimmed past `from`, more than half the index edited or
   * deleted, an old text cleared). `since` gives, when not null, each record's own seq (at least
   * `from`) after which its changes count: a build in slices read each row at its slice's seq.
   */
  private applyChanges(source: string, index: SourceIndex, from: number, since: ((doc: number) => number) | null): number | null {
    const min = (this.ctx.stmt('SELECT min(seq) AS m FROM retrieval_changes').get() as { m: number | null }).m;
    if (min !== null && min > from + 1) return null;
    const rows = this.changes(source, from);
    // The first change of each record after the indexed version holds that version's old text.
    const first = new Map<number, ChangeRow>();
    let removals = 0;
    for (const r of rows) {
      if (first.has(r.doc) || (since !== null && r.seq <= since(r.doc))) continue;
      first.set(r.doc, r);
      if (index.has(r.doc)) removals++;
    }
    // New records cost the same added here as in a build, so only records to take out (edits and
    // deletes) weigh for a rebuild: a bulk load is applied as it comes, never rebuilt at its end.
    if (removals > 64 && removals > index.live * REBUILD_SHARE) return null;
    // Checked before anything is taken out, so an index that is not rebuilt is left whole.
    for (const [doc, r] of first) if (r.old === null && index.has(doc)) return null;
    for (const [doc, r] of first) {
      if (!index.has(doc)) continue;
      const old = JSON.parse(r.old as string) as unknown[];
      index.remove(doc, old.map((v) => (v === null || v === undefined ? '' : String(v))));
    }
    for (const d of this.readDocs(source, [...first.keys()])) index.add(d);
    return this.maxSeq();
  }

  /**
   * A build in slices whose slices are read (what is left of them is read now, at once), brought to
   * the log's newest seq: each row's changes after the slice that read it are applied
   * (IndexBuild.seqOf), in one snapshot. Null when the log calls for a rebuild instead (the caller
   * builds in one block). The index then goes into `built`.
   */
  private complete(source: string, job: IndexBuild): Built | null {
    job.finish();
    const cursor = this.snapshot(() => this.applyChanges(source, job.index, job.firstSeq, (doc) => job.seqOf(doc)));
    if (cursor === null) return null;
    // Rows the first pass measured and the second no longer found left terms no posting filled.
    if (job.movedSince(cursor)) job.index.dropUnreserved();
    const b: Built = { index: job.index, cursor, saved: -1 };
    this.built.set(source, b);
    return b;
  }

  /**
   * Build the indexes of `sources` not built yet, each read from its saved file when that matches
   * (as a search would), else from its table in slices of about `sliceMs` each, with a turn of the
   * event loop between them (IndexBuild), so the process answers other work meanwhile. A search of
   * a source whose build is in progress reads the rest of it at once (build()); one inside a
   * transaction finds it not built, as before any build, and scores the scope's rows. A slice
   * waits while a transaction is open on the connection (it would read that transaction's writes).
   * Stops, leaving the source unbuilt, when `stop()` says so, the database closes, or drop() is
   * called. Resolves once every source is built or it stopped. With `rebuild`, the sources are
   * built from their tables even when built already (refreshInSlices): the index they have stays
   * until the new one is done, and a search that would rebuild it reads the rest of the new one.
   */
  async buildInSlices(sources: readonly string[], sliceMs: number, stop: () => boolean = () => false, rebuild = false): Promise<void> {
    const db = this.ctx.db;
    const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
    // An open transaction is waited out a few milliseconds at a time, not spun on.
    const later = () => new Promise<void>((resolve) => setTimeout(resolve, 5));
    for (const source of sources) {
      for (;;) {
        if (stop() || !db.open) return;
        if (!db.inTransaction) break;
        await later();
      }
      if ((!rebuild && this.built.has(source)) || this.building.has(source)) continue;
      const columns = this.columns.get(source) ?? { weights: [], own: 0 };
      const table = this.table(source);
      const loaded = rebuild ? null : this.snapshot(() => this.load(source, columns, this.maxSeq()));
      if (loaded) {
        this.built.set(source, loaded);
        continue;
      }
      const select = this.ctx.stmt(`${this.selectSql(table)} WHERE id > ? ORDER BY id`);
      const toDoc = (r: Record<string, unknown>) => this.toDoc(table, r);
      const job = new IndexBuild(
        {
          snapshot: (fn) => this.snapshot(fn),
          maxSeq: () => this.maxSeq(),
          *rowsAfter(after: number) {
            for (const r of select.iterate(after) as IterableIterator<Record<string, unknown>>) yield toDoc(r);
          },
        },
        columns,
        INLINE_POSTINGS,
        this.ctx.config.indexMaxScopes,
      );
      this.building.set(source, job);
      for (;;) {
        await turn();
        // Taken over by a search (build()) or dropped (drop()).
        if (this.building.get(source) !== job) break;
        if (stop() || !db.open) {
          this.building.delete(source);
          return;
        }
        if (db.inTransaction) {
          await later();
          continue;
        }
        try {
          job.step(sliceMs);
        } catch (err) {
          // A slice that failed leaves the source to the next search, which builds it (and reports).
          this.building.delete(source);
          throw err;
        }
        if (!job.done) continue;
        this.building.delete(source);
        if (!this.complete(source, job)) this.build(source, false);
        break;
      }
    }
  }

  /**
   * Bring an index up to the log: the changed records are taken out and put back in, or, when the
   * log says so, the index is rebuilt from its table. With `mayRebuild` false a rebuild is not done
   * and the index is left as it was (cursor included), for a later call to rebuild.
   */
  private apply(source: string, b: Built, mayRebuild = true): Built {
    // A log that called for a rebuild still does with more rows behind it: it is not read again.
    const outcome = b.stale
      ? 'rebuild'
      : this.snapshot((): 'rebuild' | 'done' => {
          const cursor = this.applyChanges(source, b.index, b.cursor, null);
          if (cursor === null) return 'rebuild';
          b.cursor = cursor;
          return 'done';
        });
    if (outcome === 'rebuild') b.stale = true;
    if (!mayRebuild) return b;
    if (outcome === 'rebuild' || wornOut(b.index)) {
      return this.build(source, false);
    }
    return b;
  }
}
